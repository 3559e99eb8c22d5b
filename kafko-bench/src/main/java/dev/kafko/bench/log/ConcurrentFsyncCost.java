package dev.kafko.bench.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;

/**
 * Whether {@code fdatasync}s of one file overlap on this machine's disk, with no log at all: each of 1, 2 and 4
 * threads writes 4 KiB into its own region of one pre-zeroed, fsynced file and calls {@code force(false)}, in a loop,
 * for {@code seconds} each. Prints the fsyncs completed per second in all and each call's latency (write and fsync)
 * at the median and the 99th percentile.
 *
 * <p>A partition under {@code EVERY_BATCH} issues one fsync at a time: a send that arrives while one runs waits for
 * it and then for the next (group commit). Overlapping fsyncs would start a send's own at once, but pays off only
 * where two fsyncs at once take about as long as one; this measures that.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.log.ConcurrentFsyncCost [seconds] [rounds]}
 */
public final class ConcurrentFsyncCost {

    private static final int PAGE = 4096;
    private static final long REGION = 64L << 20;
    private static final int[] THREADS = {1, 2, 4};

    private ConcurrentFsyncCost() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        Path dir = BenchFiles.tempDir("kafko-concurrent-fsync");
        try {
            for (int round = 0; round < rounds; round++) {
                for (int threads : THREADS) {
                    run(dir.resolve("fsync-" + round + "-" + threads), threads, seconds);
                }
            }
        } finally {
            BenchFiles.deleteTree(dir);
        }
    }

    private static void run(Path file, int threads, int seconds) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
            for (long at = 0; at < threads * REGION; at += zeros.capacity()) {
                zeros.clear();
                channel.write(zeros, at);
            }
            channel.force(true);
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long[][] latencies = new long[threads][];
            Thread[] writers = new Thread[threads];
            Throwable[] failure = new Throwable[1];
            for (int t = 0; t < threads; t++) {
                int id = t;
                writers[t] = new Thread(() -> {
                    try {
                        latencies[id] = writeAndSync(channel, id * REGION, end);
                    } catch (IOException | RuntimeException e) {
                        failure[0] = e;
                    }
                }, "fsync-" + t);
                writers[t].start();
            }
            for (Thread w : writers) {
                w.join();
            }
            if (failure[0] != null) {
                throw new IllegalStateException(failure[0]);
            }
            long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
            System.out.printf(Locale.ROOT, "%d thread(s): %,6.0f fsyncs/s in all; each p50 %,5d us, p99 %,6d us%n",
                    threads, all.length / (double) seconds, all[all.length / 2] / 1000,
                    all[(int) (all.length * 0.99)] / 1000);
        }
    }

    private static long[] writeAndSync(FileChannel channel, long from, long end) throws IOException {
        ByteBuffer page = ByteBuffer.allocate(PAGE);
        long[] latencies = new long[1024];
        int n = 0;
        for (long at = from; System.nanoTime() < end && at < from + REGION; at += PAGE) {
            long t0 = System.nanoTime();
            page.clear();
            channel.write(page, at);
            channel.force(false);
            if (n == latencies.length) {
                latencies = Arrays.copyOf(latencies, n * 2);
            }
            latencies[n++] = System.nanoTime() - t0;
        }
        return Arrays.copyOf(latencies, n);
    }
}
