package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A delete that stopped after its commit point (the config renamed to {@code topic.conf.deleted}) leaves a
 * directory that says it is a deleted topic's. When {@code createTopic} of the name removes that directory and
 * the removal stops half way in its turn (an I/O error, or a kill -9 of the process), the marker must still be
 * there: without it the directory is a topic that lost its config, with records, which open and
 * {@code createTopic} refuse until an operator "restores" the config of a topic that was deleted.
 *
 * <p>The removal is stopped by a file made immutable ({@code chattr +i}, which even root cannot delete; the test
 * is skipped where that is not possible). The order in which the removal visits a directory's entries is the
 * file system's (hash order on ext4), so the case is repeated over many names: without the fix about half of
 * them visit the marker first.
 */
class InterruptedLeftoverRemovalTest {

    private static final int NAMES = 12;

    @TempDir
    Path dir;

    @Test
    void aCreateWhoseRemovalOfADeletedTopicStoppedHalfWayLeavesADeleteToFinish() throws Exception {
        List<Path> pinned = new ArrayList<>();
        TopicConfig config = TopicConfig.builder().partitions(1).segmentBytes(1024).build();
        try {
            try (Kafko kafko = Kafko.open(dir)) {
                for (int n = 0; n < NAMES; n++) {
                    String name = "d" + n;
                    kafko.createTopic(name, config);
                    Producer p = kafko.producer(name);
                    for (int i = 0; i < 40; i++) {
                        byte[] key = Workload.key(name, i);
                        p.send(key, Workload.value(key)).join();
                    }
                    // the oldest, sealed segment can be neither written nor deleted from here on
                    Path sealed = FileNames.segmentFile(FileNames.partitionDir(dir.resolve(name), 0), 0);
                    assertThat(kafko.topic(name).orElseThrow().partition(0).segmentCount()).isGreaterThan(1);
                    boolean done = chattr("+i", sealed);
                    assumeTrue(done, "chattr +i works here (root on ext4)");
                    pinned.add(sealed);
                }
                for (int n = 0; n < NAMES; n++) {
                    String name = "d" + n;
                    // the delete passes its commit point, then cannot remove the pinned file
                    assertThatThrownBy(() -> kafko.deleteTopic(name)).isInstanceOf(KafkoStorageException.class);
                    assertThat(dir.resolve(name).resolve(FileNames.TOPIC_DELETED_MARKER)).exists();
                    // the create removes what the delete left, and stops at the pinned file in its turn
                    assertThatThrownBy(() -> kafko.createTopic(name, config)).isInstanceOf(KafkoException.class);
                }
            }
        } finally {
            for (Path p : pinned) {
                chattr("-i", p);
            }
        }
        // the fault is gone: every name can be created again, also after a reopen
        Map<String, String> refused = new TreeMap<>();
        try (Kafko kafko = Kafko.open(dir)) {
            for (int n = 0; n < NAMES; n++) {
                String name = "d" + n;
                try {
                    kafko.createTopic(name, config);
                    assertThat(kafko.topic(name).orElseThrow().partition(0).endOffset()).isZero();
                } catch (KafkoException e) {
                    refused.put(name, e.getMessage());
                }
            }
        }
        assertThat(refused).as("names whose deleted topic's records now block createTopic").isEmpty();
    }

    private static boolean chattr(String flag, Path file) throws IOException, InterruptedException {
        try {
            Process p = new ProcessBuilder("chattr", flag, file.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false; // no chattr
        }
    }
}
