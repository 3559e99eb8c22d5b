package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A timestamp lookup in a sealed segment whose index holds reads the frame header at the entry it starts from
 * once: checking that the entry holds (B96) must not cost a truthful index a second read of the same header (a
 * {@code pread} while the segment is not mapped).
 */
class TimestampLookupReadsTest {

    private static final long T0 = 1_000_000L;
    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(64 * 1024).indexIntervalBytes(256)
            .build();

    @TempDir
    Path dir;

    @Test
    void aTimestampLookupAtATruthfulEntryReadsItsHeaderOnce() throws IOException {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            for (int f = 0; f < 3000; f++) {
                long first = log.endOffset();
                List<OutgoingRecord> batch = new ArrayList<>();
                for (long o = first; o < first + 2; o++) {
                    batch.add(new OutgoingRecord(("k" + o).getBytes(), Logs.value(o, 40), Headers.empty(), T0 + o));
                }
                log.append(batch);
            }
        }
        long base;
        try (Stream<Path> s = Files.list(dir)) {
            base = s.map(p -> p.getFileName().toString()).filter(FileNames::isSegmentFile)
                    .mapToLong(FileNames::baseOffsetOf).sorted().toArray()[1];
        }
        OffsetIndex index = IndexFiles.load(FileIo.SYSTEM, dir, base).index();
        long claimed = base + index.relativeOffset(index.count() / 2);
        Path segment = FileNames.segmentFile(dir, base);
        AtomicInteger reads = new AtomicInteger();
        List<Long> positions = new ArrayList<>();
        FileIo counting = new WrappingFileIo((path, options, real) -> new DelegatingFileChannel(real) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                if (path.equals(segment)) {
                    reads.incrementAndGet();
                    positions.add(position);
                }
                return super.read(dst, position);
            }
        });
        MappingBudget.setLimit(MappingBudget.used()); // the segments stay unmapped: each header read is a pread
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, CONFIG, Clock.systemUTC(), counting)) {
            assertThat(log.offsetForTimestamp(T0 + claimed)).isEqualTo(claimed);
            reads.set(0);
            positions.clear();
            assertThat(log.offsetForTimestamp(T0 + claimed)).isEqualTo(claimed);
            assertThat(reads.get()).as("positional reads of the segment by a timestamp lookup at index entry %d: %s",
                    index.count() / 2, positions).isLessThanOrEqualTo(2);
        } finally {
            MappingBudget.setLimit(-1);
        }
    }
}
