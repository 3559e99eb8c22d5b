package dev.kafko.bench.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * What sustained appends cost the machine, with no log at all: plain {@code pwrite}s of
 * {@code chunk} bytes (default 270,000, the size of a 1,024-record frame of 256-byte values) into
 * new files, one file per second for {@code seconds} seconds (default 12), each fsynced at the end of
 * its second, and kept until the end so that the page cache grows as a log's does. Prints the write
 * rate of each second with {@code MemFree} and {@code Cached} from {@code /proc/meminfo}, then
 * deletes the files.
 *
 * <p>On the 2-vCPU KVM machines this project is measured on, the rate falls from about 5 GB/s to
 * about 0.5 GB/s once the page cache has grown by some 10 GB: the pages it takes next are memory the
 * guest has not used yet (or gave back), and each costs the host a fault. Every log that writes
 * through the page cache meets that ceiling, so a benchmark's later iterations measure it.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.log.PageCacheGrowth [seconds] [chunk]}
 */
public final class PageCacheGrowth {

    private PageCacheGrowth() {
    }

    public static void main(String[] args) throws IOException {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 12;
        int chunk = args.length > 1 ? Integer.parseInt(args[1]) : 270_000;
        ByteBuffer buffer = ByteBuffer.allocateDirect(chunk);
        for (int i = 0; i < chunk; i++) {
            buffer.put(i, (byte) i);
        }
        Path dir = BenchFiles.tempDir("kafko-page-cache");
        try {
            for (int second = 0; second < seconds; second++) {
                Path file = dir.resolve("f" + second);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    long start = System.nanoTime();
                    long written = 0;
                    while (System.nanoTime() - start < 1_000_000_000L) {
                        buffer.clear();
                        while (buffer.hasRemaining()) {
                            written += ch.write(buffer, written);
                        }
                    }
                    double rate = written / ((System.nanoTime() - start) / 1e9) / 1e9;
                    ch.force(false);
                    System.out.printf(Locale.ROOT, "second %2d: %5.2f GB/s  %s%n", second, rate, memory());
                }
            }
        } finally {
            BenchFiles.deleteTree(dir);
        }
    }

    private static String memory() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (line.startsWith("MemFree:") || line.startsWith("Cached:")) {
                String[] f = line.trim().split("\\s+");
                sb.append(String.format(Locale.ROOT, "%s %,d MiB  ", f[0], Long.parseLong(f[1]) / 1024));
            }
        }
        return sb.toString().trim();
    }
}
