package dev.kafko;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Consumer#pause}, {@link Consumer#resume} and {@link Consumer#paused}, as Kafka's consumer has them. */
class PauseResumeTest {

    private static final Duration SHORT = Duration.ofMillis(100);

    @TempDir
    Path dir;

    private static void send(Kafko k, String topic, int partition, String... values) {
        Producer p = k.producer(topic);
        for (String v : values) {
            p.sendTo(partition, null, v.getBytes(UTF_8)).join();
        }
    }

    /** Polls until {@code count} records came, or a poll returned none. */
    private static List<String> drain(Consumer c, int count) {
        List<String> got = new ArrayList<>();
        while (got.size() < count) {
            List<KafkoRecord> records = c.poll(Duration.ofSeconds(5));
            if (records.isEmpty()) {
                break;
            }
            for (KafkoRecord r : records) {
                got.add(r.partition() + ":" + new String(r.value(), UTF_8));
            }
        }
        return got;
    }

    @Test
    void aPausedPartitionIsSkippedUntilResumedAndThenReadFromItsPosition() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            send(k, "t", 0, "a0");
            send(k, "t", 1, "b0", "b1");
            send(k, "t", 2, "c0");
            try (Consumer c = k.groupConsumer("t", "g")) {
                c.pause(List.of(1));
                assertThat(c.paused()).containsExactly(1);
                assertThat(drain(c, 2)).containsExactlyInAnyOrder("0:a0", "2:c0");
                assertThat(c.poll(SHORT)).as("only the paused partition has records").isEmpty();
                assertThat(c.position(1)).isZero();
                c.commit();
                assertThat(c.committed(1)).hasValue(0);

                c.pause(List.of(1)); // again: nothing changes
                c.resume(List.of(1));
                assertThat(c.paused()).isEmpty();
                assertThat(drain(c, 2)).containsExactly("1:b0", "1:b1");
                c.resume(List.of(0, 2)); // not paused: nothing happens
                assertThat(c.assignment()).containsExactly(0, 1, 2);
            }
        }
    }

    @Test
    void aSeekOfAPausedPartitionIsKeptForItsResume() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            send(k, "t", 0, "a0", "a1", "a2");
            try (Consumer c = k.consumer("t")) {
                c.pause(Set.of(0));
                c.seek(0, 2);
                assertThat(c.poll(SHORT)).isEmpty();
                c.resume(Set.of(0));
                assertThat(drain(c, 1)).containsExactly("0:a2");
            }
        }
    }

    @Test
    void anAppendToAPausedPartitionDoesNotEndAWaitingPollButOneToAnotherDoes() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer c = k.consumer("t")) {
                c.pause(List.of(0));
                CountDownLatch polling = new CountDownLatch(1);
                CompletableFuture<List<KafkoRecord>> polled = CompletableFuture.supplyAsync(() -> {
                    polling.countDown();
                    return c.poll(Duration.ofSeconds(30));
                });
                polling.await();
                send(k, "t", 0, "paused");
                assertThat(polled).as("a paused partition's record does not end the wait")
                        .failsWithin(300, TimeUnit.MILLISECONDS);
                send(k, "t", 1, "live");
                List<KafkoRecord> got = polled.get(10, TimeUnit.SECONDS);
                assertThat(got).extracting(r -> new String(r.value(), UTF_8)).containsExactly("live");
            }
        }
    }

    @Test
    void pausingAPartitionNotAssignedFailsAndPausesNone() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withPartitions(Set.of(0, 1)))) {
                assertThatThrownBy(() -> c.pause(List.of(0, 2))).isInstanceOf(InvalidPartitionException.class)
                        .hasMessageContaining("partition 2 of topic 't' is not assigned to this consumer");
                assertThat(c.paused()).isEmpty();
                c.pause(List.of(1));
                send(k, "t", 0, "a");
                send(k, "t", 1, "b");
                assertThat(drain(c, 1)).containsExactly("0:a");
            }
        }
    }

    @Test
    void aRebalanceUnpausesThePartitionsItMovesAndKeepsThePausesOfThoseThatStay() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer first = k.groupConsumer("t", "g")) {
                first.pause(List.of(0, 1));
                try (Consumer second = k.groupConsumer("t", "g")) {
                    first.poll(SHORT); // gives up the partition the second member takes
                    second.poll(SHORT);
                    Set<Integer> kept = first.assignment();
                    assertThat(kept).hasSize(1);
                    assertThat(first.paused()).isEqualTo(kept);
                    assertThat(second.paused()).isEmpty();
                    int moved = second.assignment().iterator().next();
                    send(k, "t", moved, "moved");
                    send(k, "t", kept.iterator().next(), "kept");
                    assertThat(drain(second, 1)).containsExactly(moved + ":moved");
                    assertThat(first.poll(SHORT)).isEmpty();
                }
            }
        }
    }

    @Test
    void aClosedConsumerRefusesPausesResumesAndTheirQuestion() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Consumer c = k.consumer("t");
            c.pause(List.of(0));
            c.close();
            assertThatThrownBy(() -> c.pause(List.of(0))).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> c.resume(List.of(0))).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(c::paused).isInstanceOf(KafkoClosedException.class);
        }
    }

    @Test
    void anAnonymousConsumerKeepsItsPausesWhenTheTopicGrows() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            try (Consumer c = k.consumer("t")) {
                c.pause(List.of(0));
                k.topic("t").orElseThrow().increasePartitions(2);
                send(k, "t", 0, "old");
                send(k, "t", 1, "new");
                assertThat(drain(c, 1)).containsExactly("1:new");
                assertThat(c.paused()).containsExactly(0);
                assertThat(c.assignment()).containsExactly(0, 1);
            }
        }
    }
}
