package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A read of a segment that is not mapped, made between the rename of its compacted file over it and the swap of the
 * segments: it never opens the path (which names the new file by then) for the old segment's positions, but waits
 * for the swap and reads the new segment; so does a read of a segment merged into the one before it.
 */
class CompactionSwapReadTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    @AfterEach
    void restoreBudget() {
        MappingBudget.setLimit(-1);
    }

    /** The real file system; after the rename of a compacted segment's new file, {@code afterRename} runs. */
    private static final class HookedIo extends WrappingFileIo {
        volatile Runnable afterRename = () -> { };

        HookedIo() {
            super((path, options, real) -> real);
        }

        @Override
        public void atomicMove(Path source, Path target) throws IOException {
            super.atomicMove(source, target);
            String name = source.getFileName().toString();
            if (name.endsWith(".log" + FileNames.TMP_SUFFIX) || name.endsWith(".log" + FileNames.SWAP_SUFFIX)) {
                afterRename.run();
            }
        }
    }

    /** Closes the channel the unmapped file keeps for its reads, as the process-wide cache's eviction does. */
    private static void evictCachedChannel(SegmentFile file) throws ReflectiveOperationException {
        Field f = SegmentFile.class.getDeclaredField("unmapped");
        f.setAccessible(true);
        Object reads = f.get(file);
        Method drop = reads.getClass().getDeclaredMethod("dropCached");
        drop.setAccessible(true);
        drop.invoke(reads);
    }

    @Test
    void aReadOfTheOldUnmappedSegmentDuringTheSwapReadsTheNewOne() throws Exception {
        MappingBudget.setLimit(0); // nothing mapped: every read of a sealed segment is a positional read
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(1L << 20).segmentAge(AGE).build();
        HookedIo io = new HookedIo();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, io)) {
            for (int i = 0; i < 40; i++) {
                log.append(OutgoingRecord.of(bytes("k" + (i % 10)), bytes("v" + i))); // latest of each: 30..39
            }
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
            Segment old = log.segments()[0];
            assertThat(old.file().isMapped()).isFalse();

            AtomicReference<CompletableFuture<List<KafkoRecord>>> read = readAfterRename(io, log, old, 0);
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(log.applyCompaction(plan, true)).isEqualTo(30);

            assertThat(read.get().get(30, TimeUnit.SECONDS)).extracting(KafkoRecord::offset)
                    .containsExactly(30L, 31L, 32L, 33L, 34L, 35L, 36L, 37L, 38L, 39L);
        }
    }

    @Test
    void aReadOfAnUnmappedSegmentMergedIntoTheOneBeforeItReadsTheMergedOne() throws Exception {
        MappingBudget.setLimit(0);
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).segmentAge(AGE)
                .build();
        HookedIo io = new HookedIo();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, io)) {
            for (int i = 0; i < 40; i++) {
                log.append(OutgoingRecord.of(bytes("k" + (i % 10)), bytes("v" + i)));
            }
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
            assertThat(log.applyCompaction(log.compaction().prepare(config, clock.millis(), true, () -> false), true))
                    .isEqualTo(30);
            Segment[] shrunk = log.segments();
            assertThat(shrunk.length).isGreaterThan(3);
            Segment later = shrunk[shrunk.length - 2]; // the last sealed one: it holds records kept
            List<Long> expected = log.read(later.baseOffset(), 100, 1 << 20).records().stream()
                    .map(KafkoRecord::offset).toList();
            assertThat(expected).isNotEmpty();

            AtomicReference<CompletableFuture<List<KafkoRecord>>> read =
                    readAfterRename(io, log, later, later.baseOffset());
            CompactionPlan merge = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(log.applyCompaction(merge, true)).isZero();
            assertThat(log.segments()).hasSize(2);

            assertThat(read.get().get(30, TimeUnit.SECONDS)).extracting(KafkoRecord::offset).isEqualTo(expected);
        }
    }

    /**
     * Once the compaction renamed a new file into place: evicts the channel the unmapped {@code segment} keeps, starts
     * a read of {@code offset} on a thread of its own, and waits until that read ended or blocks on the swap.
     */
    private static AtomicReference<CompletableFuture<List<KafkoRecord>>> readAfterRename(HookedIo io, PartitionLog log,
            Segment segment, long offset) {
        AtomicReference<CompletableFuture<List<KafkoRecord>>> read = new AtomicReference<>();
        io.afterRename = () -> {
            try {
                evictCachedChannel(segment.file());
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
            CompletableFuture<List<KafkoRecord>> r = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try {
                    r.complete(log.read(offset, 100, 1 << 20).records());
                } catch (Throwable t) {
                    r.completeExceptionally(t);
                }
            });
            reader.start();
            read.set(r);
            // the reader ends (a read of the renamed file), or waits for this swap to end
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!r.isDone() && reader.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
        };
        return read;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
