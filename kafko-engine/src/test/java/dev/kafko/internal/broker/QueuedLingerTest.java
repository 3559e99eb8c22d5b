package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Fixtures;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A send that finds sends lingering waits in the partition's mailbox, without its sender taking the partition
 * ({@link LingerChain#mayWaitQueued}), and is written with them; but not while a consumer is parked, nor once the
 * mailbox holds {@link LingerChain#LINGER_BYTES}. The other ways lingering sends are written (a blocked thread, a
 * consumer, a flush, the close, the linger's end) are in {@code LingerTest}. A linger of an hour, so that only
 * those triggers write within the test's timeout.
 */
@Timeout(60)
class QueuedLingerTest {

    private static final byte[] VALUE = new byte[256];

    @TempDir
    Path dir;

    @Test
    void aSendBehindLingeringSendsWaitsInTheMailboxWithoutTakingThePartition() throws Exception {
        try (Kafko k = open()) {
            Producer p = k.producer("t");
            PartitionActor actor = actor(k);
            CompletableFuture<RecordPosition> first = Fixtures.lingeringSend(p, VALUE);
            assertThat(actor.hasQueued()).as("the send that started the linger is in the chain").isFalse();

            CompletableFuture<RecordPosition> queued = p.send(null, VALUE);
            CompletableFuture<RecordPosition> next = p.send(null, VALUE);
            assertThat(queued).isNotDone();
            assertThat(next).isNotDone();
            assertThat(actor.hasQueued()).as("sends behind it wait in the mailbox").isTrue();
            assertThat(actor.isOwned()).as("and nobody holds the partition for them").isFalse();

            long firstOffset = next.get(10, TimeUnit.SECONDS).offset() - 2;
            assertThat(first).isCompletedWithValue(new RecordPosition(0, firstOffset));
            assertThat(queued).isCompletedWithValue(new RecordPosition(0, firstOffset + 1));
            assertThat(actor.hasQueued()).isFalse();
            assertThat(endOffset(k)).isEqualTo(firstOffset + 3);
        }
    }

    @Test
    void anotherRequestWritesTheQueuedSendsBeforeItsOwnRecords() throws Exception {
        try (Kafko k = open()) {
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> first = Fixtures.lingeringSend(p, VALUE);
            CompletableFuture<RecordPosition> queued = p.send(null, VALUE);
            assertThat(actor(k).hasQueued()).isTrue();

            List<RecordPosition> batch = k.producer("t").sendBatch(List.of(record(), record())).get(10, TimeUnit.SECONDS);

            assertThat(first).isDone();
            assertThat(queued).isDone();
            long queuedOffset = queued.join().offset();
            assertThat(first.join().offset()).isEqualTo(queuedOffset - 1);
            assertThat(batch).extracting(RecordPosition::offset).containsExactly(queuedOffset + 1, queuedOffset + 2);
        }
    }

    @Test
    void noSendWaitsInTheMailboxWhileAConsumerIsParked() {
        try (Kafko k = open()) {
            Producer p = k.producer("t");
            PartitionActor actor = actor(k);
            CompletableFuture<RecordPosition> first = Fixtures.lingeringSend(p, VALUE);
            // a consumer that parks without looking at the linger (a real one asks for it to be written)
            Waiter consumer = new Waiter();
            actor.addWaiter(consumer);
            consumer.parking();

            CompletableFuture<RecordPosition> next = p.send(null, VALUE);

            assertThat(next).as("written by its sender, with the send that lingered").isDone();
            assertThat(first).isCompletedWithValue(new RecordPosition(0, next.join().offset() - 1));
            assertThat(actor.hasQueued()).isFalse();
        }
    }

    @Test
    void sendsBehindALingerAreWrittenOnceTheyFillAFrameWithoutAnyoneWaiting() {
        try (Kafko k = open()) {
            Producer p = k.producer("t");
            Fixtures.lingeringSend(p, VALUE);
            List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                sent.add(p.send(null, VALUE));
            }
            long notDone = sent.stream().filter(f -> !f.isDone()).count();
            // a frame's worth waits at most: LINGER_BYTES of records counted at their queued weight
            long frame = LingerChain.LINGER_BYTES / (VALUE.length + Mailbox.RECORD_OVERHEAD) + 1;
            assertThat(notDone).isPositive().isLessThanOrEqualTo(frame + 1);
            assertThat(sent.get(sent.size() - 1 - (int) notDone)).isDone();
            assertThat(sent.get(sent.size() - (int) notDone)).isNotDone();
        }
    }

    /**
     * A round that failed to start a linger (out of heap as it scheduled the linger's end, as
     * {@code Scheduler#schedule} allocates; or out of stack after the flag was raised) must not leave
     * {@code lingering} up with nothing lingering and no end scheduled: a later send would wait in the mailbox
     * for a linger nobody ends. With the default linger of 1 ms, such a send is written within the test's bound.
     */
    @Test
    void aLingerThatFailedToStartLeavesNoLaterSendInTheMailbox() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofMillis(1)).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            PartitionActor actor = actor(k);
            Field chainField = PartitionActor.class.getDeclaredField("chain");
            chainField.setAccessible(true);
            LingerChain chain = (LingerChain) chainField.get(actor);
            Field scheduleEndField = LingerChain.class.getDeclaredField("scheduleEnd");
            scheduleEndField.setAccessible(true);
            Runnable scheduleEnd = (Runnable) scheduleEndField.get(chain);
            AtomicBoolean armed = new AtomicBoolean(true);
            scheduleEndField.set(chain, (Runnable) () -> {
                if (armed.getAndSet(false)) {
                    throw new OutOfMemoryError("injected: Java heap space, scheduling the end of a linger");
                }
                scheduleEnd.run();
            });

            // back-to-back sends until one starts to linger: the injected error fails that one
            CompletableFuture<RecordPosition> failed = null;
            int written = 0;
            for (int i = 0; i < 10_000 && failed == null; i++) {
                CompletableFuture<RecordPosition> f = p.send(null, VALUE);
                if (f.isCompletedExceptionally()) {
                    failed = f;
                } else {
                    assertThat(f).as("written before the linger was tried").isDone();
                    written++;
                }
            }
            assertThat(failed).as("a send that tried to linger").isNotNull();
            assertThat(armed).isFalse();

            CompletableFuture<RecordPosition> next = p.send(null, VALUE);
            CountDownLatch done = new CountDownLatch(1);
            next.whenComplete((r, e) -> done.countDown()); // a callback only: it does not ask for the write
            assertThat(done.await(10, TimeUnit.SECONDS))
                    .as("a send after the failed linger completes without anyone waiting on it (queued: %s)",
                            actor.hasQueued())
                    .isTrue();
            assertThat(next.join().offset()).isEqualTo(written);
            assertThat(endOffset(k)).isEqualTo(written + 1);
        }
    }

    private Kafko open() {
        Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofHours(1)).build());
        k.createTopic("t");
        return k;
    }

    private static PartitionActor actor(Kafko k) {
        return ((TopicImpl) k.topic("t").orElseThrow()).actors()[0];
    }

    private static long endOffset(Kafko k) {
        return k.topic("t").orElseThrow().partitions().get(0).endOffset();
    }

    private static OutgoingRecord record() {
        return new OutgoingRecord(null, VALUE, dev.kafko.Headers.empty(), OutgoingRecord.NO_TIMESTAMP);
    }
}
