package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.CorruptLogException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sealed segment that lost its tail (cut at a frame boundary, as a copy that stopped short leaves it):
 * a consumer polling through it gets the intact records, then {@link CorruptLogException} naming the
 * file and the lost offsets at its next poll, as the README promises, whatever its reset policy, and
 * never waits its timeout out while it reads the same bytes again and again.
 */
class LostOffsetsPollTest {

    private static final int BATCHES = 20;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(OffsetResetPolicy.class)
    void aConsumerReachingOffsetsLostFromASealedSegmentIsToldAtItsNextPoll(OffsetResetPolicy reset) throws Exception {
        writeBatches();
        Path first = dir.resolve("t/0/00000000000000000000.log");
        byte[] bytes = Files.readAllBytes(first);
        int firstFrameEnd = 16 + ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(16);
        Files.write(first, Arrays.copyOf(bytes, firstFrameEnd));

        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(reset))) {
            List<KafkoRecord> intact = c.poll(Duration.ofSeconds(5));
            assertThat(intact).extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L);
            long start = System.nanoTime();
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(5))).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(first.toString()).hasMessageContaining("offsets 3 to");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("reported at once").isLessThan(Duration.ofSeconds(2));
            assertThat(c.position(0)).as("kept at the first lost offset").isEqualTo(3);
        }
    }

    @ParameterizedTest
    @EnumSource(OffsetResetPolicy.class)
    void aConsumerReachingASegmentDeletedFromTheMiddleIsToldAtItsNextPoll(OffsetResetPolicy reset) throws Exception {
        writeBatches();
        Path partition = dir.resolve("t/0");
        List<Path> logs;
        try (var files = Files.list(partition)) {
            logs = files.filter(f -> f.toString().endsWith(".log")).sorted().toList();
        }
        assertThat(logs).hasSizeGreaterThan(3);
        Path second = logs.get(1);
        long lostFrom = Long.parseLong(second.getFileName().toString().replace(".log", ""));
        for (Path f : List.of(second, Path.of(second.toString().replace(".log", ".index")),
                Path.of(second.toString().replace(".log", ".timeindex")))) {
            Files.deleteIfExists(f);
        }

        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(reset))) {
            long read = 0;
            while (read < lostFrom) {
                List<KafkoRecord> got = c.poll(Duration.ofSeconds(5));
                assertThat(got).isNotEmpty();
                read += got.size();
            }
            assertThat(read).isEqualTo(lostFrom);
            long start = System.nanoTime();
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(5))).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining("offsets " + lostFrom + " to");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("reported at once").isLessThan(Duration.ofSeconds(2));
        }
    }

    private void writeBatches() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(1024).build());
            Producer p = k.producer("t");
            for (int b = 0; b < BATCHES; b++) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    batch.add(OutgoingRecord.of(null, new byte[40]));
                }
                p.sendBatch(batch).join();
            }
        }
    }
}
