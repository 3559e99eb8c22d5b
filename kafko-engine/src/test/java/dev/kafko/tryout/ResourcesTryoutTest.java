package dev.kafko.tryout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Limits" accounting of descriptors and threads, as an operator watching {@code /proc} sees it: two
 * descriptors a partition, two a group that committed, given back when the group or topic is deleted and at close,
 * and no kafko thread left after close.
 */
class ResourcesTryoutTest {

    private static final Path FDS = Path.of("/proc/self/fd");
    /**
     * Room for what the JVM itself or another test's instance may open or close meanwhile (a jar, a class file, a
     * segment sealed in the background): far below any per-group leak here, so it is taken on both sides.
     */
    private static final long SLACK = 4;

    @TempDir
    Path dir;

    private static long openDescriptors() throws IOException {
        try (Stream<Path> s = Files.list(FDS)) {
            return s.count();
        }
    }

    private static Set<Thread> kafkoThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("kafko"))
                .collect(Collectors.toSet());
    }

    @Test
    void descriptorsOfGroupsAndTopicsGoWithThemAndCloseLeavesNoThread() throws Exception {
        assumeTrue(Files.isDirectory(FDS), "needs /proc/self/fd");
        long before = openDescriptors();
        Set<Thread> threadsBefore = kafkoThreads(); // another test's instance may still run
        try (Kafko k = Kafko.open(dir)) {
            long open = openDescriptors();
            k.createTopic("inventory", TopicConfig.builder().partitions(4).build());
            k.producer("inventory").send(null, new byte[1]).join();
            long withTopic = openDescriptors();
            assertThat(withTopic - open).as("two a partition").isBetween(8 - SLACK, 8 + SLACK);
            for (int g = 0; g < 50; g++) {
                try (Consumer c = k.groupConsumer("inventory", "projection-" + g)) {
                    c.poll(Duration.ZERO);
                    c.commit();
                }
            }
            assertThat(openDescriptors() - withTopic).as("two a group that committed")
                    .isBetween(100 - SLACK, 100 + SLACK);
            for (int g = 0; g < 50; g++) {
                assertThat(k.deleteGroup("inventory", "projection-" + g)).isTrue();
                k.groupLag("inventory", "never-used-" + g, 0); // a question leaves nothing open
            }
            assertThat(openDescriptors()).as("deleted groups").isLessThanOrEqualTo(withTopic + SLACK);
            for (int i = 0; i < 20; i++) {
                k.createTopic("snapshots-" + i, TopicConfig.builder().partitions(2).build());
                k.producer("snapshots-" + i).send(null, new byte[1]).join();
                try (Consumer c = k.groupConsumer("snapshots-" + i, "projector")) {
                    c.poll(Duration.ZERO);
                    c.commit();
                }
                k.deleteTopic("snapshots-" + i);
            }
            k.deleteTopic("inventory");
            assertThat(openDescriptors()).as("deleted topics").isLessThanOrEqualTo(open + SLACK);
        }
        assertThat(openDescriptors()).as("closed").isLessThanOrEqualTo(before + SLACK);
        Set<Thread> left = kafkoThreads();
        left.removeAll(threadsBefore);
        assertThat(left).as("threads this instance started").isEmpty();
    }
}
