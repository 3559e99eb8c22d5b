package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Review of the stray-segment recovery (B122): what a legitimate crash leaves must be kept, and a stray empty
 * file must neither move the end back nor hide acknowledged records.
 */
class StraySegmentReviewTest {

    @TempDir
    Path dir;

    /** Two stray empty files inside the active segment: the end must not move back (B122 with two files). */
    @Test
    void twoEmptyStraysNamedInsideTheActiveSegmentMoveNoEndBack() throws Exception {
        write(dir, "t", 1024, 50, Compression.NONE);
        Path partition = dir.resolve("t/0");
        List<Long> bases = StraySegmentFileTest.bases(partition);
        long active = bases.get(bases.size() - 1);
        assertThat(50 - active).isGreaterThan(3);
        Files.write(segment(partition, active + 1), new byte[0]);
        Files.write(segment(partition, active + 2), new byte[0]);
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).as("end after two strays").isEqualTo(50);
            assertThat(k.producer("t").send(null, "new".getBytes()).join().offset()).isEqualTo(50);
        }
    }

    /**
     * A stray empty file named inside a sealed segment (not the last one): its records are intact in the sealed
     * segment, and a consumer reading from the start read them before the read cap; with it they fail.
     */
    @Test
    void anEmptyStrayInsideASealedSegmentHidesNoRecordFromAConsumerReadingFromTheStart() throws Exception {
        write(dir, "t", 1024, 50, Compression.NONE);
        Path partition = dir.resolve("t/0");
        List<Long> bases = StraySegmentFileTest.bases(partition);
        assertThat(bases.size()).isGreaterThan(2);
        Files.write(segment(partition, 1), new byte[0]);
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(50);
            Map<Long, String> read = StraySegmentFileTest.readAll(k, 0);
            assertThat(read).hasSize(50);
        }
    }

    /** A crash right after a roll: the new segment holds only its header; it is kept, and the end stays. */
    @Test
    void aCrashRightAfterARollKeepsTheNewEmptySegment() throws Exception {
        crashAfterRoll(false);
    }

    /** The same, the new segment preallocated with zeros ahead (as a prepared file is). */
    @Test
    void aCrashRightAfterARollKeepsTheNewPreallocatedSegment() throws Exception {
        crashAfterRoll(true);
    }

    /** A stray empty file inside the last LZ4 batch of the active segment: the batch's records stay. */
    @Test
    void anEmptyStrayInsideACompressedBatchLosesNothing() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(4096).compression(Compression.LZ4).build());
            var p = k.producer("t");
            var last = new java.util.ArrayList<java.util.concurrent.CompletableFuture<?>>();
            for (long i = 0; i < 40; i++) {
                last.add(p.send(null, StraySegmentFileTest.value("a", i).getBytes()));
            }
            last.forEach(java.util.concurrent.CompletableFuture::join);
        }
        Path partition = dir.resolve("t/0");
        long active = StraySegmentFileTest.bases(partition).get(StraySegmentFileTest.bases(partition).size() - 1);
        Files.write(segment(partition, 38), new byte[0]);
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(40);
            assertThat(StraySegmentFileTest.readAll(k, active)).hasSize((int) (40 - active));
        }
    }

    /** A consumer tailing a segment being appended (the read cap at its next offset) misses no record. */
    @Test
    void aTailingConsumerGetsEveryRecordInOrder() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(64 * 1024).build());
            int n = 20_000;
            Thread producer = new Thread(() -> {
                var p = k.producer("t");
                java.util.concurrent.CompletableFuture<?> last = null;
                for (long i = 0; i < n; i++) {
                    last = p.send(null, StraySegmentFileTest.value("a", i).getBytes());
                }
                last.join();
            });
            producer.start();
            long expected = 0;
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS)) {
                c.seek(0, 0);
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (expected < n && System.nanoTime() < deadline) {
                    for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                        assertThat(r.offset()).isEqualTo(expected);
                        assertThat(new String(r.value())).isEqualTo(StraySegmentFileTest.value("a", expected));
                        expected++;
                    }
                }
            }
            producer.join();
            assertThat(expected).isEqualTo(n);
        }
    }

    private void crashAfterRoll(boolean preallocated) throws Exception {
        write(dir, "t", 1024, 50, Compression.NONE);
        Path partition = dir.resolve("t/0");
        List<Long> bases = StraySegmentFileTest.bases(partition);
        long active = bases.get(bases.size() - 1);
        // the roll's new file at the end offset; the old active one unsealed (no index files), no clean marker
        byte[] header = Files.readAllBytes(segment(partition, active));
        byte[] h = new byte[preallocated ? 1024 : 16];
        System.arraycopy(header, 0, h, 0, 16);
        ByteOrder order = ByteBuffer.wrap(header, 8, 8).order(ByteOrder.BIG_ENDIAN).getLong() == active
                ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        ByteBuffer.wrap(h).order(order).putLong(8, 50);
        Files.write(segment(partition, 50), h);
        try (Stream<Path> s = Files.list(partition)) {
            for (Path f : s.toList()) {
                String n = f.getFileName().toString();
                if (n.startsWith(String.format("%020d.", active)) && !n.endsWith(".log")
                        || !n.matches("\\d{20}\\..*")) {
                    if (Files.isRegularFile(f)) {
                        Files.delete(f);
                    }
                }
            }
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(50);
            assertThat(Files.exists(segment(partition, 50))).as("the new segment kept").isTrue();
            assertThat(k.producer("t").send(null, "new".getBytes()).join().offset()).isEqualTo(50);
        }
        assertThat(StraySegmentFileTest.bases(partition)).contains(50L);
        try (Kafko k = Kafko.open(dir)) {
            Map<Long, String> read = StraySegmentFileTest.readAll(k, 0);
            assertThat(read).hasSize(51);
            assertThat(read.get(50L)).isEqualTo("new");
        }
    }

    private static Path segment(Path partition, long base) {
        return partition.resolve(String.format("%020d.log", base));
    }

    private static void write(Path dir, String topic, long segmentBytes, int count, Compression c) {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic(topic, TopicConfig.builder().segmentBytes(segmentBytes).compression(c).build());
            for (long i = 0; i < count; i++) {
                k.producer(topic).send(null, StraySegmentFileTest.value("a", i).getBytes()).join();
            }
        }
    }
}
