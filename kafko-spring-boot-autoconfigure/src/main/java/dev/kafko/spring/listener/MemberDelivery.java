package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoInstrumentation;
import io.micrometer.observation.Observation;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one member delivers the records of a poll to its listener, one by one or as a batch: the listener call with
 * its timing and observation, a nack's pause, the error handler's retries and recovery, and the seeks back that
 * deliver again what was not finished. Polling thread only, but for what an acknowledgment made on another thread
 * asks of it ({@link #ackMode}, {@link #isPollingThread}: any thread).
 */
final class MemberDelivery {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);
    /** How long a member waits before delivering again records its error handler did not finish. */
    static final long REDELIVERY_PAUSE_MILLIS = 1000;

    private final ListenerConsumer member;
    private final KafkoMessageListenerContainer container;
    private final ContainerProperties properties;
    private final KafkoMessageListener listener;
    /** The listener behind the container's interceptor of its kind, which {@link #listener} then is; else null. */
    private final @Nullable InterceptingListener intercepting;
    /** Whether each delivery attempt runs in a transaction ({@link TransactionalListener}). */
    private final boolean transactional;
    /** Whether each record waits for the end of its retry back-off ({@link RetryBackOffListener}). */
    private final boolean awaitsBackOff;
    private final MemberCommits commits;
    private final CommitOffsets offsets;
    private final MemberLog log;
    /** The seeks a {@link ConsumerSeekAware} listener asks for: they come before the next record; null for others. */
    private final @Nullable MemberSeeks seeks;
    private final boolean timed;
    private final RecordObservations observations;
    /**
     * A nack's pause, set by the listener on this thread: the nacked records and those after them are delivered
     * again after it (null: none); {@link #nackIndex} is the first of them in a batch.
     */
    private @Nullable Duration nackSleep;
    private int nackIndex;
    /**
     * Whether the member holds a record (a batch) whose interceptor is still to be told how it went, committed or
     * not: the listeners have not caught up meanwhile ({@link CatchUp}). Written by the polling thread, read by any.
     */
    private volatile boolean interceptorToTell;

    MemberDelivery(ListenerConsumer member, KafkoMessageListenerContainer container, KafkoMessageListener listener,
                   MemberCommits commits, MemberLog log, @Nullable MemberSeeks seeks) {
        this.member = member;
        this.container = container;
        this.properties = container.properties();
        this.awaitsBackOff = listener instanceof RetryBackOffListener;
        RecordInterceptor recordInterceptor = container.recordInterceptor();
        BatchInterceptor batchInterceptor = container.batchInterceptor();
        this.intercepting = recordInterceptor == null && batchInterceptor == null ? null // its class not even loaded
                : InterceptingListener.of(listener, recordInterceptor, batchInterceptor, container.getListenerId());
        KafkoMessageListener inner = intercepting != null ? intercepting : listener;
        PlatformTransactionManager transactions = container.transactionManager();
        this.transactional = transactions != null;
        this.listener = transactions == null ? inner
                : new TransactionalListener(inner, transactions, container.getListenerId());
        this.commits = commits;
        this.offsets = commits.offsets();
        this.log = log;
        this.seeks = seeks;
        this.timed = container.instrumentation() != KafkoInstrumentation.NOOP;
        this.observations = container.observations();
    }

    /** Delivers the records of a poll (not empty). */
    void deliver(List<KafkoRecord> records) {
        if (listener.isBatch()) {
            if (intercepting == null) {
                deliverBatch(records);
                return;
            }
            interceptorToTell = true;
            try {
                deliverBatch(records); // its success or failure told before it returns
            } finally {
                told();
            }
            return;
        }
        Set<Integer> redeliver = null;
        for (int i = 0; i < records.size(); i++) {
            KafkoRecord record = records.get(i);
            if (container.stopRequested()) {
                return; // not delivered, not committed: the group delivers them again
            }
            if (member.topicLost()) {
                member.notDelivered(records.size() - i); // a topic that no longer exists: nobody reads them again
                return;
            }
            if (redeliver != null && redeliver.contains(record.partition())) {
                continue;
            }
            if (seeks != null && seeks.pending()) {
                // the seeks come first: what is left is read again, from where it is or from where it is sought
                Set<Integer> sought = redeliver;
                seekBack(records.subList(i, records.size()).stream()
                        .filter(r -> sought == null || !sought.contains(r.partition())).toList());
                return;
            }
            if (awaitsBackOff) {
                long left = RetryBackOffListener.backOffLeft(record, member.currentTimeMillis());
                if (left > 0) {
                    // a retry topic's record before its back-off ended: it and what follows it in its partition come
                    // again once it ended, its partition held back until then; the other partitions' records go on (a
                    // poll's partitions are in no time order: one of them may hold a record due long before this one)
                    seek(record.partition(), record.offset());
                    hold(record.partition(), left);
                    if (redeliver == null) {
                        redeliver = new HashSet<>();
                    }
                    redeliver.add(record.partition());
                    continue;
                }
            }
            if (!handle(record)) {
                seek(record.partition(), record.offset());
                if (redeliver == null) {
                    redeliver = new HashSet<>();
                }
                redeliver.add(record.partition());
            }
            if (nackSleep != null) {
                Set<Integer> skip = redeliver;
                redeliverAfterNack(records.subList(i, records.size()).stream()
                        .filter(r -> skip == null || !skip.contains(r.partition())).toList());
                return;
            }
        }
    }

    /**
     * A nack: {@code records} come again, after its pause (which a stop or a pause ends). A seek the listener asks
     * for meanwhile is made at once, and the pause goes on: the member reads from where it was sought after it, as
     * spring-kafka's poll loop makes seeks while its consumer is paused for a nack.
     */
    private void redeliverAfterNack(List<KafkoRecord> records) {
        long millis = nackSleep.toMillis();
        nackSleep = null;
        seekBack(records);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        try {
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                container.awaitStopPauseOrSeek(TimeUnit.NANOSECONDS.toMillis(left) + 1);
                if (container.stopRequested() || container.pauseRequested() || !container.anySeekRequested()) {
                    return;
                }
                if (!member.makeSeeks()) {
                    // its topic was deleted under it: the seeks wait for its next poll, which finds that out
                    long rest = Math.max(0, deadline - System.nanoTime());
                    container.awaitStopOrPause(TimeUnit.NANOSECONDS.toMillis(rest));
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Delivers a batch. When the listener names the record that failed ({@link BatchListenerFailedException}),
     * the records before it are finished (in a transaction, after running again: {@link #runAgain}), the failed one
     * goes to the error handler alone, and the records after it are delivered again by the next poll; any other
     * failure is the whole batch's.
     */
    private void deliverBatch(List<KafkoRecord> records) {
        Acknowledgment ack = ack(records);
        try {
            invoke(records, ack, 1);
        } catch (Exception failure) {
            BatchListenerFailedException named = BatchListenerFailedException.findIn(failure);
            if (named == null || named.getIndex() >= records.size()) {
                if (named != null) {
                    LOG.warn("Listener '{}' named record {} of a batch of {} as failed; failing the whole batch",
                            container.getListenerId(), named.getIndex(), records.size());
                }
                if (!recover(records, failure, ack, delivered())) {
                    seekBack(records);
                } else if (nackSleep != null) {
                    batchNacked(records, ack); // a retry nacked the batch and returned
                }
                return;
            }
            int i = named.getIndex();
            List<KafkoRecord> failed = List.of(records.get(i));
            // the record as the listener got it, read before the records before it may run again
            UnaryOperator<List<KafkoRecord>> delivered = intercepting == null ? UnaryOperator.identity()
                    : intercepting.deliveredNamed(failed);
            if (i > 0) {
                List<KafkoRecord> before = records.subList(0, i);
                if (transactional && !runAgain(before)) {
                    seekBack(records); // the records before the failed one failed again: the batch comes again
                    return;
                }
                done(before, true, ack);
                // committed before the failed record's retries back off, whatever the ack mode, as spring-kafka's
                // error handler commits them itself: a crash during the back-off repeats them no more
                commits.commitBefore(records.subList(i, records.size()), true);
            }
            Exception cause = named.getCause() instanceof Exception e ? e : named;
            Acknowledgment failedAck = ack(failed);
            if (!recover(failed, cause, failedAck, delivered)) {
                seekBack(records.subList(i, records.size()));
            } else if (nackSleep != null) {
                // a retry nacked the failed record (the batch of it alone, index 0): it comes again with those after it
                batchNacked(records.subList(i, records.size()), failedAck);
            } else if (i + 1 < records.size()) {
                seekBack(records.subList(i + 1, records.size()));
            }
            return;
        }
        if (nackSleep != null) {
            batchNacked(records, ack);
            return;
        }
        done(records, false, ack);
    }

    /** The records the last attempt's listener got for those it failed on (an interceptor's). */
    private UnaryOperator<List<KafkoRecord>> delivered() {
        InterceptingListener interceptor = intercepting;
        return interceptor == null ? UnaryOperator.identity() : interceptor::delivered;
    }

    /**
     * In a transaction the failed attempt rolled back what the records before the one it named as failed had sent: they
     * run again, as a batch of their own in a transaction of its own, before the failed record goes to the error
     * handler; false when that fails too (or nacks), and the whole batch is delivered again.
     */
    private boolean runAgain(List<KafkoRecord> before) {
        try {
            invoke(before, ack(before), 1);
        } catch (Exception again) {
            LOG.warn("Listener '{}': the {} record(s) before the one a failed batch named failed again, in a"
                    + " transaction of their own; the batch is delivered again", container.getListenerId(),
                    before.size(), again);
            return false;
        }
        if (nackSleep != null) {
            nackSleep = null;
            return false;
        }
        return true;
    }

    /**
     * The listener nacked {@code records} from {@link #nackIndex} on and returned (on their delivery or on a retry):
     * the records before the index are acknowledged by the nack, the others come again after its pause.
     */
    private void batchNacked(List<KafkoRecord> records, Acknowledgment ack) {
        Duration sleep = nackSleep;
        nackSleep = null;
        done(records.subList(0, nackIndex), true, ack); // acknowledged by the nack
        nackSleep = sleep;
        redeliverAfterNack(records.subList(nackIndex, records.size()));
    }

    private void seekBack(List<KafkoRecord> records) {
        Map<Integer, Long> first = new HashMap<>();
        for (KafkoRecord r : records) {
            first.merge(r.partition(), r.offset(), Math::min);
        }
        first.forEach(this::seek);
    }

    /**
     * Holds the partition back for {@code millis} (its record's back-off left), the member's polls reading its other
     * partitions meanwhile: a member joining the group takes its partitions, a stop is not held up, and the records
     * of its other partitions are delivered as they come.
     */
    private void hold(int partition, long millis) {
        if (member.topicLost()) {
            return;
        }
        long now = member.currentTimeMillis();
        try {
            member.holdUntil(partition, now + millis < now ? Long.MAX_VALUE : now + millis);
        } catch (UnknownTopicException e) {
            member.forgetDeletedTopic(e);
        }
    }

    /** Seeks to deliver records again; on a deleted topic there is nothing to deliver again. */
    private void seek(int partition, long offset) {
        if (member.topicLost()) {
            return;
        }
        try {
            member.consumer().seek(partition, offset);
        } catch (UnknownTopicException e) {
            member.forgetDeletedTopic(e);
        }
    }

    /**
     * Delivers a record to a record listener, inside its observation when there is one (the attempts and
     * the recovery: their logs and what they send belong to the record's trace); true when it is done
     * (processed or recovered), false to deliver it again.
     */
    private boolean handle(KafkoRecord record) {
        if (intercepting == null) {
            return handleObserved(record);
        }
        interceptorToTell = true;
        try {
            return handleObserved(record);
        } finally {
            try {
                // the last attempt's, after the error handler (its recovery), as spring-kafka's
                intercepting.afterRecord();
            } finally {
                told();
            }
        }
    }

    /** The interceptor was told of the records in hand (committed before, under some ack modes): they are finished. */
    private void told() {
        interceptorToTell = false;
        container.processed().signalChange(); // a wait for the listeners to catch up looks again
    }

    /** Whether the member holds a record or a batch whose interceptor it has still to tell how it went. Any thread. */
    boolean interceptorToTell() {
        return interceptorToTell;
    }

    private boolean handleObserved(KafkoRecord record) {
        List<KafkoRecord> records = List.of(record);
        Acknowledgment ack = ack(records);
        Observation observation = observations.start(container.getListenerId(), container.getGroupId(), record);
        try (Observation.Scope ignored = observation == null ? null : observation.openScope()) {
            try {
                invoke(records, ack, 1);
            } catch (Exception failure) {
                if (observation != null) {
                    observation.error(failure);
                }
                commitBeforeHandling(records);
                return recover(records, failure, ack, delivered());
            } catch (Error error) {
                // it ends the member (its polling thread dies): the delivery's span and timer say why
                if (observation != null) {
                    observation.error(error);
                }
                throw error;
            }
            done(records, false, ack);
            return true;
        } finally {
            if (observation != null) {
                observation.stop();
            }
        }
    }

    /**
     * Before the error handler deals with a failed record (its retries may back off for long), what the poll processed
     * before it is committed as at the end of a poll: under {@code COUNT} and {@code TIME} once due, under
     * {@code MANUAL} what was acknowledged. spring-kafka's container commits so before its error handler seeks and
     * backs off; a crash during the back-off then delivers again from the failed record, not the records before it.
     * Nothing from the failed record on is committed, not even an acknowledgment the listener made for it before it
     * threw: that waits until the error handler has dealt with the record.
     */
    private void commitBeforeHandling(List<KafkoRecord> failed) {
        commits.drainForeign();
        commits.commitBefore(failed, false);
    }

    /**
     * Lets the error handler deal with a failed delivery; true when it did, false to deliver again. Records a retry
     * processed are finished as at their delivery (under a manual ack mode once acknowledged); those it recovered
     * (dead-lettered, logged) count as acknowledged. The handler is given the records the listener got (see
     * {@link ListenerInvocation#delivered}), which {@code delivered} says.
     */
    private boolean recover(List<KafkoRecord> records, Exception failure, Acknowledgment ack,
                            UnaryOperator<List<KafkoRecord>> delivered) {
        if (member.stageCancelledByStop()) {
            // the stop overran its shutdown timeout and cancelled the stage the listener returned: not a failure
            nackSleep = null;
            // under a manual ack mode an acknowledgment the listener gave before the cancellation still counts
            LOG.info("Listener '{}' stopped past its shutdown timeout while waiting for the stage it returned for {}"
                    + " record(s) from {}; the stage was cancelled, and they are {}", container.getListenerId(),
                    records.size(), container.topic(), notCommittedAtCancel());
            return false;
        }
        ListenerInvocation invocation = new ListenerInvocation(container, records, ack, this::invoke, delivered);
        try {
            // what the listener got, as spring-kafka's container hands its error handler the intercepted records
            container.errorHandler().handle(invocation.delivered(), failure, invocation);
        } catch (Exception | Error unhandled) {
            if (unhandled instanceof VirtualMachineError fatal && !(fatal instanceof StackOverflowError)) {
                throw fatal; // the JVM's trouble (out of memory): the member dies, as from the listener itself
            }
            if (member.stageCancelledByStop()) {
                return cancelledInHandler(records, false);
            }
            // an Error of the handler's own (a failed assertion, a bug) is its throwing like any other
            nackSleep = null; // a retry's nack the handler overrode: the records are delivered again as it throws
            if (container.stopRequested()) {
                // the error handler gave up because of the stop (its back-off ended early): not a failure
                LOG.info("Listener '{}' stopped while retrying {} record(s) from {}; they are not committed and"
                        + " will be delivered again when the group next reads them ({})", container.getListenerId(),
                        records.size(), container.topic(), unhandled.getMessage());
                return false;
            }
            if (container.pauseRequested()) {
                LOG.info("Listener '{}' paused while retrying {} record(s) from {}; they are not committed and will"
                        + " be delivered again after the resume ({})", container.getListenerId(), records.size(),
                        container.topic(), unhandled.getMessage());
                return false;
            }
            if (container.partitionPauseRequested(records)) {
                LOG.info("Listener '{}' was asked to pause the partition of {} record(s) from {} while retrying them;"
                        + " they are not committed and will be delivered again after its resume ({})",
                        container.getListenerId(), records.size(), container.topic(), unhandled.getMessage());
                return false;
            }
            if (container.seekRequested(records)) {
                LOG.info("Listener '{}' asked for a seek of the partition of {} record(s) from {} while retrying them;"
                        + " they are not committed, and the partition is read from where it is sought ({})",
                        container.getListenerId(), records.size(), container.topic(), unhandled.getMessage());
                return false;
            }
            log.notFinished(records, unhandled, REDELIVERY_PAUSE_MILLIS); // again each second while it lasts
            // whatever failed (a dead-letter topic that refuses writes, say) needs time: no hot loop
            pauseBeforeRedelivery();
            return false;
        }
        if (member.stageCancelledByStop()) {
            // the handler returned, but the stop cancelled a retry's stage: whatever it did, the records are the
            // stop's (a handler that caught the CancellationException and recovered them anyway is overruled)
            return cancelledInHandler(records, true);
        }
        done(records, !invocation.retried(), ack);
        return true;
    }

    /**
     * The stop cancelled the stage a retry's listener returned while the error handler ran: the records are not
     * committed (nor acknowledged by a recovery; under a manual ack mode, unless the listener acknowledged them
     * before) and are delivered again when the group next reads them, whether the
     * handler threw or returned ({@code returned}: it claimed to have dealt with them).
     */
    private boolean cancelledInHandler(List<KafkoRecord> records, boolean returned) {
        nackSleep = null;
        if (returned) {
            LOG.warn("Listener '{}' stopped past its shutdown timeout and cancelled the stage a retry returned for {}"
                    + " record(s) from {}; its error handler returned as if it had dealt with them, but they are {}"
                    + " (anything the handler sent for them itself stays sent)", container.getListenerId(),
                    records.size(), container.topic(), notCommittedAtCancel());
        } else {
            LOG.info("Listener '{}' stopped past its shutdown timeout and cancelled the stage a retry returned for {}"
                    + " record(s) from {}; they are {}", container.getListenerId(), records.size(), container.topic(),
                    notCommittedAtCancel());
        }
        return false;
    }

    /** What becomes of records whose stage the stop cancelled ({@link AwaitedStage#notCommittedAtCancel}). */
    private String notCommittedAtCancel() {
        return AwaitedStage.notCommittedAtCancel(properties.ackMode().isManual(), false);
    }

    private void pauseBeforeRedelivery() {
        try {
            container.awaitStopOrPause(REDELIVERY_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void invoke(List<KafkoRecord> records, Acknowledgment ack, int attempt) throws Exception {
        if (attempt > 1 && ack instanceof DeliveryAcknowledgment delivery) {
            delivery.newAttempt();
        }
        long start = timed ? System.nanoTime() : 0L;
        boolean success = false;
        boolean fatal = false;
        log.delivering(records);
        try {
            listener.onMessage(records, ack, attempt);
            success = true;
        } catch (VirtualMachineError e) {
            if (!(e instanceof StackOverflowError)) {
                fatal = true; // the records stay named in hand: the member's death names them
                throw e; // the JVM's trouble (out of memory, a fault on a mapped file): the member dies
            }
            // a record that recurses too deep fails as any other failure: retries, then recovery
            throw new ListenerExecutionFailedException("Listener '" + container.getListenerId() + "' threw " + e, e);
        } catch (Error e) {
            throw new ListenerExecutionFailedException("Listener '" + container.getListenerId() + "' threw " + e, e);
        } finally {
            if (!success) {
                // a listener that throws after a nack fails as it would without it, at a retry as at the delivery:
                // only a nack of the attempt that returned counts
                nackSleep = null;
            }
            if (!fatal) {
                log.delivered();
            }
            if (timed) {
                container.instrumentation().listenerInvoked(container.getListenerId(), container.topic(),
                        System.nanoTime() - start, success);
            }
        }
    }

    /** Records the records as finished; {@code recovered} ones count as acknowledged in manual modes. */
    private void done(List<KafkoRecord> records, boolean recovered, Acknowledgment ack) {
        if (nackSleep != null) {
            return; // nacked: delivered again, nothing of it counts as processed
        }
        AckMode mode = properties.ackMode();
        if (mode.isManual() && !recovered) {
            if (!(ack instanceof DeliveryAcknowledgment a && a.acknowledgedByOwner())) {
                commits.finishedUnacknowledged(records); // committed once the listener acknowledges
            } // acknowledged: finished once its commit (at the end of the poll under MANUAL) advances it
            return;
        }
        commits.processed(records);
    }

    /** Before a poll: the interceptor's {@link ThreadStateProcessor#setupThreadState}, if there is one. */
    void setupThreadState() {
        if (intercepting != null) {
            intercepting.setupThreadState();
        }
    }

    /** After a poll's records were dealt with: {@link ThreadStateProcessor#clearThreadState}, if there is one. */
    void clearThreadState() {
        if (intercepting != null) {
            intercepting.clearThreadState();
        }
    }

    /** Whether the listener is behind an interceptor, whose thread-state hooks are called around each poll. */
    boolean intercepted() {
        return intercepting != null;
    }

    /** The listener nacked its delivery from {@code index} on, to come again after {@code sleep}. Polling thread. */
    void nacked(int index, Duration sleep) {
        nackIndex = index;
        nackSleep = sleep;
    }

    /** Whether {@code thread} is the member's polling thread (an acknowledgment made inside the listener call). */
    boolean isPollingThread(Thread thread) {
        return member.isPollingThread(thread);
    }

    AckMode ackMode() {
        return properties.ackMode();
    }

    boolean isBatch() {
        return listener.isBatch();
    }

    String listenerId() {
        return container.getListenerId();
    }

    private Acknowledgment ack(List<KafkoRecord> records) {
        return properties.ackMode().isManual() ? new DeliveryAcknowledgment(this, commits, records, offsets.epoch())
                : DeliveryAcknowledgment.NONE;
    }
}
