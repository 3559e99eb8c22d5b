package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The acknowledgment a listener in a manual ack mode gets with one delivery of its member ({@link MemberDelivery}):
 * acknowledged on the polling thread it counts at once, on another thread it is queued for the polling thread;
 * a nack is taken on the polling thread only, inside the listener call.
 */
final class DeliveryAcknowledgment implements Acknowledgment {

    /** Handed to listeners in automatic ack modes, where acknowledging does nothing. */
    static final Acknowledgment NONE = new Acknowledgment() {
        @Override
        public void acknowledge() {
        }

        @Override
        public void acknowledge(int index) {
        }
    };

    private final MemberDelivery delivery;
    private final MemberCommits commits;
    private final List<KafkoRecord> records;
    /** The epoch of the delivery: an acknowledgment after the partition was assigned again (or sought) is stale. */
    private final long epoch;
    /** Acknowledged on the polling thread: its commit, not its return, finishes the records. */
    private boolean acknowledgedByOwner;
    /** The highest index of a partial acknowledgment of the batch, or -1. */
    private int acknowledgedUpTo = -1;
    /** The index the listener nacked from in the current attempt, or -1: nothing from there on may count as done. */
    private int nackedFrom = -1;

    DeliveryAcknowledgment(MemberDelivery delivery, MemberCommits commits, List<KafkoRecord> records, long epoch) {
        this.delivery = delivery;
        this.commits = commits;
        this.records = records;
        this.epoch = epoch;
    }

    boolean acknowledgedByOwner() {
        return acknowledgedByOwner;
    }

    /** The error handler delivers the records again: a nack of the attempt before is over. */
    void newAttempt() {
        nackedFrom = -1;
    }

    @Override
    public void acknowledge() {
        if (!delivery.ackMode().isManual()) {
            return;
        }
        Map<Integer, Long> next = CommitOffsets.nextOffsets(records);
        if (delivery.isPollingThread(Thread.currentThread())) {
            if (nackedFrom >= 0) {
                throw new IllegalStateException("Listener '" + delivery.listenerId() + "' acknowledged a delivery it"
                        + " nacked");
            }
            acknowledgedByOwner = true;
            commits.acknowledgedOnOwner(next, epoch);
        } else {
            commits.acknowledgedElsewhere(next, epoch);
        }
    }

    @Override
    public void acknowledge(int index) {
        if (!delivery.isBatch()) {
            throw new IllegalStateException("A record listener acknowledges with acknowledge()");
        }
        Objects.checkIndex(index, records.size());
        if (!delivery.isPollingThread(Thread.currentThread())) {
            throw new IllegalStateException("Listener '" + delivery.listenerId() + "' may acknowledge part of a batch"
                    + " only on its polling thread, inside the listener call");
        }
        if (nackedFrom >= 0 && index >= nackedFrom) {
            throw new IllegalStateException("Listener '" + delivery.listenerId() + "' acknowledged index " + index
                    + " of a batch it nacked from index " + nackedFrom);
        }
        if (acknowledgedByOwner || index <= acknowledgedUpTo || !delivery.ackMode().isManual()) {
            return; // acknowledged already (an attempt before this one may have): a commit never moves back
        }
        acknowledgedUpTo = index;
        commits.acknowledgedOnOwner(CommitOffsets.nextOffsets(records.subList(0, index + 1)), epoch);
    }

    @Override
    public void nack(Duration sleep) {
        if (delivery.isBatch()) {
            throw new IllegalStateException("A batch listener nacks with nack(index, sleep)");
        }
        nackAt(0, sleep);
    }

    @Override
    public void nack(int index, Duration sleep) {
        if (!delivery.isBatch()) {
            throw new IllegalStateException("A record listener nacks with nack(sleep)");
        }
        Objects.checkIndex(index, records.size());
        if (index <= acknowledgedUpTo) {
            throw new IllegalArgumentException("Listener '" + delivery.listenerId() + "' nacked index " + index
                    + " of a batch it acknowledged up to index " + acknowledgedUpTo);
        }
        nackAt(index, sleep);
    }

    private void nackAt(int index, Duration sleep) {
        if (sleep.isNegative()) {
            throw new IllegalArgumentException("nack sleep must not be negative, was " + sleep);
        }
        if (!delivery.isPollingThread(Thread.currentThread())) {
            throw new IllegalStateException("Listener '" + delivery.listenerId() + "' may nack only on its"
                    + " polling thread, inside the listener call");
        }
        if (acknowledgedByOwner) {
            throw new IllegalStateException("Listener '" + delivery.listenerId() + "' nacked a delivery it"
                    + " acknowledged");
        }
        nackedFrom = index;
        delivery.nacked(index, sleep);
    }
}
