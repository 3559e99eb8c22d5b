package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Fixtures;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
