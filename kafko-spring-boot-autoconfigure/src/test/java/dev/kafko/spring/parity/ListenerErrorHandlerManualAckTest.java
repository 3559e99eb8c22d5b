package dev.kafko.spring.parity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@link KafkoListenerErrorHandler} that returns under a manual ack mode, as spring-kafka's: the record is done
 * (no retries) but committed only once acknowledged, which the handler may do through the message's acknowledgment
 * header (spring-kafka's {@code ManualAckListenerErrorHandler}).
 */
class ListenerErrorHandlerManualAckTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Listeners.class)
            .withBean("swallow", KafkoListenerErrorHandler.class, () -> (message, e) -> null)
            .withBean("swallowAndAck", KafkoListenerErrorHandler.class, () -> (message, e) -> {
                message.getHeaders().get(KafkoHeaders.ACKNOWLEDGMENT, Acknowledgment.class).acknowledge();
                return null;
            })
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.ack-mode=manual");

    @Test
    void aReturningHandlerCommitsUnderAManualAckModeOnlyWhatItAcknowledges() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            template.send("swallowed", "x").join();
            template.send("acked", "x").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groupInfo("swallowed", "swallowed").committed()).isEmpty();
            assertThat(kafko.groupInfo("acked", "acked").committed()).containsEntry(0, 1L);
        });
    }

    static class Listeners {
        @KafkoListener(id = "swallowed", topics = "swallowed", errorHandler = "swallow")
        void swallowed(String value, Acknowledgment ack) {
            throw new IllegalStateException("fails");
        }

        @KafkoListener(id = "acked", topics = "acked", errorHandler = "swallowAndAck")
        void acked(String value, Acknowledgment ack) {
            throw new IllegalStateException("fails");
        }
    }
}
