package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash at every step of each admin call (create, commit, grow, config change, delete), in order: before and after each file force, directory fsync, rename
 * and delete the call makes, the directory is imaged twice, as a kill -9 leaves it (a copy of the files as they
 * are) and as a power loss does ({@link PowerLossDisk}: what was fsynced). Each image must open, and hold each
 * topic as it was before the call or as it is after it (config and partition count whole), with every record and
 * commit acknowledged before the call (under a power loss, on the {@code EVERY_BATCH} topic).
 */
class AdminStepCrashTest {

    @TempDir
    Path tmp;

    private int images;

    private record Image(Path dir, boolean powerLoss) {
    }

    /** About 200 images, 25 s: stress only. */
    @Test
    @Tag("stress")
    void aCrashAtAnyStepOfAnAdminCallLeavesTheStateBeforeOrAfterIt() throws Exception {
        Path live = tmp.resolve("live");
        SteppingDisk stepper = new SteppingDisk(new PowerLossDisk(live));
        TopicConfig a = TopicConfig.builder().partitions(3).segmentBytes(1024).fsync(FsyncPolicy.EVERY_BATCH).build();
        List<Ack> acked = new ArrayList<>();
        Map<Integer, Long> commits = new HashMap<>();
        try (Kafko kafko = BrokerBridge.open(live, KafkoOptions.DEFAULTS, new HookedFileIo(stepper))) {
            crashAtEachStep(stepper, kafko, "create a", () -> kafko.createTopic("a", a), acked, commits);
            send(kafko, "a", 60, acked);
            crashAtEachStep(stepper, kafko, "commit", () -> commit(kafko, commits), acked, commits);
            crashAtEachStep(stepper, kafko, "create b", () -> kafko.createTopic("b", TopicConfig.builder().partitions(4)
                    .compression(Compression.ZSTD).build()), acked, commits);
            send(kafko, "b", 20, new ArrayList<>());
            crashAtEachStep(stepper, kafko, "grow a", () -> kafko.topic("a").orElseThrow().increasePartitions(6), acked,
                    commits);
            send(kafko, "a", 60, acked);
            crashAtEachStep(stepper, kafko, "commit grown", () -> commit(kafko, commits), acked, commits);
            // a changed config: stored whole or not at all; the records after it are written by it (lz4, small segments)
            crashAtEachStep(stepper, kafko, "alter a", () -> kafko.topic("a").orElseThrow().alterConfig(a.toBuilder()
                    .partitions(6).compression(Compression.LZ4).segmentBytes(2048).retention(Duration.ofDays(30))
                    .maxRecordBytes(4096).build()), acked, commits);
            send(kafko, "a", 60, acked);
            crashAtEachStep(stepper, kafko, "delete b", () -> kafko.deleteTopic("b"), acked, commits);
            crashAtEachStep(stepper, kafko, "create b again", () -> kafko.createTopic("b", TopicConfig.builder()
                    .partitions(2).compression(Compression.LZ4).fsync(FsyncPolicy.EVERY_BATCH).build()), acked, commits);
            crashAtEachStep(stepper, kafko, "delete a", () -> kafko.deleteTopic("a"), acked, commits);
            acked.clear();
            commits.clear();
            crashAtEachStep(stepper, kafko, "create a again", () -> kafko.createTopic("a", a), acked, commits);
        }
        System.out.printf("admin step crashes: %d images checked%n", images);
        assertThat(images).isGreaterThan(50);
    }

    private void crashAtEachStep(SteppingDisk stepper, Kafko kafko, String what, Runnable call, List<Ack> acked,
            Map<Integer, Long> commits) throws Exception {
        Map<String, String> before = state(kafko);
        // a commit in flight may be in an image or not: the image must hold at least what was committed before
        Map<Integer, Long> committedBefore = Map.copyOf(commits);
        List<Image> taken = new ArrayList<>();
        Path live = kafko.dataDir();
        stepper.armed = () -> {
            try {
                Path kill = tmp.resolve("img-" + images + "-" + taken.size() + "-kill");
                SteppingDisk.copyLive(live, kill);
                taken.add(new Image(kill, false));
                Path power = tmp.resolve("img-" + images + "-" + taken.size() + "-power");
                stepper.disk.crashInto(power);
                taken.add(new Image(power, true));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };
        try {
            call.run();
        } finally {
            stepper.armed = null;
        }
        Map<String, String> after = state(kafko);
        for (Image image : taken) {
            check(what, image, before, after, acked, committedBefore);
            images++;
            deleteTree(image.dir());
        }
    }

    private static Map<String, String> state(Kafko kafko) {
        Map<String, String> out = new HashMap<>();
        for (String n : List.of("a", "b")) {
            out.put(n, kafko.topic(n).map(t -> AdminChurn.describe(t.config())).orElse("absent"));
        }
        return out;
    }

    private static void check(String what, Image image, Map<String, String> before, Map<String, String> after,
            List<Ack> acked, Map<Integer, Long> commits) {
        String as = what + (image.powerLoss() ? ", power loss at " : ", kill -9 at ") + image.dir().getFileName();
        try (Kafko kafko = Kafko.open(image.dir())) {
            Map<String, String> got = state(kafko);
            for (String n : List.of("a", "b")) {
                assertThat(got.get(n)).as("%s: topic %s", as, n).isIn(before.get(n), after.get(n));
            }
            Topic a = kafko.topic("a").orElse(null);
            if (a == null) {
                return;
            }
            Map<Long, KafkoRecord>[] records = readAll(kafko, a);
            for (Ack ack : acked) {
                KafkoRecord r = records[ack.partition()].get(ack.offset());
                assertThat(r).as("%s: acknowledged %s", as, ack).isNotNull();
                assertThat(new String(r.key(), StandardCharsets.US_ASCII)).as("%s: %s", as, ack).isEqualTo(ack.key());
            }
            Map<Integer, Long> committed = kafko.groupInfo("a", "g").committed();
            for (Map.Entry<Integer, Long> c : commits.entrySet()) {
                assertThat(committed.get(c.getKey())).as("%s: commit of partition %d", as, c.getKey())
                        .isNotNull().isGreaterThanOrEqualTo(c.getValue());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<Long, KafkoRecord>[] readAll(Kafko kafko, Topic t) {
        Map<Long, KafkoRecord>[] out = new Map[t.partitionCount()];
        long remaining = 0;
        for (int p = 0; p < out.length; p++) {
            out[p] = new HashMap<>();
            remaining += t.partition(p).endOffset() - t.partition(p).logStartOffset();
        }
        try (Consumer c = kafko.consumer(t.name())) {
            int idle = 0;
            while (remaining > 0 && idle < 10) {
                List<KafkoRecord> batch = c.poll(Duration.ofMillis(50));
                idle = batch.isEmpty() ? idle + 1 : 0;
                for (KafkoRecord r : batch) {
                    out[r.partition()].put(r.offset(), r);
                    remaining--;
                }
            }
        }
        return out;
    }

    private static void send(Kafko kafko, String topic, int n, List<Ack> acked) {
        Producer p = kafko.producer(topic);
        for (int i = 0; i < n; i++) {
            byte[] key = Workload.key(topic + acked.size(), i);
            byte[] value = Workload.value(key);
            RecordPosition pos = p.send(key, value).join();
            acked.add(new Ack(pos.partition(), pos.offset(), new String(key, StandardCharsets.US_ASCII),
                    Workload.checksum(value)));
        }
    }

    private static void commit(Kafko kafko, Map<Integer, Long> commits) {
        Topic t = kafko.topic("a").orElseThrow();
        Map<Integer, Long> offsets = new HashMap<>();
        for (int p = 0; p < t.partitionCount(); p++) {
            offsets.put(p, t.partition(p).endOffset());
        }
        try (Consumer c = kafko.groupConsumer("a", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.copyOf(
                offsets.keySet())))) {
            c.commit(offsets);
        }
        commits.putAll(offsets);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
