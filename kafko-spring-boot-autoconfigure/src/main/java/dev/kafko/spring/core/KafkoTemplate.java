package dev.kafko.spring.core;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.InvalidRecordException;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.OutgoingRecord;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.GuardedInstrumentation;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.support.LoggingProducerListener;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.support.StackTraceLimiter;
import dev.kafko.spring.support.micrometer.KafkoRecordSenderContext;
import dev.kafko.spring.support.micrometer.KafkoTemplateObservation;
import dev.kafko.spring.support.micrometer.KafkoTemplateObservationConvention;
import dev.kafko.spring.transaction.KafkoTransaction;
import dev.kafko.spring.transaction.Transactions;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanNameAware;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;

/**
 * Sends records to kafko topics from any number of threads at once, converting keys and values
 * with a {@link RecordMessageConverter}; it keeps one producer per topic.
 *
 * <pre>{@code
 * template.send("orders", order.id(), order).join();        // JSON value, String key
 * template.send(MessageBuilder.withPayload(order)
 *         .setHeader(KafkoHeaders.TOPIC, "orders").build());
 * }</pre>
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class KafkoTemplate<K, V> implements KafkoOperations<K, V>, BeanNameAware {

    /** How long {@link #receive(String, int, long)} waits for its record: spring-kafka's default. */
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(KafkoTemplate.class);

    private final LogBackend backend;
    private final RecordMessageConverter converter;
    private final TemplateProducers producers;
    private volatile @Nullable String defaultTopic;
    private volatile ProducerListener<K, V> producerListener = new LoggingProducerListener<>();
    /** A producer listener failing on every send logs its stack trace once a minute, not each time. */
    private final StackTraceLimiter listenerFailureTraces = new StackTraceLimiter();
    private volatile KafkoInstrumentation instrumentation = KafkoInstrumentation.NOOP;
    /** Null until one is set: none, as {@link ObservationRegistry#NOOP}, which need not be initialized then. */
    private volatile @Nullable ObservationRegistry observationRegistry;
    private volatile @Nullable KafkoTemplateObservationConvention observationConvention;
    private String beanName = "kafkoTemplate";
    private volatile boolean transactional;
    private volatile boolean allowNonTransactional;
    /** The transaction of {@link #executeInTransaction} running on this thread. */
    private final ThreadLocal<KafkoTransaction> localTransaction = new ThreadLocal<>();

    public KafkoTemplate(LogBackend backend, RecordMessageConverter converter) {
        this.backend = backend;
        this.converter = converter;
        this.producers = new TemplateProducers(backend);
    }

    /**
     * The topic of {@link #sendDefault}; {@code null} for none.
     *
     * @throws dev.kafko.InvalidNameException when it is not a legal topic name
     */
    public void setDefaultTopic(@Nullable String defaultTopic) {
        if (defaultTopic != null) {
            backend.checkTopicName(defaultTopic);
        }
        this.defaultTopic = defaultTopic;
    }

    public @Nullable String getDefaultTopic() {
        return defaultTopic;
    }

    /** The log this template writes to. */
    public LogBackend getBackend() {
        return backend;
    }

    /** What receives the duration of every send ({@link #setInstrumentation}); {@code NOOP} by default. */
    public KafkoInstrumentation getInstrumentation() {
        return instrumentation;
    }

    /** Told about every send's outcome; by default failures are logged. */
    public void setProducerListener(ProducerListener<K, V> producerListener) {
        this.producerListener = producerListener;
    }

    /**
     * Receives the duration of every send (Micrometer's timer, when configured); what it throws is logged and
     * changes no send's outcome.
     */
    public void setInstrumentation(KafkoInstrumentation instrumentation) {
        this.instrumentation = GuardedInstrumentation.of(instrumentation);
    }

    /**
     * Observes every send ({@link KafkoTemplateObservation}): the observation current on the sending
     * thread is its parent, and a propagating handler writes the trace context into the record's headers,
     * for the listener's observation to continue. {@link ObservationRegistry#NOOP} (the default) observes
     * nothing.
     */
    public void setObservationRegistry(ObservationRegistry observationRegistry) {
        this.observationRegistry = Objects.requireNonNull(observationRegistry, "observationRegistry");
    }

    /** Replaces the default keys and names of the send observations; {@code null} for the default. */
    public void setObservationConvention(@Nullable KafkoTemplateObservationConvention observationConvention) {
        this.observationConvention = observationConvention;
    }

    /** The bean name, the {@code kafko.template.name} of the send observations. */
    @Override
    public void setBeanName(String name) {
        this.beanName = name;
        producers.templateName(name);
    }

    /**
     * Makes every send join the transaction running on the sending thread (spring-kafka's template with a
     * transaction id prefix): that of {@link #executeInTransaction}, of a {@code KafkoTransactionManager}, or of any
     * other Spring transaction manager (a JDBC or JPA one), after whose commit the records are written. Its records
     * are written when the transaction commits, each partition's all or none, and dropped when it rolls back. A send
     * outside any transaction is refused unless {@link #setAllowNonTransactional}.
     */
    public void setTransactional(boolean transactional) {
        this.transactional = transactional;
    }

    @Override
    public boolean isTransactional() {
        return transactional;
    }

    /**
     * Lets a transactional template send outside a transaction too, each record written at once as by a template
     * that is not transactional (spring-kafka's {@code allowNonTransactional}). Off by default.
     */
    public void setAllowNonTransactional(boolean allowNonTransactional) {
        this.allowNonTransactional = allowNonTransactional;
    }

    public boolean isAllowNonTransactional() {
        return allowNonTransactional;
    }

    @Override
    public boolean inTransaction() {
        return transactional && (localTransaction.get() != null || Transactions.active(backend));
    }

    /**
     * {@inheritDoc} The records the callback sends are written when it returns, each partition's all or none, and
     * dropped when it throws. A transaction of a transaction manager running on the thread is not joined: the
     * callback's sends are a transaction of their own, as in spring-kafka.
     *
     * @throws IllegalStateException when the template is not transactional, or inside another
     *     {@code executeInTransaction} of this template
     * @throws dev.kafko.spring.transaction.KafkoTransactionException when the commit fails
     */
    @Override
    public <T> @Nullable T executeInTransaction(OperationsCallback<K, V, T> callback) {
        Objects.requireNonNull(callback, "callback");
        if (!transactional) {
            throw new IllegalStateException("executeInTransaction needs a transactional template"
                    + " (kafko.template.transactional=true, or KafkoTemplate.setTransactional(true))");
        }
        if (localTransaction.get() != null) {
            throw new IllegalStateException("Nested calls to executeInTransaction are not allowed");
        }
        KafkoTransaction transaction = Transactions.local();
        localTransaction.set(transaction);
        T result;
        try {
            result = callback.doInOperations(this);
        } catch (Throwable e) {
            // a checked exception too (thrown through the callback by Kotlin, or sneakily): nothing stays held
            transaction.rollback();
            throw e;
        } finally {
            localTransaction.remove();
        }
        transaction.commit();
        return result;
    }

    /** The transaction a send on this thread joins, or null; refuses a send outside one unless allowed. */
    private @Nullable KafkoTransaction transaction() {
        KafkoTransaction local = localTransaction.get();
        KafkoTransaction joined = local != null ? local : Transactions.current(backend);
        // a send from a transaction's completion (an AFTER_COMMIT event listener) can join nothing: written at once
        if (joined == null && !allowNonTransactional && !Transactions.completing()) {
            throw new IllegalStateException("No transaction is in process for transactional template '" + beanName
                    + "': send from executeInTransaction, from a @Transactional method, or from a listener whose"
                    + " method is one; or let it send outside one (setAllowNonTransactional)");
        }
        return joined;
    }

    @Override
    public CompletableFuture<SendResult<K, V>> send(String topic, @Nullable V value) {
        return doSend(topic, null, null, value, null, List.of());
    }

    @Override
    public CompletableFuture<SendResult<K, V>> send(String topic, @Nullable K key, @Nullable V value) {
        return doSend(topic, null, key, value, null, List.of());
    }

    @Override
    public CompletableFuture<SendResult<K, V>> send(String topic, @Nullable Integer partition, @Nullable K key,
                                                    @Nullable V value) {
        return doSend(topic, partition, key, value, null, List.of());
    }

    @Override
    public CompletableFuture<SendResult<K, V>> send(String topic, @Nullable Integer partition, @Nullable Long timestamp,
                                                    @Nullable K key, @Nullable V value) {
        requireTimestamp(timestamp, "a record's timestamp");
        return doSend(topic, partition, key, value, timestamp, List.of());
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<SendResult<K, V>> send(Message<?> message) {
        MessageHeaders headers = message.getHeaders();
        String topic = topicHeader(headers.get(KafkoHeaders.TOPIC));
        if (topic == null) {
            topic = requireDefaultTopic("a message without a " + KafkoHeaders.TOPIC + " header");
        }
        Integer partition = headers.get(KafkoHeaders.PARTITION, Integer.class);
        Long timestamp = headers.get(KafkoHeaders.TIMESTAMP, Long.class);
        requireTimestamp(timestamp, "the " + KafkoHeaders.TIMESTAMP + " header");
        K key = (K) headers.get(KafkoHeaders.KEY);
        Object payload = message.getPayload();
        V value = payload instanceof KafkoNull ? null : (V) payload;
        return doSend(topic, partition, key, value, timestamp, converter.recordHeaders(headers));
    }

    /**
     * The topic a message names: its {@link KafkoHeaders#TOPIC} header as text, or as the UTF-8 of its bytes (a reply
     * topic received as {@code byte[]}, as spring-kafka's template takes it); {@code null} for none.
     *
     * @throws IllegalStateException when the header is of another type
     */
    private static @Nullable String topicHeader(@Nullable Object header) {
        if (header == null || header instanceof String) {
            return (String) header;
        }
        if (header instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        throw new IllegalStateException(KafkoHeaders.TOPIC + " must be a String or byte[], not "
                + header.getClass().getName());
    }

    /** A timestamp given with a send: none (null), or epoch millis, never negative. */
    private static void requireTimestamp(@Nullable Long timestamp, String what) {
        if (timestamp != null && timestamp < 0) {
            throw new IllegalArgumentException(what + " must not be negative, was " + timestamp);
        }
    }

    @Override
    public CompletableFuture<SendResult<K, V>> sendDefault(@Nullable V value) {
        return send(requireDefaultTopic("sendDefault"), value);
    }

    @Override
    public CompletableFuture<SendResult<K, V>> sendDefault(@Nullable K key, @Nullable V value) {
        return send(requireDefaultTopic("sendDefault"), key, value);
    }

    @Override
    public CompletableFuture<SendResult<K, V>> sendDefault(@Nullable Integer partition, @Nullable K key,
                                                           @Nullable V value) {
        return send(requireDefaultTopic("sendDefault"), partition, key, value);
    }

    @Override
    public CompletableFuture<SendResult<K, V>> sendDefault(@Nullable Integer partition, @Nullable Long timestamp,
                                                           @Nullable K key, @Nullable V value) {
        return send(requireDefaultTopic("sendDefault"), partition, timestamp, key, value);
    }

    private String requireDefaultTopic(String what) {
        String topic = defaultTopic;
        if (topic == null || topic.isBlank()) {
            throw new IllegalStateException("No default topic for " + what
                    + ": set kafko.template.default-topic (or KafkoTemplate.setDefaultTopic)");
        }
        return topic;
    }

    private CompletableFuture<SendResult<K, V>> doSend(String topic, @Nullable Integer partition, @Nullable K key,
                                                       @Nullable V value, @Nullable Long timestamp,
                                                       List<Header> extraHeaders) {
        Objects.requireNonNull(topic, "topic");
        KafkoTransaction transaction = transactional ? transaction() : null;
        KafkoInstrumentation timing = instrumentation;
        long start = timing == KafkoInstrumentation.NOOP ? 0L : System.nanoTime();
        ObservationRegistry registry = observationRegistry;
        List<Header> propagated = List.of();
        Observation observation = null;
        if (registry != null && !registry.isNoop()) {
            propagated = new ArrayList<>(2);
            observation = startObservation(registry, topic, partition, propagated);
        }
        byte[] keyBytes;
        byte[] valueBytes;
        Headers headers;
        long ts;
        CompletableFuture<RecordPosition> appended;
        try {
            keyBytes = converter.keyBytes(key);
            valueBytes = converter.valueBytes(value);
            headers = recordHeaders(extraHeaders, converter.typeHeader(value), propagated);
            ts = timestamp != null && timestamp != OutgoingRecord.NO_TIMESTAMP ? timestamp
                    : backend.currentTimeMillis();
            appended = transaction == null ? append(topic, partition, keyBytes, valueBytes, headers, ts)
                    : hold(transaction, topic, partition, OutgoingRecord.of(keyBytes, valueBytes, headers, ts));
        } catch (RecordTooLargeException | InvalidRecordException e) {
            // as Kafka's producer reports them (the second a broker's refusal of a keyless record to a compacted
            // topic): through the future (and the producer listener)
            if (transaction != null) {
                transaction.refuse(e);
            }
            appended = CompletableFuture.failedFuture(e);
            ts = timestamp != null ? timestamp : OutgoingRecord.NO_TIMESTAMP;
        } catch (RuntimeException e) {
            if (transaction != null) {
                transaction.refuse(e);
            }
            complete(topic, partition, key, value, start, e, observation);
            throw e;
        }
        Completion completion = new Completion(topic, partition, key, value, ts, start, observation);
        appended.whenComplete(completion);
        return transaction == null ? completion.result : transaction.guard(completion.result);
    }

    /**
     * Holds a record in {@code transaction} after the checks a send makes at the call: the topic exists (or is
     * created), the partition is one of it, the record fits.
     */
    private CompletableFuture<RecordPosition> hold(KafkoTransaction transaction, String topic,
                                                   @Nullable Integer partition, OutgoingRecord record) {
        producers.get(topic).checkRecord(partition, record);
        return transaction.add(this::writeBatch, topic, partition, record);
    }

    /** Writes a committing transaction's records of one topic, as {@link #append} writes one record. */
    private CompletableFuture<List<RecordPosition>> writeBatch(String topic, List<OutgoingRecord> records,
                                                               int[] partitions) {
        BackendProducer producer = producers.get(topic);
        try {
            return producer.sendBatch(records, partitions);
        } catch (UnknownTopicException e) {
            producers.forget(topic, producer);
            return producers.get(topic).sendBatch(records, partitions);
        }
    }

    private Observation startObservation(ObservationRegistry registry, String topic, @Nullable Integer partition,
                                         List<Header> propagated) {
        return SendObservation.start(registry, observationConvention, beanName, topic, partition, propagated);
    }

    /**
     * Starts a send's observation. A class of its own, loaded only when sends are observed: the context it makes
     * (and the classes that one needs) are not among the template's methods, which the container introspects
     * at start-up.
     */
    private static final class SendObservation {

        private SendObservation() {
        }

        static Observation start(ObservationRegistry registry, @Nullable KafkoTemplateObservationConvention convention,
                                 String beanName, String topic, @Nullable Integer partition, List<Header> propagated) {
            return KafkoTemplateObservation.TEMPLATE_OBSERVATION.start(convention,
                    KafkoTemplateObservation.DefaultKafkoTemplateObservationConvention.INSTANCE,
                    () -> new KafkoRecordSenderContext(beanName, topic, partition, propagated), registry);
        }
    }

    /**
     * The message's headers, then the type of the value and the headers an observation propagates, each of
     * which replaces the message's headers of its name.
     */
    private static Headers recordHeaders(List<Header> extraHeaders, @Nullable Header type, List<Header> propagated) {
        if (type == null && propagated.isEmpty()) {
            return Headers.of(extraHeaders);
        }
        List<Header> headers = new ArrayList<>(extraHeaders.size() + 1 + propagated.size());
        for (Header h : extraHeaders) {
            if (!(type != null && h.key().equals(type.key())) && !named(propagated, h.key())) {
                headers.add(h);
            }
        }
        if (type != null) {
            headers.add(type);
        }
        headers.addAll(propagated);
        return Headers.of(headers);
    }

    private static boolean named(List<Header> headers, String key) {
        for (Header h : headers) {
            if (h.key().equals(key)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Turns the engine's outcome of one send into a {@link SendResult}; runs where the append completes. The send's
     * future fails with the failure itself (as Kafka's producer callback and a {@code completeExceptionally} hand it
     * over), never with a {@code CompletionException} around it, so a callback on the future sees the exception the
     * README names.
     */
    private final class Completion implements BiConsumer<RecordPosition, Throwable> {
        final CompletableFuture<SendResult<K, V>> result = new CompletableFuture<>();
        private final String topic;
        private final @Nullable Integer partition;
        private final @Nullable K key;
        private final @Nullable V value;
        private final long timestamp;
        private final long start;
        private final @Nullable Observation observation;

        Completion(String topic, @Nullable Integer partition, @Nullable K key, @Nullable V value, long timestamp,
                   long start, @Nullable Observation observation) {
            this.topic = topic;
            this.partition = partition;
            this.key = key;
            this.value = value;
            this.timestamp = timestamp;
            this.start = start;
            this.observation = observation;
        }

        @Override
        public void accept(RecordPosition position, @Nullable Throwable failure) {
            try {
                if (failure != null) {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    if (cause instanceof UnknownTopicException) {
                        producers.forget(topic, null);
                    }
                    complete(topic, partition, key, value, start, cause, observation);
                    result.completeExceptionally(cause);
                } else {
                    result.complete(succeeded(position));
                }
            } catch (RuntimeException | Error e) {
                // what told of the outcome failed: the future reports that, and is never left incomplete
                result.completeExceptionally(e);
                if (e instanceof VirtualMachineError fatal) {
                    throw fatal;
                }
            }
        }

        private SendResult<K, V> succeeded(RecordPosition position) {
            SendResult<K, V> sent = new SendResult<>(topic, position.partition(), position.offset(), timestamp,
                    key, value);
            KafkoInstrumentation timing = instrumentation;
            if (timing != KafkoInstrumentation.NOOP) {
                timing.sendCompleted(topic, System.nanoTime() - start, null);
            }
            if (observation != null) {
                observation.stop();
            }
            try {
                producerListener.onSuccess(sent);
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError fatal) {
                    throw fatal;
                }
                // the record is written: what the listener does with the news does not change that
                listenerFailureTraces.error(LOG, "onSuccess", e, "The producer listener of template '{}' failed on the"
                        + " send to {}-{} at offset {}; the send succeeded", beanName, topic, sent.partition(),
                        sent.offset());
            }
            return sent;
        }
    }

    private void complete(String topic, @Nullable Integer partition, @Nullable K key, @Nullable V value, long start,
                          Throwable failure, @Nullable Observation observation) {
        Objects.requireNonNull(topic, "topic");
        KafkoInstrumentation timing = instrumentation;
        if (timing != KafkoInstrumentation.NOOP) {
            timing.sendCompleted(topic, System.nanoTime() - start, failure);
        }
        if (observation != null) {
            observation.error(failure);
            observation.stop();
        }
        try {
            producerListener.onError(topic, partition, key, value, failure);
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            // the send's own failure is what the caller gets
            listenerFailureTraces.error(LOG, "onError", e, "The producer listener of template '{}' failed on a failed"
                    + " send to {}", beanName, topic);
        }
    }

    @Override
    public @Nullable KafkoRecord receive(String topic, int partition, long offset) {
        return receive(topic, partition, offset, DEFAULT_POLL_TIMEOUT);
    }

    @Override
    public @Nullable KafkoRecord receive(String topic, int partition, long offset, Duration pollTimeout) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(pollTimeout, "pollTimeout");
        return backend.read(topic, partition, offset, pollTimeout);
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return backend.partitions(Objects.requireNonNull(topic, "topic"));
    }

    /** {@inheritDoc} The template's handle on a deleted topic is dropped. */
    @Override
    public void flush() {
        producers.flush();
    }

    /**
     * Sends through the topic's cached producer; when the topic was deleted since that producer was
     * made, forgets it and sends once more through a fresh one, which finds the topic again if it was
     * created again (or creates it, under {@code kafko.auto-create-topics}).
     */
    private CompletableFuture<RecordPosition> append(String topic, @Nullable Integer partition, byte @Nullable [] key,
                                                     byte @Nullable [] value, Headers headers, long ts) {
        BackendProducer producer = producers.get(topic);
        try {
            return producer.send(partition, key, value, headers, ts);
        } catch (UnknownTopicException e) {
            producers.forget(topic, producer);
            return producers.get(topic).send(partition, key, value, headers, ts);
        }
    }

    /** How many topics the template holds a producer of (for tests). */
    int cachedProducers() {
        return producers.size();
    }
}
