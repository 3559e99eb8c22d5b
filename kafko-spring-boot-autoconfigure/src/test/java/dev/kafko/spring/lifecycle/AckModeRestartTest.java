package dev.kafko.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** a restart on the same directory under each ack mode repeats nothing the stop saw processed. */
class AckModeRestartTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    static class Record {
        @KafkoListener(id = "ackr", topics = "ackt", concurrency = "3")
        void on(String value, Acknowledgment ack) {
            RECEIVED.add(value);
            ack.acknowledge();
        }
    }

    static class Batch {
        @KafkoListener(id = "ackb", topics = "ackt", concurrency = "3", batch = "true")
        void on(List<String> values, Acknowledgment ack) {
            RECEIVED.addAll(values);
            ack.acknowledge();
        }
    }

    static class AutoRecord {
        @KafkoListener(id = "ackr", topics = "ackt", concurrency = "3")
        void on(String value) {
            RECEIVED.add(value);
        }
    }

    static class AutoBatch {
        @KafkoListener(id = "ackb", topics = "ackt", concurrency = "3", batch = "true")
        void on(List<String> values) {
            RECEIVED.addAll(values);
        }
    }

    @SuppressWarnings("unchecked")
    static Class<Object> listenerClass(boolean batch, boolean manual) {
        return (Class<Object>) (manual ? batch ? Batch.class : Record.class : batch ? AutoBatch.class : AutoRecord.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"record:record", "batch:record", "count:record", "time:record", "count-time:record",
            "manual:record", "manual-immediate:record", "batch:batch", "count:batch", "time:batch", "manual:batch"})
    void aRestartDeliversEveryRecordOnce(String modeAndShape, @TempDir Path dir) {
        RECEIVED.clear();
        String mode = modeAndShape.split(":")[0];
        boolean batch = modeAndShape.endsWith(":batch");
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(listenerClass(batch, mode.startsWith("manual")))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.ackt.partitions=3",
                        "kafko.listener.ack-mode=" + mode, "kafko.listener.ack-count=1000",
                        "kafko.listener.ack-time=1h", "kafko.listener.poll-timeout=100ms");
        for (int round = 0; round < 3; round++) {
            int r = round;
            runner.run(context -> {
                @SuppressWarnings("unchecked")
                KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                for (int i = 0; i < 7; i++) {
                    template.send("ackt", "k" + i, r + "-" + i).join();
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.size() >= 7 * (r + 1));
            });
        }
        assertThat(RECEIVED).as(mode).hasSize(21).doesNotHaveDuplicates();
    }
}
