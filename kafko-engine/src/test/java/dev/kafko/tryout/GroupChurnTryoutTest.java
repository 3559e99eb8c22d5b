package dev.kafko.tryout;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A projector group whose members come and go (each commits after every poll and closes, handing its partitions over)
 * while producers send single records and batches and an operator switches the codec and grows the topic twice: the
 * group reads every acknowledged record (at least once), and ends with no lag.
 */
class GroupChurnTryoutTest {

    private static final int TARGET = 20_000;

    @TempDir
    Path dir;

    @Test
    void aChurningGroupReadsEveryAcknowledgedRecordWhileTheTopicGrowsAndChangesCodec() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("inventory", TopicConfig.builder().partitions(2).segmentBytes(16 * 1024).build());
            Producer p = k.producer("inventory");
            Set<String> acked = ConcurrentHashMap.newKeySet();
            Set<String> seen = ConcurrentHashMap.newKeySet();
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Future<?>> tasks = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                tasks.add(pool.submit(() -> {
                    for (int n = 0; !stop.get(); n++) {
                        String v = writer + "-" + n;
                        if (n % 10 == 0) {
                            List<OutgoingRecord> batch = new ArrayList<>();
                            for (int j = 0; j < 5; j++) {
                                batch.add(OutgoingRecord.of(("sku-" + (n + j) % 37).getBytes(UTF_8), (v + "b" + j).getBytes(UTF_8)));
                            }
                            p.sendBatch(batch).join();
                            for (int j = 0; j < 5; j++) {
                                acked.add(v + "b" + j);
                            }
                        } else {
                            p.send(("sku-" + n % 37).getBytes(UTF_8), v.getBytes(UTF_8)).join();
                            acked.add(v);
                        }
                    }
                    return null;
                }));
            }
            for (int m = 0; m < 3; m++) {
                Random rnd = new Random(m);
                tasks.add(pool.submit(() -> {
                    while (!stop.get()) {
                        try (Consumer c = k.groupConsumer("inventory", "projector")) {
                            int polls = 1 + rnd.nextInt(20);
                            for (int i = 0; i < polls; i++) {
                                for (KafkoRecord r : c.poll(Duration.ofMillis(rnd.nextInt(5)))) {
                                    seen.add(new String(r.value(), UTF_8));
                                }
                                c.commit();
                            }
                        }
                    }
                    return null;
                }));
            }
            Compression[] codecs = Compression.values();
            for (int step = 1; step <= 30; step++) {
                int due = step * TARGET / 30;
                OperationsTryoutTest.await("acknowledged " + due, () -> acked.size() >= due);
                t.alterConfig(t.config().toBuilder().compression(codecs[step % codecs.length]).build());
                if (step == 10) {
                    t.increasePartitions(4);
                } else if (step == 20) {
                    t.increasePartitions(7);
                }
            }
            stop.set(true);
            for (Future<?> f : tasks) {
                f.get(20, TimeUnit.SECONDS);
            }
            pool.shutdown();
            try (Consumer last = k.groupConsumer("inventory", "projector")) {
                for (List<KafkoRecord> rs = last.poll(Duration.ofSeconds(1)); !rs.isEmpty(); rs = last.poll(Duration.ofMillis(300))) {
                    rs.forEach(r -> seen.add(new String(r.value(), UTF_8)));
                }
                last.commit();
            }
            Set<String> missing = new TreeSet<>(acked);
            missing.removeAll(seen);
            assertThat(missing).as("acknowledged records the group never read").isEmpty();
            assertThat(k.groupInfo("inventory", "projector").lag()).hasSize(7).allSatisfy((part, lag) -> assertThat(lag).isZero());
        }
    }
}
