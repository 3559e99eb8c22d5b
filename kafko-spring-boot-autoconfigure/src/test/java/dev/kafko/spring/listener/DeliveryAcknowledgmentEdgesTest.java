package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * One delivery's {@link DeliveryAcknowledgment} on its own: what each acknowledgment and nack hands to the member's
 * commits, and each misuse refused with the exception that names it.
 */
class DeliveryAcknowledgmentEdgesTest {

    private static final long EPOCH = 7;

    private final MemberDelivery delivery = mock(MemberDelivery.class);
    private final MemberCommits commits = mock(MemberCommits.class);
    private final List<KafkoRecord> batch = List.of(new Rec(0, 10), new Rec(1, 4), new Rec(0, 11), new Rec(1, 5));

    private DeliveryAcknowledgment acknowledgment(AckMode mode, boolean batchListener, List<KafkoRecord> records) {
        when(delivery.ackMode()).thenReturn(mode);
        when(delivery.isBatch()).thenReturn(batchListener);
        when(delivery.listenerId()).thenReturn("orders");
        when(delivery.isPollingThread(any())).thenAnswer(call -> call.getArgument(0) == Thread.currentThread()
                && !Thread.currentThread().getName().equals("elsewhere"));
        return new DeliveryAcknowledgment(delivery, commits, records, EPOCH);
    }

    @Test
    void anAcknowledgmentOnThePollingThreadCountsAtOnceWithTheHighestOffsetOfEachPartition() {
        DeliveryAcknowledgment ack = acknowledgment(AckMode.MANUAL, true, batch);

        ack.acknowledge();

        assertThat(ack.acknowledgedByOwner()).isTrue();
        verify(commits).acknowledgedOnOwner(Map.of(0, 12L, 1, 6L), EPOCH);
        verify(commits, never()).acknowledgedElsewhere(any(), anyLong());
    }

    @Test
    void anAcknowledgmentOnAnotherThreadIsQueuedAndLeavesTheOwnerUnacknowledged() throws Exception {
        DeliveryAcknowledgment ack = acknowledgment(AckMode.MANUAL_IMMEDIATE, false, List.of(new Rec(2, 8)));

        onAnotherThread(ack::acknowledge);

        assertThat(ack.acknowledgedByOwner()).isFalse();
        verify(commits).acknowledgedElsewhere(Map.of(2, 9L), EPOCH);
        verify(commits, never()).acknowledgedOnOwner(any(), anyLong());
    }

    @Test
    void acknowledgingInAnAutomaticAckModeDoesNothing() {
        DeliveryAcknowledgment ack = acknowledgment(AckMode.BATCH, true, batch);

        ack.acknowledge();
        ack.acknowledge(1);

        assertThat(ack.acknowledgedByOwner()).isFalse();
        verifyNoInteractions(commits);
    }

    @Test
    void aPartialAcknowledgmentCommitsTheRecordsUpToItsIndexAndNeverMovesBack() {
        DeliveryAcknowledgment ack = acknowledgment(AckMode.MANUAL, true, batch);

        ack.acknowledge(1);
        verify(commits).acknowledgedOnOwner(Map.of(0, 11L, 1, 5L), EPOCH);
        ack.acknowledge(1); // the same index again
        ack.acknowledge(0); // an earlier one
        ack.acknowledge(2);
        verify(commits).acknowledgedOnOwner(Map.of(0, 12L, 1, 5L), EPOCH);
        ack.acknowledge();
        ack.acknowledge(3); // the whole batch was acknowledged already
        verify(commits).acknowledgedOnOwner(Map.of(0, 12L, 1, 6L), EPOCH);
        verify(commits, times(3)).acknowledgedOnOwner(any(), anyLong());
    }

    @Test
    void aPartialAcknowledgmentIsRefusedToARecordListenerOffThePollingThreadAndOutsideTheBatch() throws Exception {
        DeliveryAcknowledgment single = acknowledgment(AckMode.MANUAL, false, List.of(new Rec(0, 1)));
        assertThatThrownBy(() -> single.acknowledge(0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("A record listener acknowledges with acknowledge()");

        DeliveryAcknowledgment ack = acknowledgment(AckMode.MANUAL, true, batch);
        assertThatThrownBy(() -> ack.acknowledge(4)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> ack.acknowledge(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        Throwable elsewhere = onAnotherThread(() -> ack.acknowledge(1));
        assertThat(elsewhere).isInstanceOf(IllegalStateException.class).hasMessage("Listener 'orders' may acknowledge"
                + " part of a batch only on its polling thread, inside the listener call");
        verifyNoInteractions(commits);
    }

    @Test
    void aNackedBatchAcknowledgesOnlyTheRecordsBeforeTheNackUntilTheNextAttempt() {
        DeliveryAcknowledgment ack = acknowledgment(AckMode.MANUAL, true, batch);

        ack.nack(2, Duration.ZERO);
        verify(delivery).nacked(2, Duration.ZERO);

        ack.acknowledge(1); // before the nack's index: fine
        verify(commits).acknowledgedOnOwner(Map.of(0, 11L, 1, 5L), EPOCH);
        assertThatThrownBy(() -> ack.acknowledge(2)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Listener 'orders' acknowledged index 2 of a batch it nacked from index 2");
        assertThatThrownBy(ack::acknowledge).isInstanceOf(IllegalStateException.class)
                .hasMessage("Listener 'orders' acknowledged a delivery it nacked");

        ack.newAttempt();
        ack.acknowledge(2);
        verify(commits).acknowledgedOnOwner(Map.of(0, 12L, 1, 5L), EPOCH);
        ack.acknowledge();
        assertThat(ack.acknowledgedByOwner()).isTrue();
    }

    @Test
    void aNackFromTheFirstRecordRefusesEveryAcknowledgmentOfTheAttempt() {
        DeliveryAcknowledgment single = acknowledgment(AckMode.MANUAL, false, List.of(new Rec(0, 1)));
        single.nack(Duration.ZERO); // a record listener's nack is a nack from index 0
        assertThatThrownBy(single::acknowledge).isInstanceOf(IllegalStateException.class)
                .hasMessage("Listener 'orders' acknowledged a delivery it nacked");

        DeliveryAcknowledgment ack = acknowledgment(AckMode.MANUAL, true, batch);
        ack.nack(0, Duration.ZERO);
        assertThatThrownBy(() -> ack.acknowledge(0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Listener 'orders' acknowledged index 0 of a batch it nacked from index 0");
        verifyNoInteractions(commits);
    }

    @Test
    void aNackIsRefusedAtOrBeforeTheIndexAcknowledgedAndAfterTheWholeDeliveryWasAcknowledged() {
        DeliveryAcknowledgment ack = acknowledgment(AckMode.MANUAL, true, batch);
        ack.acknowledge(1);

        assertThatThrownBy(() -> ack.nack(1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Listener 'orders' nacked index 1 of a batch it acknowledged up to index 1");
        assertThatThrownBy(() -> ack.nack(4, Duration.ZERO)).isInstanceOf(IndexOutOfBoundsException.class);
        ack.nack(2, Duration.ZERO);
        verify(delivery).nacked(2, Duration.ZERO);

        DeliveryAcknowledgment whole = acknowledgment(AckMode.MANUAL, false, List.of(new Rec(0, 1)));
        whole.acknowledge();
        assertThatThrownBy(() -> whole.nack(Duration.ZERO)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Listener 'orders' nacked a delivery it acknowledged");
        verify(delivery, never()).nacked(0, Duration.ZERO);
    }

    @Test
    void aNackIsRefusedWithTheWrongMethodANegativeSleepOrOffThePollingThread() throws Exception {
        DeliveryAcknowledgment batchAck = acknowledgment(AckMode.MANUAL, true, batch);
        assertThatThrownBy(() -> batchAck.nack(Duration.ZERO)).isInstanceOf(IllegalStateException.class)
                .hasMessage("A batch listener nacks with nack(index, sleep)");
        assertThatThrownBy(() -> batchAck.nack(0, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("nack sleep must not be negative, was PT-0.001S");

        DeliveryAcknowledgment single = acknowledgment(AckMode.MANUAL, false, List.of(new Rec(0, 1)));
        assertThatThrownBy(() -> single.nack(0, Duration.ZERO)).isInstanceOf(IllegalStateException.class)
                .hasMessage("A record listener nacks with nack(sleep)");
        Throwable elsewhere = onAnotherThread(() -> single.nack(Duration.ofMillis(5)));
        assertThat(elsewhere).isInstanceOf(IllegalStateException.class)
                .hasMessage("Listener 'orders' may nack only on its polling thread, inside the listener call");
        verify(delivery, never()).nacked(anyInt(), any());

        single.nack(Duration.ofMillis(5));
        verify(delivery).nacked(0, Duration.ofMillis(5));
    }

    /** Runs {@code action} on a thread that is not the polling thread; returns what it threw, or null. */
    private static @Nullable Throwable onAnotherThread(Runnable action) throws InterruptedException {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                action.run();
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "elsewhere");
        thread.start();
        thread.join(10_000);
        assertThat(thread.isAlive()).isFalse();
        return thrown.get();
    }

    record Rec(int partition, long offset) implements KafkoRecord {

        @Override
        public String topic() {
            return "orders";
        }

        @Override
        public long timestamp() {
            return 0;
        }

        @Override
        public byte @Nullable [] key() {
            return null;
        }

        @Override
        public byte[] value() {
            return new byte[0];
        }

        @Override
        public Headers headers() {
            return Headers.empty();
        }
    }
}
