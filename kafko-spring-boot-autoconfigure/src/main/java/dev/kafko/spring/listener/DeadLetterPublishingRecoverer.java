package dev.kafko.spring.listener;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.InvalidPartitionException;
import dev.kafko.InvalidRecordException;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.GuardedInstrumentation;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes, from any container thread, a record that exhausted its attempts to
 * {@code <topic>.DLT} on the same partition, with its key, value and headers plus
 * {@code kafko_dlt-*} headers naming the exception (its message header only when it has one) and the original
 * topic, partition, offset and timestamp (the exception headers of an earlier dead-lettering of the same record
 * are left out). As in spring-kafka, the dead letter is stamped when it is published, so the dead-letter topic's
 * retention counts from then, whatever the original's age.
 * The dead-letter topic is made ready when a container starts reading the original ({@link #prepare}):
 * created with at least as many partitions as the original when topics are created on first use (a
 * declared one grows to that many too); otherwise it must be declared, or the container does not
 * start. A failure thrown by the listener as an {@link Error} is named in the headers, not its
 * {@link ListenerExecutionFailedException} wrapper, and so is the cause of a {@link CompletionException}
 * (a {@code @SendTo} reply that could not be written: {@link RecordTooLargeException}, say).
 *
 * <p>When the dead letter is larger than the dead-letter topic's max record size, it is published
 * again without the stack trace; when even that does not fit, the record is skipped with an error
 * log naming its offset (it stays in its own topic), since delivering it again could never succeed; so is a record
 * without a key whose dead-letter topic is compacted ({@link InvalidRecordException}). Any other failure to publish
 * is thrown, and the container delivers the record again later.
 *
 * <p>Built with a destination resolver, it publishes where the resolver says instead: a function of the record and
 * the failure (as the error handler gives it: the listener's exception, an {@link Error} wrapped in a
 * {@link ListenerExecutionFailedException}) that returns a {@link DeadLetterDestination}, to route dead letters by
 * the exception, say, as spring-kafka's {@code destinationResolver} does. A {@code null} destination publishes
 * nothing: the record is skipped with a warning (it stays in its own topic) and not counted. A destination topic
 * that does not exist is created at the first dead letter when topics are created on first use (with as many
 * partitions as the record's topic, or the destination's partition and those below it, whichever is more), and
 * otherwise the dead letter fails as an unknown topic and the record is delivered again; nothing is checked when
 * a container starts, since the destinations depend on the records. A partition the destination topic does not
 * have is left to the record's key, with a warning; an existing topic is never grown.
 *
 * <p>Called for a record whose retry's stage a stop cancelled past its shutdown timeout (by a custom
 * {@link KafkoErrorHandler} that caught the retry's {@link java.util.concurrent.CancellationException}), it publishes
 * nothing and throws a {@code CancellationException}: the record is the stop's, delivered again at the next start.
 */
public final class DeadLetterPublishingRecoverer implements RecordRecoverer {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterPublishingRecoverer.class);

    /** The suffix of dead-letter topics. */
    public static final String SUFFIX = KafkoTopicProvisioner.DEAD_LETTER_SUFFIX;

    /** The stack-trace header of a dead letter that did not fit its topic with the whole trace. */
    static final String STACK_TRACE_LEFT_OUT = "(left out: the dead letter was larger than the topic's max record size with it)";

    private static final Set<String> EXCEPTION_HEADERS = Set.of(KafkoHeaders.DLT_EXCEPTION_FQCN,
            KafkoHeaders.DLT_EXCEPTION_CAUSE_FQCN, KafkoHeaders.DLT_EXCEPTION_MESSAGE,
            KafkoHeaders.DLT_EXCEPTION_STACKTRACE);

    /**
     * The most dead-letter topics remembered as ensured; past it they are forgotten (and ensured again at their next
     * dead letter), so that a pattern over topics that come and go does not remember one for every topic ever read.
     */
    static final int MAX_REMEMBERED = 1024;

    private final LogBackend backend;
    private final KafkoInstrumentation instrumentation;
    private final @Nullable BiFunction<? super KafkoRecord, ? super Exception, ? extends @Nullable DeadLetterDestination>
            resolver;
    private final Map<String, Integer> ensuredPartitions = new ConcurrentHashMap<>();

    /** A recoverer that counts nothing (for an application without Micrometer). */
    public DeadLetterPublishingRecoverer(LogBackend backend) {
        this(backend, KafkoInstrumentation.NOOP);
    }

    /**
     * @param instrumentation what counts the dead letters: the context's {@link KafkoInstrumentation} bean,
     *     present with Micrometer, or {@link KafkoInstrumentation#NOOP}
     */
    public DeadLetterPublishingRecoverer(LogBackend backend, KafkoInstrumentation instrumentation) {
        this(backend, instrumentation, null, "instrumentation");
    }

    /**
     * A recoverer that publishes to the log {@code template} writes to and counts the dead letters with its
     * instrumentation (Micrometer's, for the auto-configured template), as spring-kafka's
     * {@code new DeadLetterPublishingRecoverer(template)} reads in ported code. A dead letter is the stored record
     * (its key, value and headers as they are in the log, with the dead-letter headers), not a send of the template:
     * its producer listener, observation and transaction see none.
     */
    public DeadLetterPublishingRecoverer(KafkoTemplate<?, ?> template) {
        this(Objects.requireNonNull(template, "template").getBackend(), template.getInstrumentation());
    }

    /** As {@link #DeadLetterPublishingRecoverer(KafkoTemplate)}, publishing where {@code destinationResolver} says. */
    public DeadLetterPublishingRecoverer(KafkoTemplate<?, ?> template, BiFunction<? super KafkoRecord,
            ? super Exception, ? extends @Nullable DeadLetterDestination> destinationResolver) {
        this(Objects.requireNonNull(template, "template").getBackend(), template.getInstrumentation(),
                destinationResolver);
    }

    /**
     * A recoverer that publishes where {@code destinationResolver} says (see the class comment) and counts nothing.
     *
     * @throws NullPointerException naming the parameter that is {@code null}
     */
    public DeadLetterPublishingRecoverer(LogBackend backend, BiFunction<? super KafkoRecord, ? super Exception,
            ? extends @Nullable DeadLetterDestination> destinationResolver) {
        this(backend, KafkoInstrumentation.NOOP, destinationResolver);
    }

    /**
     * A recoverer that publishes where {@code destinationResolver} says (see the class comment).
     *
     * @param instrumentation what counts the dead letters (under the record's own topic)
     * @throws NullPointerException naming the parameter that is {@code null}
     */
    public DeadLetterPublishingRecoverer(LogBackend backend, KafkoInstrumentation instrumentation,
                                         BiFunction<? super KafkoRecord, ? super Exception,
                                                 ? extends @Nullable DeadLetterDestination> destinationResolver) {
        this(backend, instrumentation, Objects.requireNonNull(destinationResolver, "destinationResolver"),
                "instrumentation");
    }

    private DeadLetterPublishingRecoverer(LogBackend backend, KafkoInstrumentation instrumentation,
                                          @Nullable BiFunction<? super KafkoRecord, ? super Exception,
                                                  ? extends @Nullable DeadLetterDestination> resolver,
                                          String instrumentationName) {
        this.backend = Objects.requireNonNull(backend, "backend");
        // a dead letter published is not published again when counting it fails
        this.instrumentation = GuardedInstrumentation.of(Objects.requireNonNull(instrumentation,
                instrumentationName + " (KafkoInstrumentation.NOOP where there is no KafkoInstrumentation bean)"));
        this.resolver = resolver;
    }

    /**
     * A recoverer that publishes only through {@link #publish}, for {@link RetryTopicRecoverer}: its destinations
     * are made ready by that recoverer, and never grown.
     */
    static DeadLetterPublishingRecoverer forRetryTopics(LogBackend backend, KafkoInstrumentation instrumentation) {
        return new DeadLetterPublishingRecoverer(backend, instrumentation, NO_RESOLVER);
    }

    /** The resolver of a recoverer that publishes only through {@link #publish}. */
    private static final BiFunction<KafkoRecord, Exception, DeadLetterDestination> NO_RESOLVER = new NoResolver();

    private static final class NoResolver implements BiFunction<KafkoRecord, Exception, DeadLetterDestination> {
        @Override
        public DeadLetterDestination apply(KafkoRecord record, Exception failure) {
            throw new UnsupportedOperationException("a retry topics' recoverer publishes through its own routes");
        }
    }

    @Override
    public void recover(KafkoRecord record, Exception failure, FailedInvocation invocation) {
        refuseACancelledStage(record, invocation);
        DeadLetterDestination destination = destination(record, failure);
        if (destination == null) {
            LOG.warn("Listener '{}' gave up on {}-{}@{} ({}); its dead-letter destination resolver chose no"
                    + " destination, so it is not published: skipped it, the record stays in {} at offset {}",
                    invocation.listenerId(), record.topic(), record.partition(), record.offset(), failure.toString(),
                    record.topic(), record.offset());
            return;
        }
        publish(record, failure, invocation, destination, Headers.empty(), false);
    }

    /** Throws when a stop cancelled the stage of the record's retry: the record is the stop's, not a dead letter. */
    static void refuseACancelledStage(KafkoRecord record, FailedInvocation invocation) {
        AwaitedStage awaited = AwaitedStage.current(); // the member's polling thread's, which runs the recovery
        if (awaited != null && awaited.stageCancelled()) {
            // a custom error handler that caught a retry's CancellationException: the record is the stop's
            throw new CancellationException("Listener '" + invocation.listenerId() + "' stopped past its shutdown"
                    + " timeout and cancelled the stage its listener returned: " + record.topic() + "-"
                    + record.partition() + "@" + record.offset() + " is not dead-lettered, and is "
                    + awaited.notCommittedAtCancel(true));
        }
    }

    /**
     * Publishes {@code record} to {@code destination} with the exception headers, the {@code kafko_dlt-original-*}
     * headers and {@code extra} headers (replacing any of theirs it has). With {@code extra} headers (a retry topic's
     * forward or dead letter) the original headers are added only when the record has none yet, so that a record
     * forwarded from retry topic to retry topic names where it was first read. Counted as a dead letter unless it is
     * forwarded to be retried ({@code retry}).
     */
    void publish(KafkoRecord record, Exception failure, FailedInvocation invocation, DeadLetterDestination destination,
                 Headers extra, boolean retry) {
        // the wrapper of an Error thrown by the listener says nothing the Error does not, nor does the
        // CompletionException of a future it joined (a @SendTo reply that could not be written)
        Throwable cause = ListenerExecutionFailedException.thrown(failure);
        boolean firstOriginal = !extra.isEmpty();
        // the stack trace is what a dead letter adds most; without it the record may still fit
        Integer partition = published(record, destination,
                headers(record, cause, invocation, stackTrace(cause), extra, firstOriginal));
        if (partition == null) {
            partition = published(record, destination,
                    headers(record, cause, invocation, STACK_TRACE_LEFT_OUT, extra, firstOriginal));
        }
        if (partition == null) {
            // delivering it again would fail the same way for ever: skip it; the log still holds it
            LOG.error("Listener '{}' gave up on {}-{}@{} ({}) and cannot publish it to {}: that topic refuses it for"
                    + " good (larger than its max record size, or without a key for a compacted topic); skipped it, the"
                    + " record stays in {} at offset {}",
                    invocation.listenerId(), record.topic(), record.partition(), record.offset(), cause.toString(),
                    destination.topic(), record.topic(), record.offset());
            return;
        }
        if (retry) {
            LOG.info("Listener '{}' failed on {}-{}@{} ({}); forwarded it to {}-{} to be retried", invocation.listenerId(),
                    record.topic(), record.partition(), record.offset(), cause.toString(), destination.topic(), partition);
            return;
        }
        instrumentation.deadLettered(invocation.listenerId(), record.topic());
        LOG.warn("Listener '{}' gave up on {}-{}@{} ({}); published it to {}-{}", invocation.listenerId(),
                record.topic(), record.partition(), record.offset(), cause.toString(), destination.topic(), partition);
    }

    /** {@code <topic>.DLT} on the record's partition, or what the resolver says ({@code null}: publish nothing). */
    private @Nullable DeadLetterDestination destination(KafkoRecord record, Exception failure) {
        if (resolver == null) {
            return DeadLetterDestination.of(record.topic() + SUFFIX, record.partition());
        }
        return resolver.apply(record, failure);
    }

    /**
     * Makes sure {@code <topic>.DLT} exists with as many partitions as {@code topic}: created when
     * topics are created on first use, and otherwise a start-up failure that says to declare it.
     */
    @Override
    public void prepare(String topic) {
        if (resolver != null) {
            return; // the destinations depend on the records
        }
        String dlt = topic + SUFFIX;
        try {
            // as many partitions as the topic has now: a container started again after its topic grew grows it too
            ensureDeadLetterTopic(topic, dlt, partitionsOrOne(topic));
        } catch (UnknownTopicException e) {
            // the same type, so that the start-up failure analysis, which shows the first kafko exception of the
            // chain, shows this message and not only the cause's
            throw new UnknownTopicException("Dead letters of topic '" + topic + "' go to '" + dlt + "', which does not"
                    + " exist and is not created on first use: declare it (" + KafkoTopicProvisioner.propertyPrefix(dlt)
                    + ".partitions) or set kafko.auto-create-topics=true; a NewTopic bean declares a topic too", e);
        }
    }

    /**
     * For a topic a pattern matched: a dead-letter topic that exists is made ready as by {@link #prepare} (grown
     * to the topic's partitions), but one that does not is not created now: it is made at the first dead letter
     * ({@link #recover}), so that a pattern over short-lived topics (a topic per job) does not leave an empty
     * {@code <topic>.DLT}, with its descriptors and meters, behind for every topic it ever read. One that could not
     * be created then (undeclared, with {@code kafko.auto-create-topics=false}) fails as {@link #prepare} does.
     */
    @Override
    public void prepareMatched(String topic) {
        if (resolver != null) {
            return;
        }
        String dlt = topic + SUFFIX;
        try {
            backend.partitionCount(dlt);
        } catch (UnknownTopicException e) {
            // what was ensured of a dead-letter topic of the same name no longer holds: it was deleted
            ensuredPartitions.remove(dlt);
            if (backend.mayCreateTopic(dlt)) {
                return;
            }
        }
        prepare(topic);
    }

    /**
     * Publishes the dead letter and returns the partition it went to; {@code null} when it is too large for its
     * topic, or has no key and the topic is compacted; any other failure thrown. A dead-letter topic deleted and made
     * again since it was ensured here (by the producer, with one partition: a pattern's topic and its dead-letter topic
     * deleted and created again) is ensured anew, and the dead letter sent again.
     */
    private @Nullable Integer published(KafkoRecord record, DeadLetterDestination destination, Headers headers) {
        try {
            return publishedOnce(record, destination, headers);
        } catch (RuntimeException e) {
            if (!(e instanceof InvalidPartitionException
                    || (e instanceof CompletionException && e.getCause() instanceof InvalidPartitionException))) {
                throw e;
            }
            ensuredPartitions.remove(destination.topic());
            return publishedOnce(record, destination, headers);
        }
    }

    private @Nullable Integer publishedOnce(KafkoRecord record, DeadLetterDestination destination, Headers headers) {
        try {
            // stamped now, as spring-kafka's are (the original's timestamp is in a header): the dead-letter topic's
            // retention counts from the dead-lettering, not from the original, which may be older than it
            Integer partition = partition(record, destination); // before the producer, which may make the topic
            RecordPosition position = backend.producer(destination.topic()).send(partition, record.key(),
                    record.value(), headers, backend.currentTimeMillis()).join();
            return position.partition();
        } catch (RuntimeException e) {
            if (refusedForGood(e)) {
                return null;
            }
            throw e;
        }
    }

    /**
     * The partition to publish to, the destination topic made ready: {@code <topic>.DLT} created or grown to the
     * record's topic's partitions; a resolver's topic created when missing (never grown), a partition it does not
     * have left to the key ({@code null}).
     */
    private @Nullable Integer partition(KafkoRecord record, DeadLetterDestination destination) {
        if (resolver == null) {
            ensureDeadLetterTopic(record.topic(), destination.topic(), record.partition() + 1);
            return destination.partition();
        }
        int partitions;
        try {
            partitions = backend.partitionCount(destination.topic());
        } catch (UnknownTopicException e) {
            if (!backend.mayCreateTopic(destination.topic())) {
                throw new IllegalStateException("Dead letters of topic '" + record.topic() + "' go to '"
                        + destination.topic() + "', which does not exist and is not created on first use: declare it ("
                        + KafkoTopicProvisioner.propertyPrefix(destination.topic()) + ".partitions) or set"
                        + " kafko.auto-create-topics=true; a NewTopic bean declares a topic too", e);
            }
            partitions = Math.max(destination.partition() + 1, backend.partitionCount(record.topic()));
            backend.ensureTopic(destination.topic(), partitions);
        }
        if (destination.anyPartition()) {
            return null;
        }
        if (destination.partition() >= partitions) {
            LOG.warn("The dead-letter destination resolver chose partition {} of '{}', which has {}; the record's key"
                    + " chooses the partition instead", destination.partition(), destination.topic(), partitions);
            return null;
        }
        return destination.partition();
    }

    private static Headers headers(KafkoRecord record, Throwable cause, FailedInvocation invocation, String stackTrace,
                                   Headers extra, boolean firstOriginal) {
        Headers headers = without(record.headers(), extra)
                .with(KafkoHeaders.DLT_EXCEPTION_FQCN, utf8(cause.getClass().getName()));
        if (cause.getCause() != null && cause.getCause() != cause) {
            headers = headers.with(KafkoHeaders.DLT_EXCEPTION_CAUSE_FQCN, utf8(cause.getCause().getClass().getName()));
        }
        if (cause.getMessage() != null) { // as spring-kafka: no message, no header (not the text "null")
            headers = headers.with(KafkoHeaders.DLT_EXCEPTION_MESSAGE, utf8(cause.getMessage()));
        }
        headers = headers.with(KafkoHeaders.DLT_EXCEPTION_STACKTRACE, utf8(stackTrace));
        if (!firstOriginal || record.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_TOPIC) == null) {
            headers = headers
                    .with(KafkoHeaders.DLT_ORIGINAL_TOPIC, utf8(record.topic()))
                    .with(KafkoHeaders.DLT_ORIGINAL_PARTITION, utf8(Integer.toString(record.partition())))
                    .with(KafkoHeaders.DLT_ORIGINAL_OFFSET, utf8(Long.toString(record.offset())))
                    .with(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP, utf8(Long.toString(record.timestamp())))
                    .with(KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP, utf8(invocation.groupId()));
        }
        for (Header h : extra) {
            headers = headers.with(h.key(), h.value());
        }
        return headers;
    }

    /**
     * The record's headers without the exception headers of an earlier dead-lettering (a record replayed
     * from a dead-letter topic that failed again), as spring-kafka strips them: each stack trace would
     * otherwise stay, and the record grow at every round. The {@code kafko_dlt-original-*} headers stay,
     * the last of each naming this round. Nor the headers of {@code extra}, which replace them.
     */
    private static Headers without(Headers headers, Headers extra) {
        List<Header> kept = new ArrayList<>(headers.size());
        for (Header h : headers) {
            if (!EXCEPTION_HEADERS.contains(h.key()) && extra.lastValue(h.key()) == null) {
                kept.add(h);
            }
        }
        return kept.size() == headers.size() ? headers : Headers.of(kept);
    }

    /**
     * Whether the destination refuses the record whatever the attempt: too large for it, or without a key for a
     * compacted topic.
     */
    private static boolean refusedForGood(Throwable e) {
        Throwable refusal = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return refusal instanceof RecordTooLargeException || refusal instanceof InvalidRecordException;
    }

    /** The topic's partition count, or 1 when it does not exist (then only a dead-letter topic not yet made is). */
    private int partitionsOrOne(String topic) {
        try {
            return backend.partitionCount(topic);
        } catch (UnknownTopicException e) {
            return 1;
        }
    }

    private void ensureDeadLetterTopic(String topic, String dlt, int atLeast) {
        Integer known = ensuredPartitions.get(dlt);
        if (known != null && known >= atLeast) {
            return;
        }
        int wanted = Math.max(atLeast, backend.partitionCount(topic));
        backend.ensureTopic(dlt, wanted);
        if (known == null && ensuredPartitions.size() >= MAX_REMEMBERED) {
            ensuredPartitions.clear();
        }
        ensuredPartitions.merge(dlt, wanted, Math::max);
    }

    /** How many dead-letter topics are remembered as ensured (for tests). */
    int remembered() {
        return ensuredPartitions.size();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
