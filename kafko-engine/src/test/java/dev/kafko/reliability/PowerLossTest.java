package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Simulated power loss under {@link FsyncPolicy#EVERY_BATCH}: every file goes through a
 * {@link PowerLossDisk}, and at seeded moments the disk as it would be after losing every write
 * that was not fsynced is written into a fresh directory, reopened and checked: every record whose
 * send completed before that moment is there, and recovery does not throw.
 */
class PowerLossTest {

    private static final long SEED = Workload.seed("kafko.powerloss.seed", 0x5EED_0002L);
    private static final String GROUP = "billing";

    @TempDir
    Path tmp;

    @Test
    void everyFsyncAcknowledgedRecordSurvivesPowerLoss() throws Exception {
        run(8, SEED, false);
    }

    /** Also asks that commits acknowledged before the power loss survive it (docs/RELIABILITY.md, bug B1, fixed). */
    @Test
    void everyAcknowledgedCommitSurvivesPowerLoss() throws Exception {
        run(8, SEED, true);
    }

    /** The model itself: without fsync on the append path, a power loss drops acknowledged records. */
    @Test
    void powerLossDropsRecordsThatWereNeverFsynced() throws Exception {
        Path live = tmp.resolve("never");
        PowerLossDisk disk = new PowerLossDisk(live);
        try (Kafko kafko = BrokerBridge.open(live, KafkoOptions.DEFAULTS, new HookedFileIo(disk))) {
            kafko.createTopic(Workload.TOPIC, TopicConfig.builder().partitions(1).fsync(FsyncPolicy.NEVER).build());
            Producer p = kafko.producer(Workload.TOPIC);
            for (int i = 0; i < 100; i++) {
                byte[] key = Workload.key("n", i);
                p.send(key, Workload.value(key)).join();
            }
            disk.crashInto(tmp.resolve("never-crashed"));
            LogVerifier.Figures f = LogVerifier.verify(tmp.resolve("never-crashed"), List.of(), Map.of(), null);
            assertThat(f.records()).as("records on the disk after the power loss").isZero();
            assertThat(kafko.topic(Workload.TOPIC).orElseThrow().partition(0).endOffset()).isEqualTo(100);
        }
    }

    /**
     * {@code Topic.alterConfig} to a policy that fsyncs forces what the partition holds before it returns: the records
     * sent under {@code NEVER} survive a power loss right after the call, and so does each send acknowledged after it.
     */
    @Test
    void aSwitchToEveryBatchMakesWhatWasWrittenBeforeItSurvivePowerLoss() throws Exception {
        Path live = tmp.resolve("switched");
        PowerLossDisk disk = new PowerLossDisk(live);
        try (Kafko kafko = BrokerBridge.open(live, KafkoOptions.DEFAULTS, new HookedFileIo(disk))) {
            TopicConfig never = TopicConfig.builder().partitions(1).fsync(FsyncPolicy.NEVER).build();
            Topic topic = kafko.createTopic(Workload.TOPIC, never);
            Producer p = kafko.producer(Workload.TOPIC);
            for (int i = 0; i < 100; i++) {
                byte[] key = Workload.key("n", i);
                p.send(key, Workload.value(key)).join();
            }
            topic.alterConfig(never.toBuilder().fsync(FsyncPolicy.EVERY_BATCH).build());
            disk.crashInto(tmp.resolve("switched-crashed"));
            assertThat(LogVerifier.verify(tmp.resolve("switched-crashed"), List.of(), Map.of(), null).records())
                    .as("records written under NEVER, on the disk after the switch and a power loss").isEqualTo(100);
            for (int i = 0; i < 10; i++) {
                byte[] key = Workload.key("e", i);
                p.send(key, Workload.value(key)).join();
            }
            disk.crashInto(tmp.resolve("switched-crashed-again"));
            assertThat(LogVerifier.verify(tmp.resolve("switched-crashed-again"), List.of(), Map.of(), null).records())
                    .isEqualTo(110);
        }
    }

    @Test
    @Tag("stress")
    void fiftyPowerLossesKeepEveryFsyncAcknowledgedRecord() throws Exception {
        run(50, SEED + 1, false);
    }

    private void run(int crashes, long seed, boolean checkCommits) throws Exception {
        Path live = tmp.resolve("live");
        PowerLossDisk disk = new PowerLossDisk(live);
        SplittableRandom random = new SplittableRandom(seed);
        ConcurrentLinkedQueue<Ack> acked = new ConcurrentLinkedQueue<>();
        Map<Integer, Long> commits = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        long records = 0;
        long started = System.nanoTime();
        try (Kafko kafko = BrokerBridge.open(live, KafkoOptions.DEFAULTS, new HookedFileIo(disk))) {
            kafko.createTopic(Workload.TOPIC, TopicConfig.builder().partitions(Workload.PARTITIONS)
                    .segmentBytes(64 * 1024).fsync(FsyncPolicy.EVERY_BATCH).build());
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                String writer = "p" + w;
                threads.add(Workload.start("power-loss-producer-" + w,
                        () -> produce(kafko.producer(Workload.TOPIC), writer, acked, stop)));
            }
            threads.add(Workload.start("power-loss-committer", () -> commit(kafko, commits, stop)));
            try {
                for (int c = 0; c < crashes; c++) {
                    Thread.sleep(20 + random.nextInt(250));
                    // what was acknowledged before the crash instant must be on the disk at that instant
                    List<Ack> before = List.copyOf(acked);
                    Map<Integer, Long> commitsBefore = Map.copyOf(commits);
                    Path crashed = tmp.resolve("crash-" + c);
                    disk.crashInto(crashed);
                    LogVerifier.Figures f = LogVerifier.verify(crashed, before, checkCommits ? commitsBefore : Map.of(),
                            checkCommits ? GROUP : null);
                    records += f.records();
                    System.out.printf("power loss seed=%d crash=%d acked=%d on-disk=%d committed=%s acked-commits=%s%n",
                            seed, c, before.size(), f.records(), f.committed(), commitsBefore);
                }
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(30_000);
                }
            }
        }
        System.out.printf("power loss: %d crashes, %d acknowledged records, %d records checked after recovery, %s,"
                + " %.1f s%n", crashes, acked.size(), records, disk.figures(), (System.nanoTime() - started) / 1e9);
        assertThat(acked).isNotEmpty();
    }

    private static void produce(Producer p, String writer, ConcurrentLinkedQueue<Ack> acked, AtomicBoolean stop) {
        Semaphore inFlight = new Semaphore(32);
        for (long seq = 0; !stop.get(); seq++) {
            byte[] key = Workload.key(writer, seq);
            byte[] value = Workload.value(key);
            String k = new String(key, StandardCharsets.US_ASCII);
            inFlight.acquireUninterruptibly();
            p.send(key, value).whenComplete((pos, e) -> {
                inFlight.release();
                if (e == null) {
                    acked.add(new Ack(pos.partition(), pos.offset(), k, Workload.checksum(value)));
                }
            });
        }
        inFlight.acquireUninterruptibly(32);
    }

    private static void commit(Kafko kafko, Map<Integer, Long> commits, AtomicBoolean stop) {
        try (Consumer c = kafko.groupConsumer(Workload.TOPIC, GROUP)) {
            while (!stop.get()) {
                List<KafkoRecord> got = c.poll(Duration.ofMillis(20));
                if (!got.isEmpty()) {
                    Map<Integer, Long> positions = new java.util.TreeMap<>();
                    for (int partition : c.assignment()) {
                        positions.put(partition, c.position(partition));
                    }
                    c.commit();
                    positions.forEach((partition, offset) -> commits.merge(partition, offset, Math::max));
                }
            }
        }
    }
}
