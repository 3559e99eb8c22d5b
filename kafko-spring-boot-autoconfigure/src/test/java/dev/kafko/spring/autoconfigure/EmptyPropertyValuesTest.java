package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.listener.AckMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An empty value unsets a kafko key, as it does a key of Spring Boot's own prefixes: a test clears with
 * {@code kafko.listener.idle-event-interval=} what the application's {@code application.properties} set.
 */
class EmptyPropertyValuesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void anEmptyValueOverAnotherSourcesValueLeavesTheKeyUnsetOrAtItsDefault() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addLast(
                        new org.springframework.core.env.MapPropertySource("application.properties", java.util.Map.of(
                                "kafko.listener.idle-event-interval", "300ms", "kafko.listener.ack-time", "2s",
                                "kafko.listener.ack-mode", "record", "kafko.listener.group-id", "billing"))))
                .withPropertyValues("kafko.listener.idle-event-interval=", "kafko.listener.ack-time=",
                        "kafko.listener.ack-mode=", "kafko.listener.group-id=", "kafko.defaults.retention=",
                        "kafko.topics.orders.partitions=")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoProperties.Listener listener = context.getBean(KafkoProperties.class).getListener();
                    assertThat(listener.getIdleEventInterval()).isNull();
                    assertThat(listener.getAckTime()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(listener.getAckMode()).isEqualTo(AckMode.BATCH);
                    assertThat(context.getBean(KafkoListenerContainerFactory.class).getContainerProperties()
                            .idleEventInterval()).isNull();
                });
    }

    @Test
    void aMisspeltKeyFailsTheStartWithAnEmptyValueToo() {
        runner.withPropertyValues("kafko.listener.idle-event-intervall=").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("kafko.listener.idle-event-intervall"));
    }
}
