package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Code that runs while its thread owns a partition (an observer, a logger) may send: its sends never
 * wait, and never run another partition's callbacks on that thread. Durations too long for
 * nanoseconds in a long ({@link TopicConfig#MAX_DURATION}) work wherever the engine takes a duration.
 */
@Timeout(60)
class OwnerContextTest {

    private static final byte[] VALUE = new byte[10];

    @TempDir
    Path dir;

    @Test
    void anObserversSendDoesNotRunAnotherPartitionsCallbacksOnTheOwner() throws Exception {
        AtomicReference<Producer> producer = new AtomicReference<>();
        AtomicBoolean once = new AtomicBoolean(true);
        KafkoObserver sending = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (partition == 0 && once.getAndSet(false)) {
                    // a batch never lingers: whoever runs partition 1 writes its lingering sends first
                    producer.get().sendBatchTo(1, List.of(OutgoingRecord.of(null, VALUE)));
                }
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(sending).linger(Duration.ofSeconds(30)).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            producer.set(p);
            CompletableFuture<RecordPosition> lingering = null;
            for (int i = 0; i < 1000 && lingering == null; i++) {
                p.sendTo(1, null, VALUE);
                CompletableFuture<RecordPosition> f = p.sendTo(1, null, VALUE);
                lingering = f.isDone() ? null : f;
            }
            assertThat(lingering).as("a send that lingers").isNotNull();
            // a callback may flush; run on the owner of partition 0, it would wait for that partition for ever
            CompletableFuture<Void> flushed = lingering.thenRun(p::flush);

            CompletableFuture<RecordPosition> toZero = Fixtures.onNewThread(() -> p.sendTo(0, null, VALUE))
                    .thenCompose(f -> f);

            assertThat(toZero.get(10, TimeUnit.SECONDS).partition()).isZero();
            flushed.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anIntervalFsyncTooLongForNanosecondsNeverFiresAndSendsComplete() throws Exception {
        AppendHold hold = new AppendHold();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(hold).linger(Duration.ZERO).build());
             AutoCloseable unblock = hold::release) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.interval(TopicConfig.MAX_DURATION)).build());
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> first = Fixtures.onNewThread(() -> p.send(null, VALUE))
                    .thenCompose(f -> f);
            hold.awaitHeld();
            CompletableFuture<RecordPosition> queued = p.send(null, VALUE); // behind the round held above
            hold.release();

            assertThat(first.get(10, TimeUnit.SECONDS).offset()).isZero();
            assertThat(queued.get(10, TimeUnit.SECONDS).offset()).isOne();
        }
    }

    @Test
    void aLingerTooLongForNanosecondsStillWritesEverySend() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(TopicConfig.MAX_DURATION).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                sent.add(p.send(null, VALUE));
            }
            p.flush();
            for (int i = 0; i < sent.size(); i++) {
                assertThat(sent.get(i)).isCompletedWithValue(new RecordPosition(0, i));
            }
        }
    }
}
