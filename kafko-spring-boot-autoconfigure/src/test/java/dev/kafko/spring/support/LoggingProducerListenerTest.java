package dev.kafko.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LoggingProducerListenerTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(LoggingProducerListener.class);

    @Test
    void everyFailureIsOneErrorLineAndItsKindsStackTraceComesOnceAMinute() {
        LoggingProducerListener<String, String> listener = new LoggingProducerListener<>();
        KafkoException failed = new KafkoException("partition t-0 failed", new KafkoStorageException("No space left on device"));
        for (int i = 0; i < 5; i++) {
            listener.onError("t", 0, "k" + i, "v", failed);
        }
        listener.onError("t", null, "k", "v", new UnknownTopicException("topic 't' was deleted"));
        listener.onError("other", 0, "k", "v", failed);

        assertThat(log.events()).hasSize(7).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR));
        assertThat(log.events()).extracting(e -> e.getThrowableProxy() != null)
                .containsExactly(true, false, false, false, false, true, true);
        assertThat(log.events().get(1).getFormattedMessage()).contains("topic 't' partition 0 with key 'k1' failed",
                "partition t-0 failed", "caused by", "No space left on device");
    }
}
