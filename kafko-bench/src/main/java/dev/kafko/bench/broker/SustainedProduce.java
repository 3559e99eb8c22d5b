package dev.kafko.bench.broker;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * Producing for longer than the page cache can absorb, against what the disk itself sustains. First
 * the disk: {@code pwrite}s of 1 MiB into a new file for {@code seconds}, then one
 * {@code fdatasync}, the bytes divided by the whole time. Then each way of producing 256-byte values
 * into one partition of a fresh log (1 GiB segments, fsync {@code never}) for {@code seconds}: one
 * thread awaiting each send, one thread pipelining, four threads pipelining, {@code sendBatch} of
 * 1,024; each followed by {@code close()} (which forces everything), timed with it. Between runs,
 * {@code sync} lets the previous run's dirty pages reach the disk so that each starts alike.
 *
 * <p>A sustained run cannot go faster than the disk: the kernel holds writers back once dirty pages
 * pass its limit. The bytes column is the log's size on disk per second of the whole run.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.broker.SustainedProduce [seconds]} (default 10).
 */
public final class SustainedProduce {

    private static final int VALUE_BYTES = 256;

    private SustainedProduce() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        sync();
        double disk = disk(seconds);
        System.out.printf(Locale.ROOT, "%-26s %7.0f MB/s  (pwrite 1 MiB for %d s, then fdatasync)%n", "disk", disk / 1e6,
                seconds);
        for (String mode : new String[] {"awaited", "pipelined", "pipelined x4", "sendBatch 1024"}) {
            sync();
            run(mode, seconds, disk);
        }
    }

    private static double disk(int seconds) throws IOException {
        Path dir = BenchDirs.create();
        try (FileChannel ch = FileChannel.open(dir.resolve("disk"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
            long start = System.nanoTime();
            long end = start + seconds * 1_000_000_000L;
            long written = 0;
            while (System.nanoTime() < end) {
                b.clear();
                while (b.hasRemaining()) {
                    written += ch.write(b, written);
                }
            }
            ch.force(false);
            return written / ((System.nanoTime() - start) / 1e9);
        } finally {
            BenchDirs.delete(dir);
        }
    }

    private static void run(String mode, int seconds, double disk) throws Exception {
        Path dir = BenchDirs.create();
        LongAdder records = new LongAdder();
        long start;
        long elapsed;
        try {
            try (Kafko kafko = Kafko.open(dir)) {
                kafko.createTopic("t", TopicConfig.builder().segmentBytes(1L << 30).build());
                Producer producer = kafko.producer("t");
                long end = System.nanoTime() + seconds * 1_000_000_000L;
                int threads = mode.endsWith("x4") ? 4 : 1;
                List<Thread> senders = new ArrayList<>();
                start = System.nanoTime();
                for (int t = 0; t < threads; t++) {
                    Thread s = new Thread(() -> produce(mode, producer, end, records), "sender-" + t);
                    senders.add(s);
                    s.start();
                }
                for (Thread s : senders) {
                    s.join();
                }
            }
            elapsed = System.nanoTime() - start;
            long bytes = logBytes(dir);
            double rate = bytes / (elapsed / 1e9);
            System.out.printf(Locale.ROOT, "%-26s %7.2f M records/s  %5.0f MB/s  %4.2f of the disk%n", mode,
                    records.sum() / (elapsed / 1e9) / 1e6, rate / 1e6, rate / disk);
        } finally {
            BenchDirs.delete(dir);
        }
    }

    private static void produce(String mode, Producer producer, long end, LongAdder records) {
        byte[] value = new byte[VALUE_BYTES];
        List<OutgoingRecord> batch = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            batch.add(OutgoingRecord.of(null, value));
        }
        while (System.nanoTime() < end) {
            switch (mode) {
                case "awaited" -> {
                    for (int i = 0; i < 1024; i++) {
                        producer.send(null, value).join();
                    }
                }
                case "sendBatch 1024" -> producer.sendBatch(batch).join();
                default -> {
                    for (int i = 0; i < 1024; i++) {
                        producer.send(null, value);
                    }
                }
            }
            records.add(1024);
        }
    }

    private static long logBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".log")).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    /** Writes every dirty page of the machine back, so that the next run starts with none. */
    private static void sync() throws IOException, InterruptedException {
        new ProcessBuilder("sync").inheritIO().start().waitFor();
    }
}
