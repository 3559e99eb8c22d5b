package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CorruptLogException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.WrappingFileIo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sealed segment whose frame at an index entry has a damaged header (a clean open no longer reads it: it checks
 * the index at its ends): a consumer stuck at that offset polls again and again, and each read must report the
 * damage after a few headers, not walk every frame from the segment's start (a {@code pread} each while the
 * segment is not mapped).
 */
class SealedIndexDamagedFrameTest {

    private static final TopicConfig CONFIG = TopicConfig.builder().segmentBytes(64 * 1024).indexIntervalBytes(256)
            .build();

    @TempDir
    Path dir;

    @Test
    void aReadOfADamagedIndexedFrameReportsItWithoutScanningTheSegmentFromItsStart() throws IOException {
        try (PartitionLog log = Logs.open(dir, CONFIG)) {
            Logs.appendFrames(log, 3000, 2, 40);
        }
        long base;
        try (Stream<Path> s = Files.list(dir)) {
            base = s.map(p -> p.getFileName().toString()).filter(FileNames::isSegmentFile)
                    .mapToLong(FileNames::baseOffsetOf).sorted().toArray()[1];
        }
        OffsetIndex index = IndexFiles.load(FileIo.SYSTEM, dir, base).index();
        int mid = index.count() / 2;
        long damaged = base + index.relativeOffset(mid);
        Path segment = FileNames.segmentFile(dir, base);
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {0x5a, 0x5a}), index.position(mid) + FrameFormat.MAGIC_OFFSET);
        }
        AtomicInteger reads = new AtomicInteger();
        FileIo counting = new WrappingFileIo((path, options, real) -> new DelegatingFileChannel(real) {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                if (path.equals(segment)) {
                    reads.incrementAndGet();
                }
                return super.read(dst, position);
            }
        });
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, CONFIG, Clock.systemUTC(), counting)) {
            for (int poll = 0; poll < 3; poll++) {
                reads.set(0);
                assertThatThrownBy(() -> log.read(damaged, 1, 1)).isInstanceOf(CorruptLogException.class)
                        .hasMessageContaining("at position " + index.position(mid));
                assertThat(reads.get()).as("positional reads of a poll at offset %d, the frame of index entry %d of"
                        + " %d", damaged, mid, index.count()).isLessThanOrEqualTo(16);
            }
        }
    }
}
