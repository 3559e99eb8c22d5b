package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.CapturedWarnings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Claims of the README's "Durability contract" read as a contract, those no other test of this package or the
 * engine's checks as the README words them: the other claims' tests are named in {@code docs/RELIABILITY.md}.
 */
class ReadmeClaimsDurabilityTest {

    /**
     * "{@code EVERY_BATCH}: on disk ({@code fdatasync}; one fsync covers every append waiting at that moment)":
     * sends made while the partition's fsync is under way wait, unacknowledged, and the next fsync covers them all.
     */
    @Test
    void oneFsyncCoversEveryAppendWaitingAtThatMoment(@TempDir Path dir) throws Exception {
        AtomicBoolean hold = new AtomicBoolean();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger segmentForces = new AtomicInteger();
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeForce(Path path) {
                if (!path.getFileName().toString().endsWith(".log")) {
                    return;
                }
                segmentForces.incrementAndGet();
                if (hold.compareAndSet(true, false)) {
                    held.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
        try (Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            kafko.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer producer = kafko.producer("t");
            producer.send(null, bytes("warm-up")).join();
            int before = segmentForces.get();

            hold.set(true);
            CompletableFuture<RecordPosition> first = CompletableFuture.supplyAsync(
                    () -> producer.send(null, bytes("first")).join());
            assertThat(held.await(30, TimeUnit.SECONDS)).as("the first send's fsync began").isTrue();
            List<CompletableFuture<RecordPosition>> waiting = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                waiting.add(producer.send(null, bytes("w" + i)));
            }
            assertThat(waiting).as("not acknowledged before an fsync covers them").noneMatch(CompletableFuture::isDone);
            release.countDown();

            assertThat(first.get(30, TimeUnit.SECONDS).offset()).isEqualTo(1);
            for (int i = 0; i < waiting.size(); i++) {
                assertThat(waiting.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(2 + i);
            }
            assertThat(segmentForces.get() - before).as("the held fsync, then one for the ten that waited")
                    .isEqualTo(2);
        }
    }

    /**
     * "{@code durableClose(false)} ... a directory opened again anyway is recovered as after a crash of the process
     * ...: that open CRC-scans each partition's active segment and logs an INFO line for each ({@code recovered
     * ...: cut N bytes of zeros allocated ahead})", and no warning; after a durable close the open logs none.
     */
    @Test
    void anOpenAfterANonDurableCloseLogsOneInfoLinePerActiveSegmentAndNoWarning(@TempDir Path dir) throws Exception {
        Class<?> loader = Class.forName("dev.kafko.internal.log.LogLoader");
        fill(dir, KafkoOptions.builder().durableClose(false).build());
        List<String> lines;
        try (CapturedWarnings captured = CapturedWarnings.everyLevelOf(loader); Kafko kafko = Kafko.open(dir)) {
            lines = captured.lines();
            assertThat(kafko.topic("t").orElseThrow().partition(2).endOffset()).isEqualTo(10);
        }
        // the count as the log prints it, grouped by the default locale
        assertThat(lines).as("one line per partition").hasSize(3).allSatisfy(line -> assertThat(line)
                .startsWith("INFO ").contains("recovered ")
                .containsPattern("cut [0-9,.\\u00a0\\u202f]+ bytes of zeros allocated ahead"));
        for (int p = 0; p < 3; p++) {
            String partition = "t" + java.io.File.separator + p + java.io.File.separator;
            assertThat(lines).as("partition %d", p).anySatisfy(line -> assertThat(line).contains(partition));
        }

        try (CapturedWarnings captured = CapturedWarnings.everyLevelOf(loader); Kafko kafko = Kafko.open(dir)) {
            assertThat(captured.lines()).as("after a durable close").isEmpty();
        }
    }

    /**
     * "a commit found ahead of the log's end when the directory is opened ... is moved to that end at open, durably
     * and with a warning": the open forces the group's offsets file before it returns, so a crash right after it
     * cannot bring the stale commit back (the warning and the move are checked in {@code ConsumerGroupTest}).
     */
    @Test
    void theOpenForcesTheCommitItMovesBackToTheLogsEnd(@TempDir Path dir) throws Exception {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("t");
            for (int i = 0; i < 10; i++) {
                kafko.producer("t").send(null, bytes("v" + i)).join();
            }
            try (Consumer consumer = kafko.groupConsumer("t", "g")) {
                consumer.poll(Duration.ofMillis(10));
                consumer.commit(Map.of(0, 1000L)); // what a log cut back by a power loss looks like to the group
            }
        }
        Path offsets = FileNames.groupOffsetsFile(dir.resolve("t"), "g");
        List<String> offsetsCalls = new CopyOnWriteArrayList<>();
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeWrite(Path path, long bytes) {
                if (path.equals(offsets)) {
                    offsetsCalls.add("write");
                }
            }

            @Override
            public void beforeForce(Path path) {
                if (path.equals(offsets)) {
                    offsetsCalls.add("force");
                }
            }
        });
        try (CapturedWarnings ignored = CapturedWarnings.of("dev.kafko.internal.broker.GroupCoordinator");
             Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            assertThat(offsetsCalls).as("the move written by the open").contains("write");
            assertThat(offsetsCalls).as("and forced after it, before the open returned").endsWith("force");
            assertThat(kafko.groupInfo("t", "g").committed()).containsEntry(0, 10L);
        }
    }

    /** Ten records in each of three partitions of a {@code NEVER} topic, then a close under {@code options}. */
    private static void fill(Path dir, KafkoOptions options) {
        try (Kafko kafko = Kafko.open(dir, options)) {
            kafko.createTopic("t", TopicConfig.builder().partitions(3).build());
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 30; i++) {
                producer.sendTo(i % 3, null, bytes("v" + i)).join();
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
