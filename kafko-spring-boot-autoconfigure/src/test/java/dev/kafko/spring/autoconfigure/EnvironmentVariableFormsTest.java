package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * An environment variable sets a kafko property in either form Spring Boot binds: with the dashes removed
 * ({@code KAFKO_LISTENER_MAXPOLLRECORDS}) or with them as underscores ({@code KAFKO_LISTENER_MAX_POLL_RECORDS}).
 * The refusal of unknown keys read the second form as {@code kafko.listener.max.poll.records} and failed the start,
 * though the property had been bound from it.
 */
class EnvironmentVariableFormsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class));

    private ApplicationContextRunner withEnvironment(Map<String, Object> variables) {
        return runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource("test-systemEnvironment", variables)));
    }

    @Test
    void aVariableWithTheDashesAsUnderscoresSetsTheProperty() {
        withEnvironment(Map.of("KAFKO_EPHEMERAL", "true", "KAFKO_LISTENER_MAX_POLL_RECORDS", "7",
                "KAFKO_LISTENER_RETRY_MAX_ATTEMPTS", "3", "KAFKO_HEALTH_MIN_FREE_DISK", "10MB",
                "KAFKO_TOPICS_ORDERS_MAX_RECORD_SIZE", "2KB", "KAFKO_AUTO_CREATE_TOPICS", "false"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoProperties properties = context.getBean(KafkoProperties.class);
                    assertThat(properties.getListener().getMaxPollRecords()).isEqualTo(7);
                    assertThat(properties.getListener().getRetry().getMaxAttempts()).isEqualTo(3);
                    assertThat(properties.getHealth().getMinFreeDisk().toMegabytes()).isEqualTo(10);
                    assertThat(properties.isAutoCreateTopics()).isFalse();
                    assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().config().maxRecordBytes())
                            .isEqualTo(2048);
                });
    }

    @Test
    void aVariableThatNamesNoPropertyInEitherFormStillFailsTheStart() {
        withEnvironment(Map.of("KAFKO_EPHEMERAL", "true", "KAFKO_LISTENER_MAX_POLL_RECORD", "7"))
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("kafko.listener.max.poll.record"));
    }
}
