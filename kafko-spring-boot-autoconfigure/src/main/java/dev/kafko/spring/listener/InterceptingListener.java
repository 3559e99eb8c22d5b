package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member's listener behind its container's {@link RecordInterceptor} (for a record listener) or
 * {@link BatchInterceptor} (for a batch listener): each delivery attempt intercepts the records, calls the listener
 * (its record filter first) with what the interceptor returned, and tells the interceptor how it did. One per member;
 * polling thread only.
 */
final class InterceptingListener implements KafkoMessageListener {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final KafkoMessageListener delegate;
    private final @Nullable RecordInterceptor recordInterceptor;
    private final @Nullable BatchInterceptor batchInterceptor;
    private final ThreadStateProcessor threadState;
    private final String listenerId;
    /**
     * The record the last attempt gave the listener, for {@link RecordInterceptor#afterRecord}: called before the next
     * attempt of a retry, or once the record is done with; null when skipped or told already.
     */
    private @Nullable KafkoRecord last;
    /** The records a batch listener's last attempt was called with, and those its batch interceptor gave it. */
    private @Nullable List<KafkoRecord> lastPolled;
    private @Nullable List<KafkoRecord> lastGiven;
    /** The record the batch listener's last attempt named as failed, as it got it; null when it named none. */
    private @Nullable KafkoRecord lastNamed;

    private InterceptingListener(KafkoMessageListener delegate, @Nullable RecordInterceptor recordInterceptor,
                                 @Nullable BatchInterceptor batchInterceptor, ThreadStateProcessor threadState,
                                 String listenerId) {
        this.delegate = delegate;
        this.recordInterceptor = recordInterceptor;
        this.batchInterceptor = batchInterceptor;
        this.threadState = threadState;
        this.listenerId = listenerId;
    }

    /**
     * {@code listener} behind the interceptor of its kind (a batch listener's batch interceptor, a record listener's
     * record interceptor); null when there is none: the other kind's is not used.
     */
    static @Nullable InterceptingListener of(KafkoMessageListener listener, @Nullable RecordInterceptor records,
                                             @Nullable BatchInterceptor batches, String listenerId) {
        if (listener.isBatch()) {
            return batches == null ? null : new InterceptingListener(listener, null, batches, batches, listenerId);
        }
        return records == null ? null : new InterceptingListener(listener, records, null, records, listenerId);
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment) throws Exception {
        onMessage(records, acknowledgment, 1);
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt)
            throws Exception {
        BatchInterceptor batches = batchInterceptor;
        if (batches != null) {
            onBatch(batches, records, acknowledgment, deliveryAttempt);
            return;
        }
        RecordInterceptor interceptor = recordInterceptor;
        if (last != null) {
            afterRecord(); // the attempt before, which the error handler dealt with (its back-off) and now retries
        }
        KafkoRecord polled = records.get(0);
        last = polled;
        KafkoRecord record;
        try {
            record = interceptor.intercept(polled);
        } catch (Exception | Error e) {
            failed(e, f -> interceptor.failure(polled, f));
            throw e;
        }
        if (record == null) {
            last = null;
            LOG.debug("The RecordInterceptor of listener '{}' skipped {}-{}@{}", listenerId, polled.topic(),
                    polled.partition(), polled.offset());
            return;
        }
        last = record;
        try {
            delegate.onMessage(record == polled ? records : List.of(record), acknowledgment, deliveryAttempt);
        } catch (Exception | Error e) {
            failed(e, f -> interceptor.failure(record, f));
            throw e;
        }
        called("success", () -> interceptor.success(record));
    }

    private void onBatch(BatchInterceptor interceptor, List<KafkoRecord> polled, Acknowledgment acknowledgment,
                         int deliveryAttempt) throws Exception {
        List<KafkoRecord> view = Collections.unmodifiableList(polled);
        lastPolled = polled;
        lastGiven = view; // until intercept returned: its failure is the polled batch's
        lastNamed = null;
        List<KafkoRecord> kept;
        try {
            kept = interceptor.intercept(view);
        } catch (Exception | Error e) {
            failed(e, f -> interceptor.failure(view, f));
            throw e;
        }
        if (kept == null || kept.isEmpty()) {
            LOG.debug("The BatchInterceptor of listener '{}' skipped a batch of {} record(s)", listenerId,
                    polled.size());
            return;
        }
        List<KafkoRecord> given = kept == view ? view : List.copyOf(kept);
        lastGiven = given;
        try {
            if (given == view) {
                delegate.onMessage(polled, acknowledgment, deliveryAttempt);
            } else {
                KeptRecords.deliver(delegate, polled, given, acknowledgment, deliveryAttempt);
            }
        } catch (Exception | Error e) {
            if (BatchListenerFailedException.findIn(e) instanceof KeptRecords.Named named) {
                lastNamed = named.record();
            }
            failed(e, f -> interceptor.failure(given, f));
            throw e;
        }
        called("success", () -> interceptor.success(given));
    }

    /**
     * The records the last attempt's listener got for {@code records} (those that attempt was called with), which the
     * error handler retries: what the error handler recovers and tells its retry listeners of, as spring-kafka's
     * error handler is given the intercepted records. A record interceptor's replacement (the polled record when
     * {@code intercept} threw); a batch interceptor's list, without the records it dropped, which did not fail
     * (the offsets committed stay those polled). {@code records} themselves for a part of that batch (a
     * {@link BatchListenerFailedException}'s record, which is one the listener got).
     */
    List<KafkoRecord> delivered(List<KafkoRecord> records) {
        if (recordInterceptor != null) {
            KafkoRecord got = last;
            return got != null && records.size() == 1 ? List.of(got) : records;
        }
        List<KafkoRecord> given = lastGiven;
        return given != null && records == lastPolled ? given : records;
    }

    /**
     * What {@link #delivered} says for {@code failed}, the polled record a batch listener named as failed
     * ({@link BatchListenerFailedException}): the record the listener named, as it got it, one only however many copies
     * of it the batch interceptor gave (spring-kafka recovers the one record named). Read now, for the delivery that
     * named it (in a transaction, the records before it run again before it is recovered); after a retry of it, the
     * record that retry named, or the list it got when it failed as a whole.
     */
    UnaryOperator<List<KafkoRecord>> deliveredNamed(List<KafkoRecord> failed) {
        KafkoRecord atDelivery = lastNamed;
        List<KafkoRecord> named = atDelivery != null ? List.of(atDelivery) : failed;
        return records -> {
            if (records != lastPolled) {
                return named; // not retried
            }
            KafkoRecord retried = lastNamed;
            return retried != null ? List.of(retried) : delivered(records);
        };
    }

    /**
     * Tells the interceptor of a failure: an exception as it is, an {@link Error} as the container reports it (a
     * {@link ListenerExecutionFailedException}); not the JVM's own trouble, of which the member dies.
     */
    private void failed(Throwable failure, Consumer<Exception> failureCallback) {
        if (failure instanceof VirtualMachineError && !(failure instanceof StackOverflowError)) {
            return;
        }
        Exception exception = failure instanceof Exception e ? e
                : new ListenerExecutionFailedException("Listener '" + listenerId + "' threw " + failure, failure);
        called("failure", () -> failureCallback.accept(exception));
    }

    /**
     * The last delivery attempt, and the error handler's dealing with it, are over: {@link RecordInterceptor#afterRecord}
     * of its record, unless skipped or told already (spring-kafka calls it after each attempt and its error handling).
     */
    void afterRecord() {
        RecordInterceptor interceptor = recordInterceptor;
        KafkoRecord record = last;
        last = null;
        if (interceptor != null && record != null) {
            called("afterRecord", () -> interceptor.afterRecord(record));
        }
    }

    void setupThreadState() {
        called("setupThreadState", threadState::setupThreadState);
    }

    void clearThreadState() {
        called("clearThreadState", threadState::clearThreadState);
    }

    /** Calls an interceptor's method whose failure must not change the delivery: what it throws is logged. */
    private void called(String method, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError fatal && !(fatal instanceof StackOverflowError)) {
                throw fatal; // the JVM's trouble (out of memory): the member dies, as from the listener itself
            }
            LOG.error("{}.{} of listener '{}' threw; the member goes on", threadState.getClass().getName(), method,
                    listenerId, e);
        }
    }

    @Override
    public @Nullable ConsumerSeekAware seekAware() {
        return delegate.seekAware();
    }

    @Override
    public boolean isBatch() {
        return delegate.isBatch();
    }
}
