package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Fixtures;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.UnknownTopicException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Members of four groups commit in a loop, each on its own thread, while another thread deletes the
 * topic, all released by one latch, a fixed number of rounds: each the commit fails only with {@link UnknownTopicException} (or
 * {@link KafkoClosedException}), no file of the deleted topic is left (a commit that got past its
 * check before the delete began must not create {@code groups/<g>/offsets} again in the directory
 * being deleted), the topic created again has no committed offset, and the observer is told of no
 * commit after it was told of the delete. The interleavings that broke these rules before B40 are rare
 * in such a race (none in 300 rounds of eight groups on two CPUs); {@code GroupCommitDeleteTest} forces each of them.
 */
class CommitDeleteRaceTest {

    private static final int ROUNDS = 100;
    /** One member committing in each: more committers than CPUs, so that some are preempted mid-commit. */
    private static final int GROUPS = 4;

    @TempDir
    Path dir;

    @Test
    void aCommitRacingTheTopicsDeleteLeavesNoFileNoOffsetAndNoLateCommitEvent() throws Exception {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(Fixtures.commitAndDeleteEvents(events)).fsyncMetadata(false).build())) {
            k.createTopic("t");
            for (int round = 0; round < ROUNDS; round++) {
                List<Consumer> members = new ArrayList<>();
                for (int g = 0; g < GROUPS; g++) {
                    Consumer member = k.groupConsumer("t", "g" + g);
                    assertThat(member.committed(0)).as("round %d: the topic created again starts without offsets", round)
                            .isEmpty();
                    member.poll(Duration.ZERO); // takes partition 0
                    assertThat(member.assignment()).containsExactly(0);
                    members.add(member);
                }
                events.clear();
                CountDownLatch start = new CountDownLatch(1);
                List<CompletableFuture<Throwable>> committers = new ArrayList<>();
                for (Consumer member : members) {
                    committers.add(onThread(() -> {
                        start.await();
                        try {
                            for (long offset = 1; ; offset++) {
                                member.commit(Map.of(0, offset));
                            }
                        } catch (UnknownTopicException | KafkoClosedException expected) {
                            return null;
                        } catch (Throwable t) {
                            return t;
                        }
                    }));
                }
                CompletableFuture<Throwable> deleter = onThread(() -> {
                    start.await();
                    k.deleteTopic("t");
                    return null;
                });
                start.countDown();
                for (CompletableFuture<Throwable> committer : committers) {
                    assertThat(committer.get(10, TimeUnit.SECONDS)).as("round %d: a committer's failure", round).isNull();
                }
                assertThat(deleter.get(10, TimeUnit.SECONDS)).as("round %d: the delete's failure", round).isNull();
                List<String> seen = new ArrayList<>(events);
                assertThat(seen).as("round %d: told of the delete once, and of no commit after it", round)
                        .endsWith("deleted").containsOnlyOnce("deleted");
                assertThat(leftOf(dir.resolve("t"))).as("round %d: files left of the deleted topic", round).isEmpty();
                members.forEach(Consumer::close);
                k.createTopic("t");
            }
        }
    }

    private static List<Path> leftOf(Path topicDir) throws Exception {
        if (!Files.exists(topicDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(topicDir)) {
            return files.toList();
        }
    }

    private interface Task {
        Throwable call() throws Exception;
    }

    private static CompletableFuture<Throwable> onThread(Task task) {
        CompletableFuture<Throwable> done = new CompletableFuture<>();
        new Thread(() -> {
            try {
                done.complete(task.call());
            } catch (Throwable t) {
                done.complete(t);
            }
        }, "commit-delete-race").start();
        return done;
    }
}
