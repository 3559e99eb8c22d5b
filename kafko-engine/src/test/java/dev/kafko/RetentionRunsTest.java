package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.log.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention deletes a partition's expired segments a few at a time, with the partition's sends written between
 * the runs: a run that deleted them all at once held every send back for as long as the deletions took (seconds
 * for thousands of segments on a file system that discards on unlink).
 */
class RetentionRunsTest {

    @TempDir
    Path dir;

    @Test
    void manyExpiredSegmentsGoInShortRunsWithTheSendsWrittenBetweenThem() throws Exception {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        List<String> events = new CopyOnWriteArrayList<>();
        AtomicReference<Producer> producer = new AtomicReference<>();
        AtomicReference<CompletableFuture<RecordPosition>> sentDuring = new AtomicReference<>();
        CountDownLatch submitted = new CountDownLatch(1);
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onRetention(String topic, int partition, int segments, long bytes) {
                events.add("R" + segments);
                if (sentDuring.get() == null) {
                    // a send made while retention runs: it is queued at once, its partition owned by this thread
                    Thread sender = new Thread(() -> {
                        sentDuring.set(producer.get().send(null, new byte[] {1}));
                        submitted.countDown();
                    });
                    sentDuring.set(new CompletableFuture<>());
                    sender.start();
                    try {
                        assertThat(submitted.await(10, TimeUnit.SECONDS)).isTrue();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (!events.isEmpty()) {
                    events.add("A" + records);
                }
            }
        };
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(10))
                .observer(observer).build();
        try (Kafko kafko = Kafko.open(dir, options)) {
            kafko.createTopic("r", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .retention(Duration.ofHours(1)).build());
            producer.set(kafko.producer("r"));
            int records = 100;
            for (int i = 0; i < records; i++) {
                producer.get().send(null, new byte[900]).join();
            }
            PartitionInfo before = kafko.topic("r").orElseThrow().partition(0);
            assertThat(before.segmentCount()).isGreaterThanOrEqualTo(records);

            clock.advance(Duration.ofHours(2));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // every run told (a run's observer call comes after its segments left the log)
            while (kafko.topic("r").orElseThrow().partition(0).logStartOffset() < records - 1
                    || events.stream().filter(e -> e.startsWith("R")).mapToInt(e -> Integer.parseInt(e.substring(1)))
                    .sum() < records - 1) {
                assertThat(System.nanoTime()).as("retention deleted every expired segment: " + events + " "
                        + kafko.topic("r").orElseThrow().partition(0)).isLessThan(deadline);
                Thread.sleep(5);
            }
            assertThat(sentDuring.get().get(10, TimeUnit.SECONDS).offset()).isEqualTo(records);

            List<String> runs = events.stream().filter(e -> e.startsWith("R")).toList();
            assertThat(runs).hasSizeGreaterThan(1)
                    .allSatisfy(r -> assertThat(Integer.parseInt(r.substring(1))).isPositive());
            // the first run, before the partition measured what a deletion costs, deletes the fewest a run may
            assertThat(runs.get(0)).isEqualTo("R64");
            assertThat(events.indexOf("A1")).as("the send made during the first run is written before the last run: "
                    + events).isPositive().isLessThan(events.lastIndexOf(runs.get(runs.size() - 1)));
        }
    }
}
