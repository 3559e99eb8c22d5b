package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.LogCapture;
import dev.kafko.spring.support.ProducerListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Which ProducerListener bean the template takes: the only one, the primary one, or none and says so. */
class ProducerListenerBeansTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(KafkoAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void severalProducerListenersAndNoPrimaryOneAreReportedNotIgnoredSilently() {
        runner.withBean("audit", ProducerListener.class, () -> new ProducerListener<Object, Object>() { })
                .withBean("alerts", ProducerListener.class, () -> new ProducerListener<Object, Object>() { })
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(log.events()).anySatisfy(e -> assertThat(e.getFormattedMessage())
                            .contains("Several ProducerListener beans and none of them @Primary"));
                });
    }

    @Test
    void oneProducerListenerIsTakenWithoutAWord() {
        runner.withBean("audit", ProducerListener.class, () -> new ProducerListener<Object, Object>() { })
                .run(context -> assertThat(log.events()).noneSatisfy(e -> assertThat(e.getFormattedMessage())
                        .contains("ProducerListener")));
    }
}
