package dev.kafko.bench.log;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * How fast {@code CRC32C} runs over bytes that stay in the CPU's cache against bytes streamed from
 * memory, with no log at all: one frame-sized buffer ({@code frameKib} KiB, 270 by default, about a
 * frame of 1,024 records of 256 bytes) checked over and over, against {@code mib} MiB (256 by default)
 * checked one frame-sized piece after another. The second is the rate at which one core reads memory,
 * and so the ceiling of a CRC-checked read of a whole log: each frame's check is the first pass over its
 * bytes.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.log.ChecksumBandwidth [rounds] [mib] [frameKib]}
 * (defaults 5, 256, 270); prints GB/s per round for each.
 */
public final class ChecksumBandwidth {

    private ChecksumBandwidth() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int mib = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        int frame = (args.length > 2 ? Integer.parseInt(args[2]) : 270) << 10;
        ByteBuffer big = ByteBuffer.allocateDirect(mib << 20);
        byte[] random = new byte[1 << 20];
        new SplittableRandom(42).nextBytes(random);
        while (big.hasRemaining()) {
            big.put(random, 0, Math.min(random.length, big.remaining()));
        }
        ByteBuffer small = ByteBuffer.allocateDirect(frame);
        small.put(random, 0, frame).flip();
        CRC32C crc = new CRC32C();
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            long bytes = 0;
            long t = System.nanoTime();
            while (bytes < (long) big.capacity() * 4) {
                crc.reset();
                crc.update(small.duplicate());
                sink += crc.getValue();
                bytes += frame;
            }
            double cached = bytes / ((System.nanoTime() - t) / 1e9) / 1e9;
            bytes = 0;
            t = System.nanoTime();
            for (int pass = 0; pass < 4; pass++) {
                for (int at = 0; at + frame <= big.capacity(); at += frame) {
                    crc.reset();
                    crc.update(big.duplicate().position(at).limit(at + frame));
                    sink += crc.getValue();
                    bytes += frame;
                }
            }
            double streamed = bytes / ((System.nanoTime() - t) / 1e9) / 1e9;
            System.out.printf(Locale.ROOT, "round %d: one %d KiB buffer in cache %.1f GB/s, %d MiB streamed %.1f GB/s%n",
                    r + 1, frame >> 10, cached, mib, streamed);
        }
        if (sink == 42) {
            System.out.println();
        }
    }
}
