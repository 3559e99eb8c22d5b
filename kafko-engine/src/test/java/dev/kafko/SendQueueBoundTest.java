package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition's queue of unwritten sends holds at most {@link KafkoOptions#maxQueuedBytes()}: senders
 * that find it full wait for room, up to {@link KafkoOptions#maxBlock()}, then fail with
 * {@link BufferExhaustedException} without writing. An observer that blocks inside
 * {@code onAppend} holds the partition's owner, so that the queue fills while the test watches.
 */
@Timeout(60)
class SendQueueBoundTest {

    private static final byte[] VALUE = QueueFiller.VALUE;
    /** The queue holds about ten 256-byte records (each counted at its encoded size plus 64). */
    private static final long LIMIT = 3_300;

    @TempDir
    Path dir;

    /** Holds the partition's owner inside its first append until released. */
    private final AppendHold hold = new AppendHold();

    private Kafko open(Duration maxBlock) {
        return Kafko.open(dir, KafkoOptions.builder().observer(hold).linger(Duration.ZERO)
                .maxQueuedBytes(LIMIT).maxBlock(maxBlock).build());
    }

    /** Starts a send whose append blocks in the observer, and returns once the owner is inside it. */
    private CompletableFuture<RecordPosition> holdOwner(Producer p) throws InterruptedException {
        CompletableFuture<RecordPosition> first = Fixtures.onNewThread(() -> p.send(null, VALUE).join());
        hold.awaitHeld();
        return first;
    }

    /** Queues sends until one is refused; returns the accepted ones, in order. */
    private static List<CompletableFuture<RecordPosition>> fill(Producer p, AtomicReference<CompletableFuture<RecordPosition>> refused) {
        List<CompletableFuture<RecordPosition>> queued = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            CompletableFuture<RecordPosition> f = p.send(null, VALUE);
            if (f.isCompletedExceptionally()) {
                refused.set(f);
                return queued;
            }
            queued.add(f);
        }
        throw new AssertionError("a queue of " + LIMIT + " bytes took 100 records of 256 bytes");
    }

    @Test
    void aFullQueueFailsTheSendAfterMaxBlockAndWritesNothingOfIt() throws Exception {
        try (Kafko k = open(Duration.ofMillis(50)); AutoCloseable unblock = hold::release) {
            k.createTopic("t");
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> first = holdOwner(p);
            AtomicReference<CompletableFuture<RecordPosition>> refused = new AtomicReference<>();
            List<CompletableFuture<RecordPosition>> queued = fill(p, refused);

            assertThat(queued).hasSizeBetween(5, 10);
            assertThatThrownBy(() -> refused.get().get()).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(BufferExhaustedException.class)
                    .hasMessageContaining("partition t-0").hasMessageContaining("maxQueuedBytes")
                    .hasMessageContaining("not sent");

            hold.release();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(0, 0));
            for (int i = 0; i < queued.size(); i++) {
                assertThat(queued.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(0, i + 1));
            }
            assertThat(k.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(queued.size() + 1);
            // room again: the next send is written after the others
            assertThat(p.send(null, VALUE).get(10, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(0, queued.size() + 1));
        }
    }

    /** The first send, held inside its append by the observer. */
    private CompletableFuture<RecordPosition> first;

    /** Creates topic t, holds its owner in the first append, and starts a filler that blocks on the full queue. */
    private QueueFiller blockedFiller(Kafko k) throws InterruptedException {
        k.createTopic("t");
        Producer p = k.producer("t");
        first = holdOwner(p);
        QueueFiller filler = new QueueFiller(p, 0, 100);
        filler.start();
        filler.awaitBlocked(0);
        return filler;
    }

    @Test
    void aSenderWaitsForRoomAndIsWrittenOnceTheQueueIsTaken() throws Exception {
        try (Kafko k = open(Duration.ofSeconds(30)); AutoCloseable unblock = hold::release) {
            QueueFiller filler = blockedFiller(k);
            assertThat(filler.returned.get()).as("sends that fit in the queue").isBetween(5, 10);

            hold.release();
            filler.join(10_000);
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(0, 0));
            List<CompletableFuture<RecordPosition>> sent = filler.sent();
            assertThat(sent).hasSize(100);
            for (int i = 0; i < sent.size(); i++) {
                assertThat(sent.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(0, i + 1));
            }
        }
    }

    @Test
    void anInterruptedWaitFailsTheSendAndKeepsTheInterrupt() throws Exception {
        try (Kafko k = open(Duration.ofSeconds(30)); AutoCloseable unblock = hold::release) {
            QueueFiller filler = blockedFiller(k);
            filler.interrupt();
            filler.join(10_000);

            List<CompletableFuture<RecordPosition>> sent = filler.sent();
            CompletableFuture<RecordPosition> last = sent.get(sent.size() - 1);
            assertThatThrownBy(last::join).cause().isExactlyInstanceOf(InterruptException.class)
                    .hasMessageContaining("interrupted while waiting for room in partition t-0")
                    .hasCauseInstanceOf(InterruptedException.class);
            assertThat(filler.interruptedAfter).as("the interrupt is kept").isTrue();

            hold.release();
            first.get(10, TimeUnit.SECONDS);
            for (CompletableFuture<RecordPosition> f : sent.subList(0, sent.size() - 1)) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertThat(k.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(sent.size());
        }
    }

    @Test
    void closingWhileASenderWaitsEndsTheWaitAndKeepsEveryAcknowledgedRecord() throws Exception {
        Kafko k = open(Duration.ofSeconds(30));
        QueueFiller filler;
        try {
            filler = blockedFiller(k);
        } catch (Throwable t) {
            hold.release();
            k.close();
            throw t;
        }
        CompletableFuture<Void> closed = Fixtures.onNewThread(k::close);
        hold.release();
        closed.get(10, TimeUnit.SECONDS);
        filler.join(10_000);
        assertThat(filler.isAlive()).isFalse();

        int acknowledged = first.isCompletedExceptionally() ? 0 : 1;
        for (CompletableFuture<RecordPosition> f : filler.sent()) {
            assertThat(f).isDone();
            if (f.isCompletedExceptionally()) {
                assertThatThrownBy(f::join).cause().isInstanceOf(KafkoClosedException.class);
            } else {
                assertThat(f.join().offset()).isEqualTo(acknowledged++);
            }
        }
        assertThat(acknowledged).isGreaterThan(1);
        try (Kafko reopened = Kafko.open(dir)) {
            assertThat(reopened.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(acknowledged);
        }
    }

    @Test
    void fourPipeliningThreadsNeverQueueMoreThanTheLimit() throws Exception {
        AtomicInteger largestAppend = new AtomicInteger();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                largestAppend.accumulateAndGet(records, Math::max);
            }
        };
        int perThread = 20_000;
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).linger(Duration.ZERO)
                .maxQueuedBytes(LIMIT).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            List<CompletableFuture<List<CompletableFuture<RecordPosition>>>> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                threads.add(Fixtures.onNewThread(() -> {
                    List<CompletableFuture<RecordPosition>> sent = new ArrayList<>(perThread);
                    for (int i = 0; i < perThread; i++) {
                        sent.add(p.send(null, VALUE));
                    }
                    return sent;
                }));
            }
            for (CompletableFuture<List<CompletableFuture<RecordPosition>>> t : threads) {
                long previous = -1;
                for (CompletableFuture<RecordPosition> f : t.get(30, TimeUnit.SECONDS)) {
                    long offset = f.get(10, TimeUnit.SECONDS).offset();
                    assertThat(offset).as("a thread's sends keep their order").isGreaterThan(previous);
                    previous = offset;
                }
            }
            assertThat(k.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(4L * perThread);
            // one append writes at most one round: what the queue held (about ten records) and the sender's own
            assertThat(largestAppend.get()).isBetween(1, 11);
        }
    }

    @Test
    void aBatchLargerThanTheLimitIsTakenWhenTheQueueIsEmpty() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().maxQueuedBytes(1_000).maxBlock(Duration.ZERO).build())) {
            k.createTopic("t");
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                batch.add(OutgoingRecord.of(null, VALUE));
            }
            assertThat(k.producer("t").sendBatch(batch).get(10, TimeUnit.SECONDS)).hasSize(100);
        }
    }

    @Test
    void sendsFromCallbacksAndFromTheOwnerNeverWaitForThemselves() throws Exception {
        AtomicReference<Producer> producer = new AtomicReference<>();
        List<CompletableFuture<RecordPosition>> fromObserver = new ArrayList<>(); // owner threads only
        KafkoObserver sending = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                // runs on the partition's owner, the only thread that could make room: twenty sends
                // overfill the queue, which must take them rather than wait for the owner
                for (int i = 0; i < 20 && fromObserver.size() < 200; i++) {
                    CompletableFuture<RecordPosition> f = producer.get().send(null, VALUE);
                    fromObserver.add(f);
                    if (f.isCompletedExceptionally()) {
                        return; // refused: the test fails on it below
                    }
                }
            }
        };
        int chains = 4;
        int perChain = 300;
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(sending).linger(Duration.ZERO).maxBlock(Duration.ofSeconds(5))
                .maxQueuedBytes(LIMIT).build())) {
            k.createTopic("t");
            producer.set(k.producer("t"));
            List<CompletableFuture<Integer>> done = new ArrayList<>();
            for (int c = 0; c < chains; c++) {
                CompletableFuture<Integer> end = new CompletableFuture<>();
                chain(producer.get(), perChain, end);
                done.add(end);
            }
            for (CompletableFuture<Integer> end : done) {
                assertThat(end.get(30, TimeUnit.SECONDS)).isEqualTo(perChain);
            }
            k.producer("t").flush();
            for (CompletableFuture<RecordPosition> f : List.copyOf(fromObserver)) {
                f.get(10, TimeUnit.SECONDS);
            }
            assertThat(k.topic("t").orElseThrow().partitions().get(0).endOffset())
                    .isEqualTo((long) chains * perChain + fromObserver.size());
        }
    }

    /** Sends {@code left} records one after the other, each from the callback of the one before. */
    private static void chain(Producer p, int left, CompletableFuture<Integer> end) {
        chain(p, 0, left, end);
    }

    private static void chain(Producer p, int sent, int total, CompletableFuture<Integer> end) {
        if (sent == total) {
            end.complete(sent);
            return;
        }
        p.send(null, VALUE).whenComplete((pos, e) -> {
            if (e != null) {
                end.completeExceptionally(e);
            } else {
                chain(p, sent + 1, total, end);
            }
        });
    }
}
