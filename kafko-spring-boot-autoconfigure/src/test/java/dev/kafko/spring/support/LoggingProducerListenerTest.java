package dev.kafko.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.UnknownTopicException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LoggingProducerListenerTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(LoggingProducerListener.class);

    @BeforeEach
    void watch() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void stopWatching() {
        logger.detachAppender(log);
    }

    @Test
    void everyFailureIsOneErrorLineAndItsKindsStackTraceComesOnceAMinute() {
        LoggingProducerListener<String, String> listener = new LoggingProducerListener<>();
        KafkoException failed = new KafkoException("partition t-0 failed", new KafkoStorageException("No space left on device"));
        for (int i = 0; i < 5; i++) {
            listener.onError("t", 0, "k" + i, "v", failed);
        }
        listener.onError("t", null, "k", "v", new UnknownTopicException("topic 't' was deleted"));
        listener.onError("other", 0, "k", "v", failed);

        assertThat(log.list).hasSize(7).allSatisfy(e -> assertThat(e.getLevel()).isEqualTo(Level.ERROR));
        assertThat(log.list).extracting(e -> e.getThrowableProxy() != null)
                .containsExactly(true, false, false, false, false, true, true);
        assertThat(log.list.get(1).getFormattedMessage()).contains("topic 't' partition 0 with key 'k1' failed",
                "partition t-0 failed", "caused by", "No space left on device");
    }
}
