package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.ApplicationShutdownTest.awaitUntil;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.Acknowledgment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A listener that closes its application from its polling thread has what its member processed before the record in
 * hand committed by the close (ApplicationShutdownTest, batch ack mode): under every other ack mode that commit must
 * take what the mode would commit, and nothing the listener did not finish (at-least-once).
 */
class ClosingListenerAckModesTest {

    static final AtomicBoolean CLOSED = new AtomicBoolean();

    @TempDir
    Path dir;

    @BeforeEach
    void reset() {
        CLOSED.set(false);
    }

    private Map<Integer, Long> committedAfterClose(String ackMode, Class<?> listener) throws Exception {
        Path data = dir.resolve("data");
        try (Kafko kafko = Kafko.open(data)) {
            kafko.createTopic("t");
            for (int i = 0; i < 20; i++) {
                kafko.producer("t").send(null, Integer.toString(i).getBytes(StandardCharsets.UTF_8)).join();
            }
        }
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + data, "kafko.listener.ack-mode=" + ackMode,
                        "kafko.listener.ack-count=100", "kafko.listener.ack-time=1h")
                .withBean(listener)
                .run(context -> awaitUntil(CLOSED::get));
        try (Kafko kafko = Kafko.open(data)) {
            return kafko.groupInfo("t", "g").committed();
        }
    }

    @Test
    void countAndTimeModesCommitTheRecordsProcessedBeforeTheOneInHand() throws Exception {
        assertThat(committedAfterClose("count", ClosingAtNine.class)).isEqualTo(Map.of(0, 9L));
        reset();
        dir = dir.resolve("time");
        assertThat(committedAfterClose("time", ClosingAtNine.class)).isEqualTo(Map.of(0, 9L));
    }

    @Test
    void manualModeCommitsWhatWasAcknowledgedAndNothingElse() throws Exception {
        // records 0..4 acknowledged, 5..8 processed but not acknowledged, 9 closes: only 0..4 may be committed
        assertThat(committedAfterClose("manual", AcknowledgingFirstFive.class)).isEqualTo(Map.of(0, 5L));
    }

    @Test
    void manualModeCommitsNothingWhenNothingWasAcknowledged() throws Exception {
        assertThat(committedAfterClose("manual", NeverAcknowledging.class)).isEmpty();
    }

    @Test
    void aBatchListenerCommitsTheIndexesItAcknowledgedBeforeClosing() throws Exception {
        assertThat(committedAfterClose("manual", BatchAcknowledgingPart.class)).isEqualTo(Map.of(0, 7L));
    }

    abstract static class Closing implements ApplicationContextAware {
        ConfigurableApplicationContext context;

        @Override
        public void setApplicationContext(ApplicationContext context) {
            this.context = (ConfigurableApplicationContext) context;
        }

        void close() {
            context.close();
            CLOSED.set(true);
        }
    }

    static class ClosingAtNine extends Closing {
        @KafkoListener(id = "c", topics = "t", groupId = "g")
        void on(String value) {
            if (value.equals("9")) {
                close();
            }
        }
    }

    static class AcknowledgingFirstFive extends Closing {
        @KafkoListener(id = "c", topics = "t", groupId = "g")
        void on(String value, Acknowledgment ack) {
            int i = Integer.parseInt(value);
            if (i < 5) {
                ack.acknowledge();
            } else if (i == 9) {
                close();
            }
        }
    }

    static class NeverAcknowledging extends Closing {
        @KafkoListener(id = "c", topics = "t", groupId = "g")
        void on(String value, Acknowledgment ack) {
            if (value.equals("9")) {
                close();
            }
        }
    }

    static class BatchAcknowledgingPart extends Closing {
        @KafkoListener(id = "c", topics = "t", groupId = "g", batch = "true")
        void on(List<String> values, Acknowledgment ack) {
            ack.acknowledge(6); // the first seven processed, the rest not: it closes in their middle
            close();
        }
    }
}
