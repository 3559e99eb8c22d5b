package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import dev.kafko.Compression;
import dev.kafko.CorruptLogException;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CompressionTest {

    private static final long SEED = 20261129L;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Compression.class)
    void everyCodecRoundTripsNullsEmptiesHeadersAndTimestamps(Compression compression) {
        System.out.println("seed " + SEED);
        Random rnd = new Random(SEED);
        List<OutgoingRecord> batch = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            byte[] key = i % 3 == 0 ? null : i % 3 == 1 ? new byte[0] : bytes(rnd, 1 + rnd.nextInt(20));
            byte[] value = i % 5 == 0 ? null : bytes(rnd, rnd.nextInt(400));
            Headers h = i % 2 == 0 ? Headers.empty() : Headers.of("h" + i, bytes(rnd, 3)).with("n", null);
            long ts = i % 4 == 0 ? OutgoingRecord.NO_TIMESTAMP : 1_000L + rnd.nextInt(1_000_000);
            batch.add(new OutgoingRecord(key, value, h, ts));
        }
        TopicConfig config = TopicConfig.builder().compression(compression).build();
        MutableClock clock = new MutableClock(5_000_000L);
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            log.append(batch.subList(0, 150));
            log.append(batch.get(150));
            log.append(batch.subList(151, 300));
        }
        try (PartitionLog log = Logs.open(dir, config, clock)) {
            List<KafkoRecord> read = Logs.readAll(log, 0, 77, 1 << 20);
            assertThat(read).hasSize(300);
            for (int i = 0; i < 300; i++) {
                OutgoingRecord w = batch.get(i);
                KafkoRecord r = read.get(i);
                assertThat(r.offset()).isEqualTo(i);
                assertThat(r.key()).isEqualTo(w.key());
                assertThat(r.value()).isEqualTo(w.value());
                assertThat(r.headers()).isEqualTo(w.headers());
                assertThat(r.timestamp()).isEqualTo(w.timestamp() == OutgoingRecord.NO_TIMESTAMP ? 5_000_000L
                        : w.timestamp());
            }
            assertThat(log.read(151, 3, 1).records()).extracting(KafkoRecord::offset).containsExactly(151L, 152L, 153L);
        }
    }

    @Test
    void compressedFramesAreSmallerOnCompressibleValues() {
        long[] sizes = new long[3];
        for (Compression c : Compression.values()) {
            Path d = dir.resolve(c.name());
            try (PartitionLog log = Logs.open(d, TopicConfig.builder().compression(c).build())) {
                Logs.appendFrames(log, 4, 256, 256);
                sizes[c.ordinal()] = log.sizeBytes();
            }
        }
        assertThat(sizes[Compression.LZ4.ordinal()]).isLessThan(sizes[0] / 2);
        assertThat(sizes[Compression.ZSTD.ordinal()]).isLessThan(sizes[0] / 2);
    }

    @Test
    void lz4BlockLyingAboutItsSizeIsCorrupt() {
        byte[] plain = new byte[10_000];
        byte[] block = LZ4Factory.fastestInstance().fastCompressor().compress(plain);
        Codec lz4 = Codec.of(Compression.LZ4);
        assertThatThrownBy(() -> lz4.decompress(block, 0, block.length, 100)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lz4.decompress(block, 0, block.length, 20_000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lz4.decompress(block, 0, block.length, Integer.MAX_VALUE - 100))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot inflate");
        assertThat(lz4.decompress(block, 0, block.length, 10_000)).isEqualTo(plain);
    }

    @Test
    void zstdBombWithoutDeclaredSizeFailsWithBoundedMemory() {
        byte[] bomb = zstdWithoutContentSize(new byte[200 << 20]);
        assertThat(Zstd.getFrameContentSize(bomb)).isNotEqualTo(200L << 20);
        Codec zstd = Codec.of(Compression.ZSTD);
        long before = allocatedBytes();
        assertThatThrownBy(() -> zstd.decompress(bomb, 0, bomb.length, 1000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> zstd.decompress(bomb, 0, bomb.length, 4 << 20))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(allocatedBytes() - before).isLessThan(16L << 20);
    }

    @Test
    void truncatedZstdStreamIsCorrupt() {
        byte[] data = new byte[50_000];
        new Random(SEED).nextBytes(data);
        byte[] full = Zstd.compress(data);
        Codec zstd = Codec.of(Compression.ZSTD);
        assertThatThrownBy(() -> zstd.decompress(full, 0, full.length / 2, data.length))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(zstd.decompress(full, 0, full.length, data.length)).isEqualTo(data);
    }

    @Test
    void bombInsideAValidFrameIsReadAsCorruptLogException() throws Exception {
        TopicConfig config = TopicConfig.builder().compression(Compression.ZSTD).build();
        try (PartitionLog log = Logs.open(dir, config)) {
            log.append(Logs.record(0, 10));
        }
        // replace the only frame by one whose zstd block inflates far past its stated length, CRC intact
        byte[] bomb = zstdWithoutContentSize(new byte[64 << 20]);
        writeFrame(FileNames.segmentFile(dir, 0), Compression.ZSTD, bomb, 500);
        try (PartitionLog log = Logs.open(dir, config)) {
            long before = allocatedBytes();
            assertThatThrownBy(() -> log.read(0, 10, 1000)).isInstanceOf(CorruptLogException.class)
                    .hasMessageContaining(FileNames.offsetName(0)).hasMessageContaining("position 16");
            assertThat(allocatedBytes() - before).isLessThan(16L << 20);
        }
    }

    /** Overwrites the first frame of a segment with a hand-made one of one record, with a valid CRC. */
    static void writeFrame(Path segment, Compression codec, byte[] payload, int statedLength) throws Exception {
        byte[] f = new byte[FrameFormat.HEADER_SIZE + payload.length];
        FrameFormat.putInt(f, FrameFormat.LENGTH_OFFSET, f.length);
        FrameFormat.putShort(f, FrameFormat.MAGIC_OFFSET, FrameFormat.FRAME_MAGIC);
        f[FrameFormat.VERSION_OFFSET] = FrameFormat.FRAME_VERSION;
        f[FrameFormat.ATTRIBUTES_OFFSET] = (byte) codec.id();
        FrameFormat.putLong(f, FrameFormat.BASE_OFFSET_OFFSET, 0);
        FrameFormat.putInt(f, FrameFormat.RECORD_COUNT_OFFSET, 1);
        FrameFormat.putInt(f, FrameFormat.RECORDS_LENGTH_OFFSET, statedLength);
        System.arraycopy(payload, 0, f, FrameFormat.HEADER_SIZE, payload.length);
        FrameFormat.putInt(f, FrameFormat.CRC_OFFSET, FrameFormat.frameCrc(new CRC32C(), f, 0, f.length));
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            ch.truncate(FrameFormat.SEGMENT_HEADER_SIZE);
            ch.write(ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN), FrameFormat.SEGMENT_HEADER_SIZE);
        }
    }

    private static byte[] zstdWithoutContentSize(byte[] plain) {
        try (ZstdCompressCtx ctx = new ZstdCompressCtx().setLevel(1).setContentSize(false)) {
            return ctx.compress(plain);
        }
    }

    private static byte[] bytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
