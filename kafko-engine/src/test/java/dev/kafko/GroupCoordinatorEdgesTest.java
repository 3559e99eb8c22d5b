package dev.kafko;

import static dev.kafko.Fixtures.fill;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Group assignment and {@code groupInfo} at edges no other test reached (found by mutation testing, B116): the range
 * assignment when the partitions do not divide among the members, a member blocked in a long {@code poll} that
 * must hand over at once when another joins, and a commit of offset 0.
 */
class GroupCoordinatorEdgesTest {

    @TempDir
    Path dir;

    @Test
    void partitionsThatDoNotDivideEvenlyGoOneMoreToTheFirstMembers() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(5).build());
            try (Consumer a = k.groupConsumer("t", "g"); Consumer b = k.groupConsumer("t", "g")) {
                settle(a, b);
                assertThat(a.assignment()).containsExactlyInAnyOrder(0, 1, 2);
                assertThat(b.assignment()).containsExactlyInAnyOrder(3, 4);
                try (Consumer c = k.groupConsumer("t", "g")) {
                    settle(a, b, c);
                    assertThat(a.assignment()).containsExactlyInAnyOrder(0, 1);
                    assertThat(b.assignment()).containsExactlyInAnyOrder(2, 3);
                    assertThat(c.assignment()).containsExactlyInAnyOrder(4);
                }
            }
        }
    }

    @Test
    void aMemberWaitingInALongPollHandsOverAtOnceWhenAnotherJoins() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer a = k.groupConsumer("t", "g")) {
                a.poll(Duration.ZERO);
                assertThat(a.assignment()).containsExactlyInAnyOrder(0, 1);
                // a waits for records that never come: only the join can wake it to give up partition 1
                CompletableFuture<List<KafkoRecord>> waiting = CompletableFuture.supplyAsync(
                        () -> a.poll(Duration.ofSeconds(30)));
                Thread.sleep(200);
                try (Consumer b = k.groupConsumer("t", "g")) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (b.assignment().isEmpty() && System.nanoTime() < deadline) {
                        b.poll(Duration.ofMillis(50));
                    }
                    assertThat(b.assignment()).as("b's partitions, 10 s after it joined").containsExactly(1);
                    // a's poll goes on waiting for its partition 0: a record there ends it
                    k.producer("t").sendTo(0, null, Fixtures.bytes("late")).join();
                    assertThat(waiting.get(5, TimeUnit.SECONDS)).hasSize(1);
                }
            }
        }
    }

    @Test
    void aCommitOfOffsetZeroIsACommit() {
        KafkoOptions latest = KafkoOptions.builder().offsetReset(OffsetResetPolicy.LATEST).build();
        try (Kafko k = Kafko.open(dir, latest)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            fill(k, "t", 4);
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.poll(Duration.ZERO);
                c.seek(0, 0);
                c.commit(Map.of(0, 0L));
            }
            GroupInfo info = k.groupInfo("t", "g");
            assertThat(info.committed()).isEqualTo(Map.of(0, 0L));
            // a group at offset 0 has every record still to read; without a commit it starts at the end (LATEST)
            assertThat(info.lag()).isEqualTo(Map.of(0, 4L, 1, 0L));
        }
    }

    /** Polls every member until no member's assignment changes. */
    private static void settle(Consumer... members) {
        for (int round = 0; round < 4; round++) {
            for (Consumer m : members) {
                m.poll(Duration.ZERO);
            }
        }
        Set<Integer> seen = new TreeSet<>();
        for (Consumer m : members) {
            for (int p : m.assignment()) {
                assertThat(seen.add(p)).as("partition %d owned once", p).isTrue();
            }
        }
    }
}
