package dev.kafko.reliability;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;

/**
 * Run in a child JVM by {@link KillNineTest}: opens the directory, produces keyed records to
 * {@link Workload#PARTITIONS} partitions with up to 64 sends in flight, printing an {@link Ack}
 * line for each completed future, while a group member polls and commits, printing
 * {@code COMMIT <partition> <offset> .} after each commit returned. Runs until killed.
 * Arguments: data directory, writer name, fsync policy ({@code never} or {@code every-batch}, or
 * {@code never-throwaway}: {@code never} in a directory opened with {@code fsyncMetadata(false)}, where
 * rolled segments are sealed without an fsync).
 */
public final class CrashingProducer {

    static final String GROUP = "audit";

    private CrashingProducer() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String writer = args[1];
        boolean throwaway = args[2].endsWith("-throwaway");
        FsyncPolicy fsync = FsyncPolicy.parse(args[2].replace("-throwaway", ""));
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "US-ASCII");
        Kafko kafko = Kafko.open(dir, KafkoOptions.builder().fsyncMetadata(!throwaway).build());
        if (kafko.topic(Workload.TOPIC).isEmpty()) {
            kafko.createTopic(Workload.TOPIC, TopicConfig.builder().partitions(Workload.PARTITIONS)
                    .segmentBytes(256 * 1024).fsync(fsync).build());
        }
        Thread committer = new Thread(() -> commitLoop(kafko, out), "committer");
        committer.setDaemon(true);
        committer.start();
        out.println("READY");
        Producer p = kafko.producer(Workload.TOPIC);
        Semaphore inFlight = new Semaphore(64);
        for (long seq = 0; ; seq++) {
            byte[] key = Workload.key(writer, seq);
            byte[] value = Workload.value(key);
            String k = new String(key, java.nio.charset.StandardCharsets.US_ASCII);
            long sum = Workload.checksum(value);
            inFlight.acquire();
            p.send(key, value).whenComplete((pos, e) -> {
                inFlight.release();
                if (e == null) {
                    synchronized (out) {
                        out.println(new Ack(pos.partition(), pos.offset(), k, sum).line());
                    }
                }
            });
        }
    }

    private static void commitLoop(Kafko kafko, PrintStream out) {
        try (Consumer c = kafko.groupConsumer(Workload.TOPIC, GROUP)) {
            while (true) {
                List<KafkoRecord> records = c.poll(Duration.ofMillis(20));
                if (records.isEmpty()) {
                    continue;
                }
                java.util.Map<Integer, Long> positions = new java.util.TreeMap<>();
                for (int partition : c.assignment()) {
                    positions.put(partition, c.position(partition));
                }
                c.commit();
                synchronized (out) {
                    positions.forEach((partition, offset) -> out.println("COMMIT " + partition + " " + offset + " ."));
                }
            }
        }
    }
}
