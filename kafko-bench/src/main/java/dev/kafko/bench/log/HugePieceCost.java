package dev.kafko.bench.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Why kafko writes a fast writer's zeros in aligned 2 MiB pieces: one thread fills a file with zeros
 * by {@code pwrite} (in pieces of 256 KiB, as before, or of 2 MiB, each one gathering write of eight
 * 256 KiB buffers, as {@code SegmentFile} does now), then stores 300-byte records one after the other
 * into a shared mapping of it (the size of a single-record frame of a 256-byte value). On Linux 6.16+
 * ext4 the page cache sizes a folio by the write it is allocated for: a 2 MiB piece becomes one huge
 * folio, which the mapping takes with one page fault. Prints, per round and set-up, the time of the
 * zeros, of the stores (nanoseconds per record) and the page faults the stores took (from
 * {@code /proc/self/stat}, so Linux only), for {@code rounds} rounds of {@code mib} MiB (defaults 3
 * and 256), in a directory under {@code java.io.tmpdir}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.log.HugePieceCost [rounds] [mib]}
 */
public final class HugePieceCost {

    private static final int RECORD = 300;
    private static final int SMALL = 256 * 1024;
    private static final int HUGE = 2 << 20;

    private HugePieceCost() {
    }

    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        long size = (args.length > 1 ? Long.parseLong(args[1]) : 256) << 20;
        Path dir = Files.createTempDirectory("kafko-huge-piece");
        ByteBuffer zeros = ByteBuffer.allocateDirect(SMALL);
        byte[] record = new byte[RECORD];
        try {
            for (int round = 1; round <= rounds; round++) {
                for (int piece : new int[] {SMALL, HUGE}) {
                    Path file = dir.resolve("f" + piece);
                    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                            StandardOpenOption.WRITE)) {
                        long t0 = System.nanoTime();
                        for (long pos = 0; pos < size; pos += piece) {
                            writeZeros(ch, zeros, pos, piece);
                        }
                        long t1 = System.nanoTime();
                        MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
                        long faults = minorFaults();
                        long t2 = System.nanoTime();
                        int n = (int) (size / RECORD);
                        for (int i = 0; i < n; i++) {
                            m.put(i * RECORD, record);
                        }
                        long t3 = System.nanoTime();
                        faults = minorFaults() - faults;
                        System.out.printf(Locale.ROOT,
                                "round %d, zeros in %4d KiB pieces: zeros %6.1f ms, stores %6.1f ms = %4.0f ns/record,"
                                        + " %5d faults (%6.1f KiB each), both %5.2f M records/s%n",
                                round, piece / 1024, (t1 - t0) / 1e6, (t3 - t2) / 1e6, (t3 - t2) / (double) n, faults,
                                size / 1024.0 / Math.max(1, faults), n * 1e3 / (t3 - t2 + t1 - t0));
                    }
                    Files.delete(file);
                    // let the deleted file's mapping go before the next set-up
                    System.gc();
                }
            }
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    /** {@code piece} bytes of zeros at {@code pos}: one {@code pwrite}, or one gathering write of several buffers. */
    private static void writeZeros(FileChannel ch, ByteBuffer zeros, long pos, int piece) throws IOException {
        if (piece <= zeros.capacity()) {
            ByteBuffer z = zeros.duplicate().limit(piece);
            while (z.hasRemaining()) {
                ch.write(z, pos + z.position());
            }
            return;
        }
        ByteBuffer[] parts = new ByteBuffer[piece / zeros.capacity()];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = zeros.duplicate();
        }
        ch.position(pos);
        for (long left = piece; left > 0; ) {
            left -= ch.write(parts);
        }
    }

    private static long minorFaults() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        // fields after the command name: state is field 3, minflt field 10
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[7]);
    }
}
