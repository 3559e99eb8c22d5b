package dev.kafko.spring.listener;

import dev.kafko.InvalidNameException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Retries a failed delivery with a {@link BackOff}, then hands each record to a
 * {@link RecordRecoverer} (by default: log and skip). Conversion and argument-resolution failures,
 * {@link ClassCastException}s and {@link NoSuchMethodException}s (as spring-kafka's defaults),
 * {@link InvalidReplyHeaderException}s and sends the log refuses for good
 * ({@link RecordTooLargeException}, {@link InvalidNameException}, {@link InvalidPartitionException}) are
 * not retried: they would fail the same way (see {@link #isRetryable}); nor are the exceptions named with
 * {@link #addNotRetryableExceptions} (anywhere in the cause chain). {@link RetryListener}s are told of each failed
 * delivery and recovery ({@link #setRetryListeners}). Configure it before the containers start; the container member
 * threads then call it.
 */
public final class DefaultErrorHandler implements KafkoErrorHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultErrorHandler.class);

    private final BackOff backOff;
    private final RecordRecoverer recoverer;
    private volatile List<Class<? extends Throwable>> notRetryable = List.of();
    private volatile RetryListener[] retryListeners = {};

    /** 10 attempts in all, no delay, then log and skip. */
    public DefaultErrorHandler() {
        this(new FixedBackOff(0, 9), new LoggingRecordRecoverer());
    }

    /** @throws NullPointerException naming the parameter that is {@code null} */
    public DefaultErrorHandler(BackOff backOff, RecordRecoverer recoverer) {
        this.backOff = Objects.requireNonNull(backOff, "backOff");
        this.recoverer = Objects.requireNonNull(recoverer, "recoverer");
    }

    /** As {@link #DefaultErrorHandler(BackOff, RecordRecoverer)}, in spring-kafka's order of the arguments. */
    public DefaultErrorHandler(RecordRecoverer recoverer, BackOff backOff) {
        this(backOff, recoverer);
    }

    /** 10 attempts in all, no delay, then {@code recoverer}: spring-kafka's default back-off. */
    public DefaultErrorHandler(RecordRecoverer recoverer) {
        this(new FixedBackOff(0, 9), recoverer);
    }

    /**
     * {@code maxAttempts} attempts in all (the first included), {@code intervalMillis} apart.
     */
    public static DefaultErrorHandler withAttempts(int maxAttempts, long intervalMillis, RecordRecoverer recoverer) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
        }
        if (intervalMillis < 0) {
            throw new IllegalArgumentException("intervalMillis must not be negative, was " + intervalMillis);
        }
        return new DefaultErrorHandler(new FixedBackOff(intervalMillis, maxAttempts - 1L), recoverer);
    }

    /**
     * Failures of these types (or with one of them in their cause chain) go straight to the
     * recoverer without another attempt.
     */
    @SafeVarargs
    public final void addNotRetryableExceptions(Class<? extends Throwable>... types) {
        List<Class<? extends Throwable>> all = new ArrayList<>(notRetryable);
        for (Class<? extends Throwable> type : types) {
            all.add(Objects.requireNonNull(type, "type"));
        }
        notRetryable = List.copyOf(all);
    }

    /**
     * Replaces the listeners told of each failed delivery and of each recovery ({@link RetryListener}).
     *
     * @throws NullPointerException when {@code listeners} or one of them is {@code null}
     */
    public void setRetryListeners(RetryListener... listeners) {
        RetryListener[] copy = listeners.clone();
        for (RetryListener listener : copy) {
            Objects.requireNonNull(listener, "a retry listener");
        }
        retryListeners = copy;
    }

    public RecordRecoverer getRecoverer() {
        return recoverer;
    }

    @Override
    public void prepare(String topic) {
        recoverer.prepare(topic);
    }

    @Override
    public void prepareMatched(String topic) {
        recoverer.prepareMatched(topic);
    }

    @Override
    public void handle(List<KafkoRecord> records, Exception failure, FailedInvocation invocation) throws Exception {
        RetryListener[] listeners = retryListeners;
        failedDelivery(listeners, records, failure, 1);
        Exception last = failure;
        if (retryable(failure)) {
            BackOffExecution execution = backOff.start();
            int attempt = 1;
            for (long wait = execution.nextBackOff(); wait != BackOffExecution.STOP; wait = execution.nextBackOff()) {
                if (!invocation.backOff(wait)) {
                    throw new IllegalStateException("Listener '" + invocation.listenerId()
                            + "' is stopping or pausing; the failed records will be delivered again", last);
                }
                attempt++;
                try {
                    invocation.retry();
                    LOG.debug("Listener '{}' succeeded on attempt {}", invocation.listenerId(), attempt);
                    return;
                } catch (Exception e) {
                    if (invocation instanceof ListenerInvocation listener && listener.cancelledByStop()) {
                        throw e; // the stop cancelled the retry's stage: the records are delivered again, not recovered
                    }
                    last = e;
                    failedDelivery(listeners, records, e, attempt);
                    if (!retryable(e)) {
                        break;
                    }
                }
            }
        }
        for (KafkoRecord record : records) {
            try {
                recoverer.recover(record, last, invocation);
            } catch (Exception e) {
                for (RetryListener listener : listeners) {
                    try {
                        listener.recoveryFailed(record, last, e);
                    } catch (RuntimeException thrown) {
                        logListenerFailure(listener, thrown);
                    }
                }
                throw e;
            }
            for (RetryListener listener : listeners) {
                try {
                    listener.recovered(record, last);
                } catch (RuntimeException thrown) {
                    logListenerFailure(listener, thrown);
                }
            }
        }
    }

    private static void failedDelivery(RetryListener[] listeners, List<KafkoRecord> records, Exception failure,
                                       int attempt) {
        for (RetryListener listener : listeners) {
            for (KafkoRecord record : records) {
                try {
                    listener.failedDelivery(record, failure, attempt);
                } catch (RuntimeException thrown) {
                    logListenerFailure(listener, thrown);
                }
            }
        }
    }

    private static void logListenerFailure(RetryListener listener, RuntimeException thrown) {
        LOG.warn("Retry listener {} threw; the failed delivery is handled as if it had returned", listener, thrown);
    }

    private boolean retryable(Throwable failure) {
        if (!isRetryable(failure)) {
            return false;
        }
        List<Class<? extends Throwable>> types = notRetryable;
        if (types.isEmpty()) {
            return true;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            for (Class<? extends Throwable> type : types) {
                if (type.isInstance(t)) {
                    return false;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return true;
    }

    /**
     * Whether another attempt could succeed: false for conversion and argument-resolution failures, for a
     * {@link ClassCastException} or a {@link NoSuchMethodException} (spring-kafka's defaults: a generic payload whose
     * elements are not the declared type fails the same way each time), for
     * a reply that the record's headers cannot route, and for a send the log refuses whatever the attempt
     * (a {@link RecordTooLargeException}, an {@link InvalidNameException}, an {@link InvalidPartitionException}:
     * partitions are added by hand, not while a record is retried): a {@code @SendTo} reply too
     * large for its topic would otherwise run the method again, and repeat what it did, at every attempt.
     */
    public static boolean isRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof MessageConversionException || t instanceof MethodArgumentResolutionException
                    || t instanceof ClassCastException || t instanceof NoSuchMethodException
                    || t instanceof InvalidReplyHeaderException || t instanceof RecordTooLargeException
                    || t instanceof InvalidNameException || t instanceof InvalidPartitionException) {
                return false;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return true;
    }
}
