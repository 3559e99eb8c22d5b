package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Compaction in passes, when a partition's keys do not fit in the buffer: the records left are exactly those one pass
 * over all the keys leaves (the latest of each key, tombstones past their retention gone, no deleted key back); and a
 * rewrite that would grow past what a segment may hold.
 */
class CompactionPassesTest {

    private static final long SMALL = 64 << 10;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Compacts {@code log} pass after pass, as the broker does; returns the passes. */
    private static int compact(PartitionLog log, TopicConfig config, long now, long buffer) {
        int passes = 0;
        do {
            // not forced: what a pass leaves is the subject here, not what reaches the disk
            CompactionPlan plan = log.compaction().prepare(config, now, false, buffer, () -> false);
            if (plan.isEmpty()) {
                log.compaction().noteCompacted(plan, true);
            } else {
                log.applyCompaction(plan, false);
            }
            passes++;
        } while (log.compaction().passesLeft());
        return passes;
    }

    private static List<KafkoRecord> readAll(PartitionLog log) {
        List<KafkoRecord> read = new ArrayList<>();
        for (long o = log.logStartOffset(); o < log.endOffset(); ) {
            ReadResult r = log.read(o, 500, 1 << 20);
            read.addAll(r.records());
            o = r.nextOffset();
        }
        return read;
    }

    private static String describe(KafkoRecord r) {
        return r.offset() + ":" + new String(r.key(), StandardCharsets.UTF_8) + "="
                + (r.value() == null ? "null" : new String(r.value(), StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(longs = {3L, 2026L})
    void passesLeaveWhatOnePassOverAllTheKeysLeaves(long seed) {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(16 << 10).segmentAge(Duration.ofMinutes(1))
                .deleteRetention(Duration.ZERO).build();
        Random random = new Random(seed);
        // 2,000 keys of 9 bytes: about 80 KB in the map, in 16 KiB: four passes at least; a tenth tombstones
        Map<String, Long> latest = new LinkedHashMap<>();
        List<OutgoingRecord> all = new ArrayList<>();
        for (int i = 0; i < 12_000; i++) {
            String key = String.format("key-%04d", random.nextInt(2000));
            all.add(OutgoingRecord.of(bytes(key), random.nextInt(10) == 0 ? null : bytes("v" + i)));
            latest.put(key, (long) i);
        }
        Path one = dir.resolve("one");
        Path many = dir.resolve("many");
        try (PartitionLog single = PartitionLog.open("t", 0, one, config, clock, FileIo.SYSTEM);
                PartitionLog passes = PartitionLog.open("t", 0, many, config, clock, FileIo.SYSTEM)) {
            for (int i = 0; i < all.size(); i += 100) {
                single.append(all.subList(i, i + 100));
                passes.append(all.subList(i, i + 100));
            }
            clock.advance(Duration.ofMinutes(2)); // every tombstone past its retention; the tail rolls
            single.append(OutgoingRecord.of(bytes("tail"), bytes("t"))); // the active segment holds only these
            passes.append(OutgoingRecord.of(bytes("tail"), bytes("t")));

            assertThat(compact(single, config, clock.millis(), 1L << 30)).isEqualTo(1);
            int n = compact(passes, config, clock.millis(), 16 << 10);
            assertThat(n).as("passes").isGreaterThanOrEqualTo(4);

            List<String> expected = new ArrayList<>();
            for (KafkoRecord r : readAll(single)) {
                expected.add(describe(r));
            }
            List<String> got = new ArrayList<>();
            for (KafkoRecord r : readAll(passes)) {
                got.add(describe(r));
            }
            assertThat(got).isEqualTo(expected);
            // and that is the model: the latest record of each key that is not a tombstone, in offset order
            List<String> model = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                OutgoingRecord r = all.get(i);
                String key = new String(r.key(), StandardCharsets.UTF_8);
                if (latest.get(key) == i && r.value() != null) {
                    model.add(i + ":" + key + "=" + new String(r.value(), StandardCharsets.UTF_8));
                }
            }
            model.add(all.size() + ":tail=t");
            assertThat(got).isEqualTo(model);
            assertThat(passes.compaction().due(config, clock.millis())).as("nothing dirty left").isFalse();
        }
    }

    @Test
    void aDeletedKeyDoesNotComeBackWhenItsTombstoneIsOnlySeenByALaterPass() {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(16 << 10).segmentAge(Duration.ofMinutes(1))
                .deleteRetention(Duration.ZERO).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            log.append(OutgoingRecord.of(bytes("doomed"), bytes("alive")));
            List<OutgoingRecord> filler = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                filler.add(OutgoingRecord.of(bytes(String.format("filler-%05d", i)), bytes("x")));
            }
            for (int i = 0; i < filler.size(); i += 100) {
                log.append(filler.subList(i, i + 100));
            }
            log.append(OutgoingRecord.of(bytes("doomed"), null)); // past the first pass's keys
            clock.advance(Duration.ofMinutes(2));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));

            assertThat(compact(log, config, clock.millis(), SMALL)).isGreaterThanOrEqualTo(2);
            assertThat(readAll(log)).extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
                    .doesNotContain("doomed").hasSize(4001);
        }
    }

    @Test
    void aPassWhoseRewriteWasNotAppliedWholeIsFollowedByOneFromTheLogStart() {
        Duration age = Duration.ofMinutes(1);
        TopicConfig config = TopicConfig.builder().cleanupPolicy(dev.kafko.CleanupPolicy.COMPACT_DELETE)
                .segmentBytes(16 << 10).segmentAge(age).build();
        long start = clock.millis();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            // 80 segments of 100 records each (one a minute): keys 0 to 3999, then all of them again
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 4000; i += 100) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int k = i; k < i + 100; k++) {
                        batch.add(OutgoingRecord.of(bytes(String.format("key-%05d", k)), bytes("v" + round)));
                    }
                    log.append(batch);
                    clock.advance(age.plusSeconds(1));
                }
            }
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, SMALL, () -> false);
            assertThat(plan.partial()).isTrue();
            assertThat(plan.rewrites().get(0).olds()).as("small neighbours merged").hasSizeGreaterThan(1);
            // a retention deletes the first segment of the pass's first merge, not the others: those left keep
            // records a next pass must look at again
            TopicConfig retained = config.toBuilder()
                    .retention(Duration.ofMillis(clock.millis() - start - age.toMillis() / 2)).build();
            log.reconfigure(retained, true);
            assertThat(log.applyRetention()).isEqualTo(1);
            log.applyCompaction(plan, true);
            assertThat(log.compaction().passesLeft()).as("the next pass starts at the log start").isFalse();

            log.reconfigure(config, true);
            compact(log, config, clock.millis(), SMALL);
            Map<String, String> seen = new LinkedHashMap<>();
            for (KafkoRecord r : readAll(log)) {
                String key = new String(r.key(), StandardCharsets.UTF_8);
                assertThat(seen.put(key, new String(r.value(), StandardCharsets.UTF_8))).as(key).isNull();
            }
            assertThat(seen).hasSize(4001);
            assertThat(seen.values()).allMatch(v -> v.equals("v1") || v.equals("t"));
        }
    }

    /**
     * Two segments of 40 records of 200 zero bytes each, written with LZ4 (a few hundred bytes each) and one key of
     * each updated, sealed; returns the config that compacts them with no codec, which writes them at their size.
     */
    private TopicConfig compressedNeighbours(PartitionLog log, TopicConfig config) {
        for (int segment = 0; segment < 2; segment++) {
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                batch.add(OutgoingRecord.of(bytes("k" + segment + "-" + (i % 39)), new byte[200]));
            }
            log.append(batch);
            clock.advance(Duration.ofMinutes(2)); // the next append rolls
        }
        log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
        return config.toBuilder().compression(dev.kafko.Compression.NONE).build();
    }

    @Test
    void neighboursWhoseMergeWouldOutgrowASegmentAreNotMerged() throws IOException {
        TopicConfig config = TopicConfig.builder().compact().compression(dev.kafko.Compression.LZ4).segmentBytes(4096)
                .segmentAge(Duration.ofMinutes(1)).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            TopicConfig uncompressed = compressedNeighbours(log, config);
            int segments = log.segments().length;
            assertThat(log.segments()[0].size() + log.segments()[1].size()).isLessThanOrEqualTo(4096);

            CompactionPlan plan = log.compaction().prepare(uncompressed, clock.millis(), true, SMALL, () -> false);
            assertThat(plan.rewrites()).hasSize(2).allSatisfy(r -> assertThat(r.olds()).hasSize(1));
            assertThat(plan.rewrites()).allSatisfy(r -> assertThat(r.size()).isGreaterThan(4096));
            log.applyCompaction(plan, true);
            assertThat(log.segments()).hasSize(segments);
            assertThat(readAll(log)).hasSize(2 * 39 + 1);
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(f -> f.endsWith(".tmp"));
            }
        }
    }

    @Test
    void aSegmentWhoseRewriteWouldBeLongerThanASegmentFileCanBeFailsTypedAndRewritesNothing() throws IOException {
        TopicConfig config = TopicConfig.builder().compact().compression(dev.kafko.Compression.LZ4)
                .segmentBytes(1 << 20).segmentAge(Duration.ofMinutes(1)).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            TopicConfig uncompressed = compressedNeighbours(log, config);
            Segment old = log.segments()[0];
            log.compaction().limitRewrites(4096);

            assertThatThrownBy(() -> log.compaction().prepare(uncompressed, clock.millis(), true, SMALL, () -> false))
                    .isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("t-0")
                    .hasMessageContaining("would be longer than 4096 bytes")
                    .hasMessageContaining("nothing was rewritten");
            assertThat(log.segments()[0]).isSameAs(old);
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(f -> f.endsWith(".tmp"));
            }
            assertThat(readAll(log)).hasSize(81);
        }
    }
}
