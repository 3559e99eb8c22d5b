package dev.kafko.spring.requestreply;

import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.support.Timeouts;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Sends requests through a {@link KafkoTemplate} and completes a future with each one's reply, as
 * spring-kafka's {@code ReplyingKafkaTemplate}: a request carries {@link KafkoHeaders#REPLY_TOPIC} (this
 * template's reply topic) and a fresh {@link KafkoHeaders#CORRELATION_ID}, which a {@code @KafkoListener}
 * with {@code @SendTo} (naming no topic) copies to its reply. A thread of this template reads the reply topic
 * from where it ended at {@link #start()}, as a group of its own that commits nothing, and completes the
 * future whose correlation id a reply carries, with the reply's value converted to {@code R}; replies to
 * other requesters are passed over.
 *
 * <pre>{@code
 * @Bean
 * ReplyingKafkoTemplate<String, Quote, Price> prices(KafkoTemplate<String, Quote> kafkoTemplate,
 *         LogBackend backend, RecordMessageConverter converter) {
 *     return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "prices.replies", Price.class);
 * }
 *
 * Price price = prices.sendAndReceive("quotes", quote.id(), quote).get(5, TimeUnit.SECONDS);
 * }</pre>
 *
 * A {@code SmartLifecycle}: a bean starts with the context and stops with it; otherwise call {@link #start()}
 * and {@link #stop()}. A stop fails the requests still waiting, with a {@link KafkoException} saying the template
 * stopped. A listener that throws sends no reply: its request fails at its timeout, unless the listener's
 * {@code errorHandler} returns a reply. A reply topic deleted while the template runs is
 * read again, from its start, once it exists (created again at once where it is declared or topics are created on
 * use). A future its caller ends itself ({@code cancel}, {@code orTimeout}) is no longer waited for. The futures
 * complete on the template's thread ({@code kafko-replies-<topic>}; a timeout on a thread of the common pool): a
 * callback that waits there for another reply
 * holds up every reply until that wait times out, so chain such work with the {@code *Async} methods. Thread-safe.
 *
 * @param <K> the request's key type
 * @param <V> the request's value type
 * @param <R> the reply's value type
 */
public class ReplyingKafkoTemplate<K, V, R> implements SmartLifecycle, DisposableBean {

    private static final Logger LOG = LoggerFactory.getLogger(ReplyingKafkoTemplate.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** How long {@link #stop()} waits for the reply thread to end. */
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);
    private static final Duration POLL_TIMEOUT = Duration.ofSeconds(1);

    private final KafkoTemplate<K, V> template;
    private final LogBackend backend;
    private final RecordMessageConverter converter;
    private final String replyTopic;
    private final Class<R> replyType;
    private final String group;
    private final Map<String, RequestReplyFuture<K, V, R>> pending = new ConcurrentHashMap<>();
    private volatile Duration defaultReplyTimeout = Duration.ofSeconds(5);
    private volatile int phase;
    private volatile boolean running;
    private volatile @Nullable Thread reader;
    private @Nullable BackendConsumer consumer;
    /** Why the reply thread ended on its own, or null. */
    private volatile @Nullable Throwable readerFailure;

    /**
     * @param template sends the requests
     * @param backend where the replies are read (the auto-configured {@link LogBackend} bean)
     * @param converter converts the replies (the auto-configured {@link RecordMessageConverter} bean)
     * @param replyTopic the topic the replies come to, created at {@link #start()} when it does not exist and
     *     {@code kafko.auto-create-topics} allows
     * @param replyType what each reply's value is converted to ({@code String}, {@code byte[]} or a JSON type)
     * @throws dev.kafko.InvalidNameException when {@code replyTopic} breaks the naming rule
     */
    public ReplyingKafkoTemplate(KafkoTemplate<K, V> template, LogBackend backend, RecordMessageConverter converter,
                                 String replyTopic, Class<R> replyType) {
        this.template = Objects.requireNonNull(template, "template");
        this.backend = Objects.requireNonNull(backend, "backend");
        this.converter = Objects.requireNonNull(converter, "converter");
        this.replyTopic = Objects.requireNonNull(replyTopic, "replyTopic");
        this.replyType = Objects.requireNonNull(replyType, "replyType");
        Kafko.checkName("topic", replyTopic);
        this.group = "kafko-replies-" + INSTANCES.incrementAndGet() + "-" + Long.toHexString(System.nanoTime());
    }

    /** The timeout of the requests that name none; 5 seconds unless set. */
    public void setDefaultReplyTimeout(Duration timeout) {
        requirePositive(timeout);
        this.defaultReplyTimeout = timeout;
    }

    public Duration getDefaultReplyTimeout() {
        return defaultReplyTimeout;
    }

    public String getReplyTopic() {
        return replyTopic;
    }

    /** Sends {@code value} to {@code topic} and waits up to the default timeout for its reply. */
    public RequestReplyFuture<K, V, R> sendAndReceive(String topic, @Nullable V value) {
        return sendAndReceive(topic, null, null, value, defaultReplyTimeout);
    }

    /** Sends a keyed request and waits up to the default timeout for its reply. */
    public RequestReplyFuture<K, V, R> sendAndReceive(String topic, @Nullable K key, @Nullable V value) {
        return sendAndReceive(topic, null, key, value, defaultReplyTimeout);
    }

    /**
     * Sends a request and waits up to {@code replyTimeout} for its reply.
     *
     * @param partition the request's partition, or {@code null} to route it by its key
     * @throws IllegalStateException when the template is not running
     * @throws IllegalArgumentException when {@code replyTimeout} is not positive
     * @throws RuntimeException what the template throws for a request it refuses at once (an
     *     {@link dev.kafko.InvalidNameException} for a topic name outside the rule, an
     *     {@link dev.kafko.InvalidPartitionException} for a partition its topic lacks, the converter's exception for
     *     a value it cannot write), as it is; nothing then waits for a reply
     */
    public RequestReplyFuture<K, V, R> sendAndReceive(String topic, @Nullable Integer partition, @Nullable K key,
                                                      @Nullable V value, Duration replyTimeout) {
        Objects.requireNonNull(topic, "topic");
        MessageBuilder<?> request = MessageBuilder.withPayload(value == null ? KafkoNull.INSTANCE : value)
                .setHeader(KafkoHeaders.TOPIC, topic);
        if (key != null) {
            request.setHeader(KafkoHeaders.KEY, key);
        }
        if (partition != null) {
            request.setHeader(KafkoHeaders.PARTITION, partition);
        }
        return sendAndReceive(request.build(), replyTimeout);
    }

    /** Sends {@code request} (its topic, key and partition in {@link KafkoHeaders}) and waits up to the default timeout. */
    public RequestReplyFuture<K, V, R> sendAndReceive(Message<?> request) {
        return sendAndReceive(request, defaultReplyTimeout);
    }

    /**
     * Sends {@code request} with this template's reply topic and a fresh correlation id (replacing any the
     * message carries) and waits up to {@code replyTimeout} for the reply.
     *
     * @throws IllegalStateException when the template is not running, or the message names no topic and the
     *     template has no default topic
     * @throws IllegalArgumentException when {@code replyTimeout} is not positive
     * @throws RuntimeException what the template throws for a request it refuses at once, as it is (see
     *     {@link #sendAndReceive(String, Integer, Object, Object, Duration)})
     */
    public RequestReplyFuture<K, V, R> sendAndReceive(Message<?> request, Duration replyTimeout) {
        Objects.requireNonNull(request, "request");
        requirePositive(replyTimeout);
        requireRunning();
        long timeoutNanos = Timeouts.saturatedNanos(replyTimeout); // before the send: nothing may fail once it is made
        String correlationId = UUID.randomUUID().toString();
        Message<?> message = MessageBuilder.fromMessage(request).setHeader(KafkoHeaders.REPLY_TOPIC, replyTopic)
                .setHeader(KafkoHeaders.CORRELATION_ID, correlationId.getBytes(StandardCharsets.UTF_8)).build();
        // where the request goes, for a timeout's message: its header, or the template's default topic
        Object topicHeader = message.getHeaders().get(KafkoHeaders.TOPIC);
        String requestTopic = topicHeader instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8)
                : topicHeader != null ? topicHeader.toString() : template.getDefaultTopic();
        RequestReplyFuture<K, V, R> future = new RequestReplyFuture<>();
        pending.put(correlationId, future);
        if (!running) {
            // a stop came after the check above and failed the requests waiting before this one was among them
            pending.remove(correlationId, future);
            throw notRunning();
        }
        CompletableFuture<SendResult<K, V>> sent;
        try {
            sent = template.send(message);
        } catch (RuntimeException e) {
            pending.remove(correlationId);
            throw e;
        }
        if (sent == null) {
            // a mock of the template (a test's @MockitoBean KafkoTemplate<?, ?>): nothing was sent and no reply comes
            pending.remove(correlationId, future);
            throw new IllegalStateException("The request to '" + requestTopic + "' went to a KafkoTemplate that"
                    + " returned no future (a mock of the template bean? the ReplyingKafkoTemplate sends through it)");
        }
        sent.whenComplete((result, failure) -> {
            if (failure == null) {
                future.sendFuture().complete(result);
                return;
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            future.sendFuture().completeExceptionally(cause);
            if (pending.remove(correlationId, future)) {
                future.completeExceptionally(cause);
            }
        });
        // a timer cancelled (and dropped from the timer queue) once the future completes: a long timeout keeps no
        // answered request in memory until it ends
        CompletableFuture<Boolean> timer = new CompletableFuture<>();
        timer.thenAccept(timedOut -> {
            // an answered request's timer ends here, on the thread that answered it: no hop to another thread
            if (timedOut && pending.remove(correlationId, future)) {
                // on the common pool, not on the JDK's one timer thread: the caller's stages run where the future
                // completes, and one that blocked there would hold back every timeout of the JVM
                CompletableFuture.runAsync(() -> timedOut(future, new KafkoReplyTimeoutException(
                        "no reply on '" + replyTopic + "' within " + replyTimeout + " to the request " + correlationId
                        + " sent to '" + requestTopic + "'")));
            }
        });
        timer.completeOnTimeout(true, timeoutNanos, TimeUnit.NANOSECONDS);
        future.whenComplete((reply, failure) -> {
            // a future its caller ended (cancel, orTimeout, complete) waits no more: no reply would remove it
            pending.remove(correlationId, future);
            timer.complete(false);
        });
        return future;
    }


    /** How many requests wait for their replies now. */
    public int pendingReplies() {
        return pending.size();
    }

    /**
     * Starts reading the reply topic from its end: a reply to a request sent after this returns is not missed.
     *
     * @throws dev.kafko.UnknownTopicException when the reply topic does not exist and may not be created
     */
    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        readerFailure = null;
        BackendConsumer c = open(true);
        consumer = c;
        Thread t = new Thread(() -> read(c), "kafko-replies-" + replyTopic);
        t.setDaemon(true);
        reader = t;
        running = true;
        t.start();
    }

    /**
     * A consumer of the reply topic (created where {@code kafko.topics} declares it or topics are created on use),
     * in this template's group, which commits nothing: it reads from the topic's end now ({@code fromEnd}), or from
     * the start of a topic made again after a delete; a partition added later from its start.
     *
     * @throws dev.kafko.UnknownTopicException when the reply topic does not exist and may not be created
     */
    private BackendConsumer open(boolean fromEnd) {
        backend.ensureTopic(replyTopic, 1);
        Map<Integer, Long> ends = fromEnd ? backend.endOffsets(replyTopic) : Map.of();
        BackendConsumer[] self = new BackendConsumer[1];
        BackendConsumer c = backend.groupConsumer(replyTopic, group, 500, new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<Integer> partitions) {
                // (on the reply thread, in a poll) the group commits nothing: from the end at start, or from
                // the start of a partition added since
                for (int p : partitions) {
                    self[0].seek(p, ends.getOrDefault(p, 0L));
                }
            }
        });
        self[0] = c;
        return c;
    }

    private void read(BackendConsumer first) {
        @Nullable BackendConsumer c = first;
        Throwable failure = null;
        try {
            // a thread a stop gave up waiting for (held in a callback past STOP_WAIT) ends as it returns, also when a
            // start made a new reader meanwhile: it never reads beside it
            while (running && reader == Thread.currentThread()) {
                List<KafkoRecord> records;
                try {
                    records = c.poll(POLL_TIMEOUT);
                } catch (UnknownTopicException e) {
                    // the reply topic was deleted: read it again once it exists, as a listener does; the requests
                    // waiting keep waiting (up to their timeouts) for replies written to the topic made again
                    LOG.warn("The reply topic '{}' of a replying template was deleted ({}); it reads the topic again"
                            + " as soon as it exists", replyTopic, e.getMessage());
                    close(c);
                    c = null;
                    c = reopen();
                    if (c == null) {
                        return;
                    }
                    continue;
                }
                for (KafkoRecord r : records) {
                    deliver(r);
                }
            }
        } catch (KafkoClosedException e) {
            failure = e;
        } catch (RuntimeException | Error e) {
            failure = e;
            LOG.error("The reply reader of '{}' on '{}' failed; requests waiting for replies fail with it",
                    group, replyTopic, e);
        } finally {
            if (c != null) {
                close(c);
            }
            List<RequestReplyFuture<K, V, R>> waiting = null;
            synchronized (this) { // a start (which could then add requests of its own) comes before or after
                if (failure != null && reader == Thread.currentThread()) { // not a stopped run's: a new one may run
                    readerFailure = failure;
                    running = false;
                    waiting = takePending();
                }
            }
            if (waiting != null) {
                fail(waiting, new KafkoException("the reply reader of '" + replyTopic + "' ended: " + failure,
                        failure));
            }
        }
    }

    /**
     * A consumer of the reply topic made again after it was deleted, from its start, once it exists (at once where
     * it is declared or topics are created on use; else looked for every poll timeout); {@code null} once this
     * thread's run was stopped.
     */
    private synchronized @Nullable BackendConsumer reopen() {
        while (running && reader == Thread.currentThread()) {
            try {
                BackendConsumer c = open(false);
                consumer = c;
                return c;
            } catch (UnknownTopicException e) {
                try {
                    wait(POLL_TIMEOUT.toMillis()); // stop() notifies
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new KafkoException("the reply reader of '" + replyTopic + "' was interrupted while its"
                            + " deleted reply topic did not exist", interrupted);
                }
            }
        }
        return null;
    }

    private void close(BackendConsumer c) {
        try {
            c.close();
        } catch (RuntimeException e) {
            LOG.debug("Closing the reply reader of '{}' failed", replyTopic, e);
        }
    }

    private void deliver(KafkoRecord record) {
        byte[] id = record.headers().lastValue(KafkoHeaders.CORRELATION_ID);
        String correlationId = id == null ? null : new String(id, StandardCharsets.UTF_8);
        RequestReplyFuture<K, V, R> future = correlationId == null ? null : pending.get(correlationId);
        if (future == null) {
            LOG.debug("A reply on {}-{}@{} answers no request of this template (another requester's, or one that"
                    + " timed out)", record.topic(), record.partition(), record.offset());
            return;
        }
        reply(correlationId, future, record);
    }

    /**
     * Takes {@code record}, a reply to the request {@code correlationId} waiting on {@code future}, on the reply
     * thread: here the first reply answers the request, with its value converted to the reply type.
     */
    void reply(String correlationId, RequestReplyFuture<K, V, R> future, KafkoRecord record) {
        if (!release(correlationId, future)) {
            return; // timed out, or its caller ended it, since it was looked up
        }
        R reply;
        try {
            reply = convert(record, replyType);
        } catch (RuntimeException | Error e) {
            // this request's failure only (an Error too: a reply type's constructor may assert): the future, already
            // taken from the pending map, completes here or never, and the next replies are read as before
            failReply(future, e);
            return;
        }
        future.complete(reply);
    }

    /**
     * Takes the request {@code correlationId} out of those waiting, so that neither a later reply nor its timeout
     * finds it; false when something else took it first (a reply, its timeout, a stop, its caller).
     */
    final boolean release(String correlationId, RequestReplyFuture<K, V, R> future) {
        return pending.remove(correlationId, future);
    }

    /** Whether the request {@code correlationId} still waits on {@code future}. */
    final boolean waiting(String correlationId, RequestReplyFuture<K, V, R> future) {
        return pending.get(correlationId) == future;
    }

    /** The value of a reply, converted to {@code type} ({@code null} for a reply without a value). */
    final <T> @Nullable T convert(KafkoRecord record, Class<T> type) {
        return record.value() == null ? null
                : type.cast(converter.fromMessage(converter.toMessage(record, Map.of()), type, null));
    }

    /** Fails a request taken out of those waiting with its reply's failure; rethrows one the JVM cannot go on after. */
    static void failReply(CompletableFuture<?> future, Throwable failure) {
        future.completeExceptionally(failure);
        if (failure instanceof VirtualMachineError fatal) {
            throw fatal;
        }
    }

    /**
     * Ends a request whose timeout came before its reply (already taken out of those waiting), off the timer
     * thread: here it fails with {@code timeout}.
     */
    void timedOut(RequestReplyFuture<K, V, R> future, KafkoReplyTimeoutException timeout) {
        future.completeExceptionally(timeout);
    }

    /** Stops reading replies; the requests still waiting fail. */
    @Override
    public void stop() {
        Thread t;
        List<RequestReplyFuture<K, V, R>> waiting;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            t = reader;
            reader = null;
            BackendConsumer c = consumer;
            if (c != null) {
                c.wakeup();
            }
            notifyAll(); // a reader waiting for its deleted reply topic to exist again
            // taken here, before a start can run: a callback of one failed below may start the template again and
            // make requests, which this stop must not fail
            waiting = takePending();
        }
        // first: a callback on the reply thread that waits for another reply then returns, and the thread ends
        fail(waiting, new KafkoException("the replying template of '" + replyTopic + "' stopped before the reply came"));
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(STOP_WAIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The requests waiting now, taken out of {@link #pending} (a reply or a timeout no longer finds them). */
    private List<RequestReplyFuture<K, V, R>> takePending() {
        List<RequestReplyFuture<K, V, R>> taken = new ArrayList<>();
        for (String id : pending.keySet()) {
            RequestReplyFuture<K, V, R> f = pending.remove(id);
            if (f != null) {
                taken.add(f);
            }
        }
        return taken;
    }

    private static void fail(List<? extends CompletableFuture<?>> waiting, KafkoException cause) {
        for (CompletableFuture<?> f : waiting) {
            f.completeExceptionally(cause);
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * The lifecycle phase, 0 unless set (spring-kafka's): the template starts before, and stops after, the web
     * server of a Spring Boot application (whose graceful shutdown drains its requests at phase
     * {@code Integer.MAX_VALUE - 1024}), so the requests of its handlers find it running while the server serves
     * them.
     */
    @Override
    public int getPhase() {
        return phase;
    }

    /** Sets the lifecycle phase; see {@link #getPhase()}. */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    @Override
    public void destroy() {
        stop();
    }

    private void requireRunning() {
        if (!running) {
            throw notRunning();
        }
    }

    private IllegalStateException notRunning() {
        Throwable failure = readerFailure;
        return new IllegalStateException("The replying template of '" + replyTopic + "' is not running"
                + (failure == null ? ": start() it (a bean starts with its context)"
                : ": its reply reader ended: " + failure), failure);
    }

    private static void requirePositive(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a reply timeout must be positive, was " + timeout);
        }
    }
}
