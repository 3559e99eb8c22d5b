package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.Fixtures;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.UnknownTopicException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interleavings of a group commit and {@code Kafko.deleteTopic} that a race reaches only now and
 * then, made to happen every time: the member's check that the topic is open is behind it when the
 * delete runs.
 */
class GroupCommitDeleteTest {

    @TempDir
    Path dir;

    @Test
    void aCommitThatPassedItsCheckBeforeTheDeleteWritesNothingAfterIt() {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(Fixtures.commitAndDeleteEvents(events)).build())) {
            k.createTopic("t");
            Consumer member = k.groupConsumer("t", "g");
            member.poll(Duration.ZERO);
            member.commit(Map.of(0, 1L));
            GroupCoordinator group = ((TopicImpl) k.topic("t").orElseThrow()).group("g");
            k.deleteTopic("t");

            // what ConsumerImpl.doCommit does once its ensureOpen() has passed
            assertThatThrownBy(() -> group.commit(Map.of(0, 2L))).isInstanceOf(UnknownTopicException.class);
            assertThat(Files.exists(dir.resolve("t"))).as("the deleted topic's directory, made again").isFalse();
            assertThat(List.copyOf(events)).containsExactly("commit", "deleted");
            k.createTopic("t");
            assertThat(k.groupInfo("t", "g").committed()).as("offsets of the topic created again").isEmpty();
        }
    }

    @Test
    void theDeleteIsToldAfterTheEventOfACommitInFlight() throws Exception {
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        CompletableFuture<Kafko> instance = new CompletableFuture<>();
        CompletableFuture<Void> delete = new CompletableFuture<>();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onCommit(String topic, String group) {
                if (delete.isDone() || !instance.isDone()) {
                    events.add("commit");
                    return;
                }
                // the delete starts while this commit's event is being told, and has the time to finish
                Thread deleter = new Thread(() -> {
                    try {
                        instance.join().deleteTopic(topic);
                        delete.complete(null);
                    } catch (Throwable t) {
                        delete.completeExceptionally(t);
                    }
                }, "deleter");
                deleter.start();
                try {
                    delete.get(300, TimeUnit.MILLISECONDS);
                } catch (TimeoutException expected) {
                    // held back until this event is told
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                events.add("commit");
            }

            @Override
            public void onTopicDeleted(String topic) {
                events.add("deleted");
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            k.createTopic("t");
            Consumer member = k.groupConsumer("t", "g");
            member.poll(Duration.ZERO);
            instance.complete(k);
            member.commit(Map.of(0, 1L));
            delete.get(10, TimeUnit.SECONDS);
            assertThat(List.copyOf(events)).as("a commit told after the delete leaves a lag gauge for a topic that is gone")
                    .containsExactly("commit", "deleted");
            assertThatThrownBy(() -> member.commit(Map.of(0, 2L))).isInstanceOf(UnknownTopicException.class);
        }
    }
}
