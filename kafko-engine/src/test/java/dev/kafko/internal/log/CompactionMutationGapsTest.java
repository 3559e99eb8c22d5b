package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Compression;
import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Edges of compaction that its mutation testing found unchecked: neighbours whose bytes add up to exactly a segment's
 * are merged, and one byte more keeps them apart; a compaction is not due below its dirty ratio; a segment whose
 * rewrite is too long, after one already rewritten, fails the compaction without leaving a new file.
 */
class CompactionMutationGapsTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> readAll(PartitionLog log) {
        List<String> read = new ArrayList<>();
        for (long o = log.logStartOffset(); o < log.endOffset(); ) {
            ReadResult r = log.read(o, 500, 1 << 20);
            for (KafkoRecord k : r.records()) {
                read.add(k.offset() + ":" + new String(k.key(), StandardCharsets.UTF_8));
            }
            o = r.nextOffset();
        }
        return read;
    }

    /** Three sealed segments of ten records of distinct keys each (nothing to remove), then the active one. */
    private void threeSealedSegments(PartitionLog log) {
        for (int segment = 0; segment < 3; segment++) {
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                batch.add(OutgoingRecord.of(bytes("k" + segment + "-" + i), new byte[100]));
            }
            log.append(batch);
            clock.advance(AGE.plusSeconds(1)); // the next append rolls
        }
        log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
    }

    @Test
    void neighboursWhoseBytesAddUpToExactlyASegmentAreMergedAndOneByteMoreKeepsThemApart() {
        TopicConfig config = TopicConfig.builder().compact().compression(Compression.NONE).segmentBytes(1 << 20)
                .segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            threeSealedSegments(log);
            List<String> before = readAll(log);
            Segment[] segs = log.segments();
            assertThat(segs).hasSize(4);
            long two = segs[0].size() + segs[1].size();
            assertThat(two + segs[2].size()).isGreaterThan(two);

            CompactionPlan apart = log.compaction().prepare(config.toBuilder().segmentBytes(two - 1).build(),
                    clock.millis(), false, () -> false);
            assertThat(apart.isEmpty()).as("no two of them fit a segment of one byte less").isTrue();

            TopicConfig exact = config.toBuilder().segmentBytes(two).build();
            CompactionPlan plan = log.compaction().prepare(exact, clock.millis(), false, () -> false);
            assertThat(plan.rewrites()).hasSize(1);
            assertThat(plan.rewrites().get(0).olds()).containsExactly(segs[0], segs[1]);
            log.applyCompaction(plan, false);
            assertThat(log.segments()).hasSize(3);
            assertThat(log.segments()[0].baseOffset()).isZero();
            assertThat(log.segments()[1]).isSameAs(segs[2]);
            assertThat(log.sizeBytes()).isLessThan(two + segs[2].size() + segs[3].size());
            assertThat(readAll(log)).isEqualTo(before).hasSize(31);
        }
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            assertThat(log.segments()).hasSize(3);
            assertThat(readAll(log)).hasSize(31).startsWith("0:k0-0").endsWith("30:tail");
        }
    }
    @Test
    void aCompactionIsNotDueWhileItsDirtyBytesAreBelowTheRatio() {
        TopicConfig config = TopicConfig.builder().compact().segmentAge(AGE).minCleanableDirtyRatio(0.5).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            threeSealedSegments(log);
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), false, () -> false);
            log.compaction().noteCompacted(plan, true);
            assertThat(log.compaction().due(config, clock.millis())).as("nothing dirty").isFalse();

            // one small record sealed after 30 records compacted: dirty, but far below half the bytes
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("next"), bytes("n")));
            assertThat(log.compaction().due(config, clock.millis())).isFalse();
            assertThat(log.compaction().due(config.toBuilder().minCleanableDirtyRatio(0.0).build(), clock.millis()))
                    .isTrue();
        }
    }

    @Test
    void aSegmentTooLargeToRewriteAfterOneRewrittenLeavesNoNewFileAndTheLogAsItWas() throws IOException {
        TopicConfig config = TopicConfig.builder().compact().compression(Compression.LZ4).segmentBytes(1 << 20)
                .segmentAge(AGE).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            // the first segment small, losing a record; the second, of zeros that LZ4 shrank, too long without it
            log.append(List.of(OutgoingRecord.of(bytes("a"), bytes("1")), OutgoingRecord.of(bytes("a"), bytes("2"))));
            clock.advance(AGE.plusSeconds(1));
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                batch.add(OutgoingRecord.of(bytes("k" + (i % 39)), new byte[200]));
            }
            log.append(batch);
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
            Segment[] before = log.segments();
            List<String> read = readAll(log);
            log.compaction().limitRewrites(4096);

            TopicConfig uncompressed = config.toBuilder().compression(Compression.NONE).build();
            assertThatThrownBy(() -> log.compaction().prepare(uncompressed, clock.millis(), false, () -> false))
                    .isInstanceOf(KafkoStorageException.class).hasMessageContaining("nothing was rewritten");
            assertThat(log.segments()).containsExactly(before);
            assertThat(readAll(log)).isEqualTo(read);
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(f -> f.getFileName().toString())).noneMatch(f -> f.endsWith(".tmp"));
            }
        }
    }
}
