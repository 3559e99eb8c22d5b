package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.CorruptLogException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.LogBridge;
import dev.kafko.internal.log.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decompression bombs and broken compressed data: a declared size that lies (up or down), a zstd
 * frame that does not state its size, a stream cut short. Each must end in the codec's typed
 * error (which readers report as {@link CorruptLogException}) with the heap this thread allocated
 * bounded by the stated size, measured with {@code ThreadMXBean#getThreadAllocatedBytes}.
 */
class DecompressionBombTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path tmp;

    @Test
    void lz4BlockClaimingFarMoreThanItCanHoldFailsBeforeAllocating() {
        byte[] block = lz4(new byte[4096]);
        long used = allocatedBy(() -> assertThatThrownBy(() -> LogBridge.decompress(Compression.LZ4, block, 256 * MIB))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot inflate"));
        report("lz4, 4 KiB of zeros stated as 256 MiB", block.length, used);
        assertThat(used).isLessThan(MIB);
    }

    @Test
    void lz4BlockClaimingLessOrMoreThanItHoldsFailsTyped() {
        byte[] block = lz4(new byte[64 * 1024]);
        for (int stated : new int[] {1024, 64 * 1024 - 1, 64 * 1024 + 1, 2 * MIB}) {
            long used = allocatedBy(() -> assertThatThrownBy(() -> LogBridge.decompress(Compression.LZ4, block, stated))
                    .isInstanceOf(IllegalArgumentException.class));
            report("lz4, 64 KiB stated as " + stated, block.length, used);
            assertThat(used).isLessThan(stated + MIB);
        }
    }

    @Test
    void truncatedLz4BlockFailsTyped() {
        byte[] block = lz4(pattern(100_000));
        for (int cut : new int[] {0, 1, block.length / 2, block.length - 1}) {
            assertThatThrownBy(() -> LogBridge.decompress(Compression.LZ4, Arrays.copyOf(block, cut), 100_000))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void zstdFrameClaimingMoreThanItHoldsFailsTypedWithinTheCap() {
        byte[] frame = Zstd.compress(pattern(10_000));
        long used = allocatedBy(() -> assertThatThrownBy(() -> LogBridge.decompress(Compression.ZSTD, frame, 256 * MIB))
                .isInstanceOf(IllegalArgumentException.class));
        report("zstd, 10 kB stated as 256 MiB", frame.length, used);
        assertThat(used).isLessThan(2 * MIB);
    }

    /** Found as bug B2 (docs/RELIABILITY.md): zstd-jni throws ZstdException where the codec expected an error code. */
    @Test
    void zstdBombInflatingBeyondTheStatedSizeFailsTypedWithinTheCap() {
        byte[] bomb = Zstd.compress(new byte[64 * MIB]);
        long used = allocatedBy(() -> assertThatThrownBy(() -> LogBridge.decompress(Compression.ZSTD, bomb, MIB))
                .isInstanceOf(IllegalArgumentException.class));
        report("zstd, 64 MiB of zeros stated as 1 MiB", bomb.length, used);
        assertThat(used).isLessThan(3 * MIB);
    }

    /** Found as bug B2: a frame without a content size, larger than the first guess, never got its bigger buffer. */
    @Test
    void zstdFrameWithoutContentSizeInflatesWithinTheCap() {
        byte[] data = new byte[8 * MIB];
        byte[] frame;
        try (ZstdCompressCtx ctx = new ZstdCompressCtx().setContentSize(false)) {
            frame = ctx.compress(data);
        }
        assertThat(Zstd.getFrameContentSize(frame)).as("the frame states no size").isLessThan(0);
        long[] used = new long[1];
        used[0] = allocatedBy(() -> assertThat(LogBridge.decompress(Compression.ZSTD, frame, data.length))
                .isEqualTo(data));
        report("zstd without content size, 8 MiB", frame.length, used[0]);
        assertThat(used[0]).isLessThan(2L * data.length);
    }

    /** Found as bug B2: a cut zstd frame escaped as ZstdException. */
    @Test
    void truncatedZstdFrameFailsTyped() {
        byte[] frame = Zstd.compress(pattern(100_000));
        for (int cut : new int[] {0, 1, frame.length / 2, frame.length - 1}) {
            assertThatThrownBy(() -> LogBridge.decompress(Compression.ZSTD, Arrays.copyOf(frame, cut), 100_000))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    /** A frame on disk whose header lies about its records size is a CorruptLogException at read. */
    @Test
    void frameOnDiskWithALyingRecordsLengthIsReportedAsCorrupt() throws IOException {
        Path dir = tmp.resolve("lz4");
        TopicConfig config = TopicConfig.builder().compression(Compression.LZ4).build();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, Clock.systemUTC(), FileIo.SYSTEM)) {
            log.append(records(100, 1000));
        }
        Path seg = dir.resolve("00000000000000000000.log");
        byte[] bytes = Files.readAllBytes(seg);
        int at = LogBridge.SEGMENT_HEADER_SIZE;
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int length = b.getInt(at);
        b.putInt(at + LogBridge.RECORDS_LENGTH_OFFSET, 200 * MIB);
        byte[] frame = Arrays.copyOfRange(bytes, at, at + length);
        LogBridge.fixCrc(frame);
        System.arraycopy(frame, 0, bytes, at, length);
        Files.write(seg, bytes);
        Files.deleteIfExists(dir.resolve(".clean"));
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, Clock.systemUTC(), FileIo.SYSTEM)) {
            long used = allocatedBy(() -> assertThatThrownBy(() -> log.read(0, 100, MIB))
                    .isInstanceOf(CorruptLogException.class).hasMessageContaining(seg.toString()));
            report("lz4 frame on disk stating 200 MiB", length, used);
            assertThat(used).isLessThan(4 * MIB);
        }
    }

    /** Bug B2 seen from the public API: a compressible zstd batch of more than 64 KiB could not be read back. */
    @Test
    void compressibleZstdBatchLargerThan64KiBReadsBack() {
        try (Kafko kafko = Kafko.open(tmp.resolve("zstd"))) {
            kafko.createTopic("z", TopicConfig.builder().compression(Compression.ZSTD).build());
            List<OutgoingRecord> batch = records(200, 1000);
            kafko.producer("z").sendBatch(batch).join();
            try (Consumer c = kafko.consumer("z")) {
                List<KafkoRecord> got = new ArrayList<>();
                for (int i = 0; i < 20 && got.size() < batch.size(); i++) {
                    got.addAll(c.poll(Duration.ofMillis(100)));
                }
                assertThat(got).hasSize(batch.size());
            }
        }
    }

    private static List<OutgoingRecord> records(int n, int size) {
        List<OutgoingRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(OutgoingRecord.of(null, new byte[size]));
        }
        return out;
    }

    private static byte[] lz4(byte[] data) {
        return LZ4Factory.fastestInstance().fastCompressor().compress(data);
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        new java.util.SplittableRandom(n).nextBytes(b);
        for (int i = 0; i < n; i += 2) {
            b[i] = 0;
        }
        return b;
    }

    private static long allocatedBy(Runnable r) {
        long before = Workload.allocatedBytes();
        r.run();
        return Workload.allocatedBytes() - before;
    }

    private static void report(String what, int compressed, long allocated) {
        System.out.printf("bomb %-45s compressed=%d allocated=%d%n", what, compressed, allocated);
    }
}
