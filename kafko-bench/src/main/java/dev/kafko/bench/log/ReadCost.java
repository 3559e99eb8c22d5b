package dev.kafko.bench.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * What reading bytes that were just written with {@code pwrite} costs, with no log at all: a file of
 * {@code mib} MiB is written with 1 MiB {@code pwrite}s, then read and CRC-checked four ways each
 * round: through a fresh mapping (every page is faulted in), through the same mapping again, with
 * 64 KiB {@code pread}s into a direct buffer, and into a heap buffer. This is why a reader following
 * the writer copies the fresh tail with {@code pread} instead of faulting the mapping in.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.log.ReadCost [rounds] [mib]} (defaults 4
 * and 256), in a directory under {@code java.io.tmpdir}.
 */
public final class ReadCost {

    private static final int CHUNK = 64 << 10;

    private ReadCost() {
    }

    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int mib = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        long size = (long) mib << 20;
        Path dir = Files.createTempDirectory("kafko-read-cost");
        Path file = dir.resolve("data");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ByteBuffer block = ByteBuffer.allocateDirect(1 << 20);
            while (block.hasRemaining()) {
                block.put((byte) 7);
            }
            for (long off = 0; off < size; off += 1 << 20) {
                block.clear();
                ch.write(block, off);
            }
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
                long cold = crc(mapped);
                long t1 = System.nanoTime();
                long warm = crc(mapped.clear());
                long t2 = System.nanoTime();
                long direct = crcOfReads(ch, ByteBuffer.allocateDirect(CHUNK), size);
                long t3 = System.nanoTime();
                long heap = crcOfReads(ch, ByteBuffer.allocate(CHUNK), size);
                long t4 = System.nanoTime();
                if (cold != warm || warm != direct || direct != heap) {
                    throw new IllegalStateException("the four reads disagree");
                }
                System.out.printf(Locale.ROOT, "round %d: fresh mapping %.0f MB/s (%.2f us per 4 KiB page), same"
                        + " mapping again %.0f MB/s, 64 KiB pread direct %.0f MB/s, heap %.0f MB/s%n", r + 1,
                        mib / seconds(t1 - t0), (t1 - t0) / 1e3 / (size / 4096.0), mib / seconds(t2 - t1),
                        mib / seconds(t3 - t2), mib / seconds(t4 - t3));
            }
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    private static long crc(ByteBuffer b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    private static long crcOfReads(FileChannel ch, ByteBuffer buf, long size) throws IOException {
        CRC32C c = new CRC32C();
        for (long off = 0; off < size; off += CHUNK) {
            buf.clear();
            while (buf.hasRemaining() && ch.read(buf, off + buf.position()) > 0) {
                // the rest of the chunk
            }
            buf.flip();
            c.update(buf);
        }
        return c.getValue();
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
