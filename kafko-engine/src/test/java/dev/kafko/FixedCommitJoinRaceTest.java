package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit of a consumer with fixed partitions is refused while its group has live members. The check must hold
 * until the offsets are written: a member that joins between the two starts at the group's commit, reads, commits,
 * and the fixed consumer's write then moves that commit back under it. The interleaving a preemption reaches now
 * and then is made to happen every time: the commit's map is read after the check (by the commit's copy of it).
 */
class FixedCommitJoinRaceTest {

    @TempDir
    Path dir;

    @Test
    void aMemberJoiningAfterTheCheckHasItsCommitKeptAndTheFixedCommitRefused() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(1).build());
            Fixtures.fill(k, "t", 10);
            CountDownLatch checked = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            AtomicInteger entrySets = new AtomicInteger();
            // entrySet() is read once to check the arguments, then again to copy the map, after the live-member check
            Map<Integer, Long> offsets = new HashMap<>(Map.of(0, 3L)) {
                @Override
                public Set<Map.Entry<Integer, Long>> entrySet() {
                    if (entrySets.incrementAndGet() == 2) {
                        checked.countDown();
                        try {
                            go.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return super.entrySet();
                }
            };
            CompletableFuture<Throwable> fixedCommit = new CompletableFuture<>();
            Thread fixedThread = new Thread(() -> {
                try (Consumer fixed = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0)))) {
                    Fixtures.pollUntil(fixed, 3);
                    fixed.commit(offsets);
                    fixedCommit.complete(null);
                } catch (Throwable t) {
                    fixedCommit.complete(t);
                }
            }, "fixed");
            fixedThread.start();
            assertThat(checked.await(10, TimeUnit.SECONDS)).isTrue();

            // a member joins now, reads all ten records and commits them
            try (Consumer member = k.groupConsumer("t", "g")) {
                assertThat(Fixtures.pollUntil(member, 10)).hasSize(10);
                member.commit();
                assertThat(k.groupInfo("t", "g").committed()).isEqualTo(Map.of(0, 10L));

                go.countDown();
                Throwable failure = fixedCommit.get(10, TimeUnit.SECONDS);
                assertThat(k.groupInfo("t", "g").committed()).as("the live member's commit").isEqualTo(Map.of(0, 10L));
                assertThat(failure).isInstanceOf(CommitFailedException.class);
            } finally {
                go.countDown();
                fixedThread.join(10_000);
            }
        }
    }
}
