package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A log that seals its segments without an fsync forces them at its next flush or close; a compaction that rewrote
 * such segments (one at a time, or neighbours merged into one) leaves its new files to be forced there in their place,
 * since it did not force them itself ({@link Seals#replaced}).
 */
class CompactedSegmentsForcedUnderUnforcedSealsTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    /** Paths whose channel was forced, in order. */
    private final List<Path> forced = new CopyOnWriteArrayList<>();

    private final WrappingFileIo io = new WrappingFileIo((path, options, real) -> new DelegatingFileChannel(real) {
        @Override
        public void force(boolean metaData) throws IOException {
            super.force(metaData);
            forced.add(path);
        }
    });

    /**
     * The first compaction rewrites each sealed segment on its own; the second merges what the first shrank. Either
     * way, the flush or close that follows forces every sealed segment file the log then has.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rewrite then close", "merge then close", "rewrite then flush", "merge then flush"})
    void theFlushOrCloseAfterACompactionForcesTheFilesItPutInPlace(String scenario) {
        TopicConfig config = TopicConfig.builder().compact().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).segmentAge(AGE)
                .build();
        PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, io, null, false);
        try {
            for (int i = 0; i < 100; i++) {
                log.append(OutgoingRecord.of(bytes("k" + (i % 10)), bytes("v" + i)));
            }
            clock.advance(AGE.plusSeconds(1));
            log.append(OutgoingRecord.of(bytes("tail"), bytes("t")));
            int rolled = log.segments().length;
            assertThat(log.applyCompaction(log.compaction().prepare(config, clock.millis(), false, () -> false), false))
                    .isEqualTo(90);
            if (scenario.startsWith("merge")) {
                assertThat(log.applyCompaction(log.compaction().prepare(config, clock.millis(), false, () -> false),
                        false)).isZero();
                assertThat(log.segments()).as("merged").hasSizeLessThan(rolled);
            }
            Segment[] segs = log.segments();
            forced.clear();
            if (scenario.endsWith("flush")) {
                log.flush();
            } else {
                log.close();
            }
            for (int i = 0; i < segs.length - 1; i++) {
                assertThat(forced).as("sealed segment " + segs[i].baseOffset() + " forced at the " + scenario)
                        .contains(FileNames.segmentFile(dir, segs[i].baseOffset()));
            }
        } finally {
            log.close(); // a second close does nothing
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
