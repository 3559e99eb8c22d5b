package dev.kafko.spring.listener;

import dev.kafko.InvalidNameException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.InvalidRecordException;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
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
 * ({@link RecordTooLargeException}, {@link InvalidRecordException}, {@link InvalidNameException},
 * {@link InvalidPartitionException}) are
 * not retried: they would fail the same way (see {@link #isRetryable}); nor are the exceptions named with
 * {@link #addNotRetryableExceptions}, while those named with {@link #addRetryableExceptions} are, whatever the
 * defaults say (the first classified exception of a failure's cause chain decides). A retry that fails with an
 * exception of another type starts the back-off again, as spring-kafka's does by default
 * ({@link #setResetStateOnExceptionChange}), and a {@link #setBackOffFunction back-off function} can choose the back-off
 * by record and exception. {@link RetryListener}s are told of each failed
 * delivery and recovery ({@link #setRetryListeners}). Configure it before the containers start; the container member
 * threads then call it.
 */
public final class DefaultErrorHandler implements KafkoErrorHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultErrorHandler.class);

    private static final Map<Class<? extends Throwable>, Boolean> DEFAULT_CLASSIFICATIONS = defaults();

    /** How far down a cause chain a failure is classified: a chain whose causes loop ends there. */
    private static final int MAX_CAUSES = 100;

    private final BackOff backOff;
    private final RecordRecoverer recoverer;
    /** The classes classified, with whether they are retried; the defaults of {@link #isRetryable} first. */
    private volatile Map<Class<? extends Throwable>, Boolean> classifications = DEFAULT_CLASSIFICATIONS;
    private volatile boolean retryUnclassified = true;
    private volatile RetryListener[] retryListeners = {};
    private volatile boolean resetStateOnExceptionChange = true;
    private volatile @Nullable BiFunction<KafkoRecord, Exception, @Nullable BackOff> backOffFunction;

    /** 10 attempts in all, no delay, then log and skip. */
    public DefaultErrorHandler() {
        this(new FixedBackOff(0, 9), new LoggingRecordRecoverer());
    }

    /**
     * Retries with {@code backOff}, then logs and skips, as spring-kafka's {@code new DefaultErrorHandler(backOff)}.
     *
     * @throws NullPointerException when {@code backOff} is {@code null}
     */
    public DefaultErrorHandler(BackOff backOff) {
        this(backOff, new LoggingRecordRecoverer());
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
     * recoverer without another attempt (see {@link #addRetryableExceptions} for how a chain is classified).
     */
    @SafeVarargs
    public final void addNotRetryableExceptions(Class<? extends Throwable>... types) {
        classify(false, types);
    }

    /**
     * Failures of these types are retried, also those of the defaults that {@link #isRetryable} names (a
     * {@code ClassCastException} your listener throws on purpose, say) and after {@link #defaultFalse()}. A failure's
     * cause chain is read from the failure down: the first exception of it whose class, or nearest superclass, is
     * classified decides; a chain with none classified is retried (unless {@link #defaultFalse()}). So a not-retryable
     * exception wrapped in an unclassified one is not retried, and wrapped in a retryable one it is.
     */
    @SafeVarargs
    public final void addRetryableExceptions(Class<? extends Throwable>... types) {
        classify(true, types);
    }

    /**
     * Forgets how {@code type} is classified, one of the defaults included: its exceptions are classified by their
     * nearest classified superclass, or not at all.
     *
     * @return whether {@code type} was retried ({@code null} when it was not classified)
     */
    public synchronized @Nullable Boolean removeClassification(Class<? extends Throwable> type) {
        Objects.requireNonNull(type, "type");
        Map<Class<? extends Throwable>, Boolean> all = new LinkedHashMap<>(classifications);
        Boolean was = all.remove(type);
        classifications = Collections.unmodifiableMap(all);
        return was;
    }

    /**
     * Retries only failures with an exception classified retryable ({@link #addRetryableExceptions}) in their cause
     * chain: everything else goes straight to the recoverer.
     */
    public void defaultFalse() {
        retryUnclassified = false;
    }

    @SafeVarargs
    private synchronized void classify(boolean retryable, Class<? extends Throwable>... types) {
        Map<Class<? extends Throwable>, Boolean> all = new LinkedHashMap<>(classifications);
        for (Class<? extends Throwable> type : types) {
            all.put(Objects.requireNonNull(type, "type"), retryable);
        }
        classifications = Collections.unmodifiableMap(all);
    }

    /**
     * Whether a retry that fails with an exception of another type than the failure before it starts the back-off
     * again, its attempts counted from 1 (true by default, as in spring-kafka since 2.9): a record that failed nine
     * times on a database timeout and then fails on a constraint violation gets the constraint's own retries. "Another
     * type" is spring-kafka's rule: an exception that is not an instance of the last one's class, read through kafko's
     * wrappers ({@link ListenerExecutionFailedException}, a {@code CompletionException},
     * {@link BatchListenerFailedException}). Where spring-kafka starts again at every change, here each type starts the
     * back-off once per delivery, so that a record whose retries fail by turns with two exceptions cannot be retried for
     * ever. With false, the attempts of one back-off count every failure, whatever it threw.
     */
    public void setResetStateOnExceptionChange(boolean resetStateOnExceptionChange) {
        this.resetStateOnExceptionChange = resetStateOnExceptionChange;
    }

    /**
     * Chooses the back-off of a failed delivery, and of a back-off started again by an exception of another type
     * ({@link #setResetStateOnExceptionChange}), from the record (a batch's first) and the failure as the handler got
     * it; where the function returns {@code null} or throws (a warning logged), the back-off given at construction is
     * used. {@code null} removes the function.
     */
    public void setBackOffFunction(@Nullable BiFunction<KafkoRecord, Exception, @Nullable BackOff> backOffFunction) {
        this.backOffFunction = backOffFunction;
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

    /** The listeners told of each failed delivery and of each recovery, in the order they are told. */
    public List<RetryListener> getRetryListeners() {
        return List.of(retryListeners);
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
        // the records the listener got (a container interceptor's in place of those polled), as spring-kafka's
        // error handler is given them: those recovered and told of; the retries deliver those polled again
        Supplier<List<KafkoRecord>> delivered = invocation instanceof ListenerInvocation listener
                ? listener::delivered : () -> records;
        failedDelivery(listeners, delivered.get(), failure, 1);
        Exception last = failure;
        if (retryable(failure)) {
            BackOffExecution execution = backOff(records, failure).start();
            boolean resetting = resetStateOnExceptionChange;
            Throwable lastThrown = ListenerExecutionFailedException.thrown(failure);
            Set<Class<?>> backedOff = new HashSet<>(Set.of(lastThrown.getClass())); // the types given a back-off
            int attempt = 1;
            for (long wait = execution.nextBackOff(); wait != BackOffExecution.STOP; wait = execution.nextBackOff()) {
                if (!invocation.backOff(wait)) {
                    throw new IllegalStateException("Listener '" + invocation.listenerId()
                            + "' is stopping, pausing or seeking; the failed records will be delivered again", last);
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
                    Throwable thrown = ListenerExecutionFailedException.thrown(e);
                    if (resetting && !thrown.getClass().isInstance(lastThrown) && backedOff.add(thrown.getClass())) {
                        execution = backOff(records, e).start(); // another type: its own back-off, once
                        attempt = 1;
                    }
                    lastThrown = thrown;
                    failedDelivery(listeners, delivered.get(), e, attempt);
                    if (!retryable(e)) {
                        break;
                    }
                }
            }
        }
        for (KafkoRecord record : delivered.get()) {
            try {
                recoverer.recover(record, last, invocation);
            } catch (Exception e) {
                for (RetryListener listener : listeners) {
                    try {
                        listener.recoveryFailed(record, last, e);
                    } catch (RuntimeException | Error thrown) {
                        logListenerFailure(listener, thrown);
                    }
                }
                throw e;
            }
            for (RetryListener listener : listeners) {
                try {
                    listener.recovered(record, last);
                } catch (RuntimeException | Error thrown) {
                    logListenerFailure(listener, thrown);
                }
            }
        }
    }

    private BackOff backOff(List<KafkoRecord> records, Exception failure) {
        BiFunction<KafkoRecord, Exception, @Nullable BackOff> function = backOffFunction;
        if (function == null || records.isEmpty()) {
            return backOff;
        }
        try {
            BackOff chosen = function.apply(records.get(0), failure);
            return chosen != null ? chosen : backOff;
        } catch (RuntimeException e) {
            LOG.warn("The back-off function of an error handler threw; the failed delivery uses the handler's back-off", e);
            return backOff;
        }
    }

    private static void failedDelivery(RetryListener[] listeners, List<KafkoRecord> records, Exception failure,
                                       int attempt) {
        for (RetryListener listener : listeners) {
            for (KafkoRecord record : records) {
                try {
                    listener.failedDelivery(record, failure, attempt);
                } catch (RuntimeException | Error thrown) {
                    logListenerFailure(listener, thrown);
                }
            }
        }
    }

    /**
     * A listener's failure, an {@link Error} included (a test's failed assertion, a class missing from its code), is
     * logged and changes nothing; but the JVM's own trouble (out of memory), which fails the member as the listener
     * would.
     */
    private static void logListenerFailure(RetryListener listener, Throwable thrown) {
        if (thrown instanceof VirtualMachineError fatal && !(fatal instanceof StackOverflowError)) {
            throw fatal;
        }
        LOG.warn("Retry listener {} threw; the failed delivery is handled as if it had returned", listener, thrown);
    }

    private boolean retryable(Throwable failure) {
        return classify(failure, classifications, retryUnclassified);
    }

    /**
     * Reads the cause chain from the failure down: the first exception whose class, or nearest superclass, is
     * classified decides; {@code unclassified} when none is (a chain whose causes loop is read {@value #MAX_CAUSES} deep).
     */
    private static boolean classify(Throwable failure, Map<Class<? extends Throwable>, Boolean> classified,
                                    boolean unclassified) {
        int depth = 0;
        for (Throwable t = failure; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
            for (Class<?> c = t.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
                Boolean retryable = classified.get(c);
                if (retryable != null) {
                    return retryable;
                }
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return unclassified;
    }

    private static Map<Class<? extends Throwable>, Boolean> defaults() {
        Map<Class<? extends Throwable>, Boolean> defaults = new LinkedHashMap<>();
        for (Class<? extends Throwable> type : List.of(MessageConversionException.class,
                MethodArgumentResolutionException.class, ClassCastException.class, NoSuchMethodException.class,
                InvalidReplyHeaderException.class, RecordTooLargeException.class, InvalidRecordException.class,
                InvalidNameException.class,
                InvalidPartitionException.class)) {
            defaults.put(type, Boolean.FALSE);
        }
        return Collections.unmodifiableMap(defaults);
    }

    /**
     * Whether another attempt could succeed: false for conversion and argument-resolution failures, for a
     * {@link ClassCastException} or a {@link NoSuchMethodException} (spring-kafka's defaults: a generic payload whose
     * elements are not the declared type fails the same way each time), for
     * a reply that the record's headers cannot route, and for a send the log refuses whatever the attempt
     * (a {@link RecordTooLargeException}, an {@link InvalidRecordException} (a record without a key to a compacted
     * topic), an {@link InvalidNameException}, an {@link InvalidPartitionException}:
     * partitions are added by hand, not while a record is retried): a {@code @SendTo} reply too
     * large for its topic would otherwise run the method again, and repeat what it did, at every attempt.
     */
    public static boolean isRetryable(Throwable failure) {
        return classify(failure, DEFAULT_CLASSIFICATIONS, true);
    }
}
