package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A power loss at every step of a compaction, or of a merge of compacted segments (each write, fsync, rename, deletion
 * and directory fsync it makes), leaves
 * a directory that opens and holds every record that is the latest of its key, at its offset, and no record that was
 * never sent: the disk of each moment is the one {@link PowerLossDisk} models (only what was fsynced).
 */
class CompactionPowerLossTest {

    @TempDir
    Path tmp;

    /** Crashes into a fresh directory at each call the compaction makes, once armed. */
    private static final class CrashAtEveryStep implements HookedFileIo.Hooks {
        private final PowerLossDisk disk;
        private final Path crashes;
        private final List<Path> taken = new ArrayList<>();
        private volatile boolean armed;

        CrashAtEveryStep(PowerLossDisk disk, Path crashes) {
            this.disk = disk;
            this.crashes = crashes;
        }

        private synchronized void crash() throws IOException {
            if (armed) {
                Path target = crashes.resolve("crash-" + taken.size());
                disk.crashInto(target);
                taken.add(target);
            }
        }

        @Override
        public void afterOpen(Path path, boolean existed) throws IOException {
            disk.afterOpen(path, existed);
            crash();
        }

        @Override
        public void beforeWrite(Path path, long bytes) throws IOException {
            crash();
        }

        @Override
        public void afterForce(Path path) throws IOException {
            crash();
            disk.afterForce(path);
            crash();
        }

        @Override
        public void beforeMove(Path source, Path target) throws IOException {
            crash();
        }

        @Override
        public void beforeDelete(Path path) throws IOException {
            crash();
        }

        @Override
        public void afterFsyncDirectory(Path dir) throws IOException {
            crash();
            disk.afterFsyncDirectory(dir);
            crash();
        }
    }

    @Test
    void aPowerLossAtAnyStepOfACompactionKeepsTheLatestRecordOfEveryKey() throws Exception {
        powerLossAtEveryStep(false);
    }

    /** The second compaction removes nothing: it merges the segments the first one shrank. */
    @Test
    void aPowerLossAtAnyStepOfAMergeOfCompactedSegmentsKeepsTheLatestRecordOfEveryKey() throws Exception {
        powerLossAtEveryStep(true);
    }

    private void powerLossAtEveryStep(boolean merge) throws Exception {
        Path live = tmp.resolve("live");
        PowerLossDisk disk = new PowerLossDisk(live);
        CrashAtEveryStep hooks = new CrashAtEveryStep(disk, tmp.resolve("crashes"));
        Map<Long, String> sent = new HashMap<>();
        Map<String, Long> latest = new HashMap<>();
        try (Kafko kafko = BrokerBridge.open(live, KafkoOptions.DEFAULTS, new HookedFileIo(hooks))) {
            Topic topic = kafko.createTopic("state", TopicConfig.builder().compact().fsync(FsyncPolicy.EVERY_BATCH)
                    .segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).build());
            Producer p = kafko.producer("state");
            for (int i = 0; i < 240; i++) {
                String key = "k" + (i % 9);
                long offset = p.sendTo(0, bytes(key), bytes(key + "=" + i)).join().offset();
                sent.put(offset, key + "=" + i);
                latest.put(key, offset);
            }
            int segments = topic.partition(0).segmentCount();
            if (merge) {
                assertThat(topic.compact()).isPositive();
                assertThat(topic.partition(0).segmentCount()).isEqualTo(segments);
            }
            hooks.armed = true;
            long removed = topic.compact();
            hooks.armed = false;
            if (merge) {
                assertThat(removed).isZero();
                assertThat(topic.partition(0).segmentCount()).isLessThan(segments / 3);
            } else {
                assertThat(removed).isPositive();
            }
            assertThat(topic.partition(0).state()).isEqualTo(PartitionState.RUNNING);
        }
        assertThat(hooks.taken).as("moments a power loss was taken at").hasSizeGreaterThan(20);
        for (Path crashed : hooks.taken) {
            try (Kafko k = Kafko.open(crashed)) {
                Map<Long, String> read = new HashMap<>();
                try (Consumer c = k.consumer("state")) {
                    long end = k.topic("state").orElseThrow().partition(0).endOffset();
                    assertThat(end).as(crashed + ": end offset").isEqualTo(sent.size());
                    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                    while (c.position(0) < end && System.nanoTime() < deadline) {
                        for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                            read.put(r.offset(), text(r.value()));
                        }
                    }
                }
                for (Map.Entry<Long, String> e : read.entrySet()) {
                    assertThat(e.getValue()).as(crashed + ": offset " + e.getKey()).isEqualTo(sent.get(e.getKey()));
                }
                for (Map.Entry<String, Long> e : latest.entrySet()) {
                    assertThat(read).as(crashed + ": the latest record of " + e.getKey())
                            .containsEntry(e.getValue(), sent.get(e.getValue()));
                }
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
