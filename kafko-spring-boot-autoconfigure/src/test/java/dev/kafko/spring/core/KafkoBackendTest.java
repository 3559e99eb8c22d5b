package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkoBackendTest {

    @TempDir
    Path dir;

    /** What the listeners' caught-up wait (KafkoTestUtils) measures against: a send made before counts. */
    @Test
    void endOffsetsCountTheSendsThatLinger() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofHours(1)).build())) {
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true));
            backend.ensureTopic("t", 1);
            Producer producer = kafko.producer("t");
            CompletableFuture<RecordPosition> lingering = null;
            for (int i = 0; i < 10_000 && lingering == null; i++) {
                CompletableFuture<RecordPosition> f = producer.send(null, new byte[256]);
                lingering = f.isDone() ? null : f;
            }
            assertThat(lingering).as("a send that lingers").isNotNull().isNotDone();
            Map<Integer, Long> ends = backend.endOffsets("t");
            assertThat(lingering).isCompleted();
            assertThat(ends).containsExactly(Map.entry(0, lingering.join().offset() + 1));
        }
    }
}
