package dev.kafko.spring.listener;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The recoverer of a {@code @RetryableTopic} listener's containers (the listener topic's and each retry topic's):
 * a failed record goes to the retry topic of its next attempt, with that attempt and the end of its back-off in its
 * headers, or, after its last attempt or for a failure that is not retried, to the dead-letter topic its failure is
 * routed to ({@link RetryTopics#dltTopicFor}; counted as a dead letter), or is logged and skipped where there is none
 * ({@link DltStrategy#NO_DLT}). Under {@link DltStrategy#ALWAYS_RETRY_ON_ERROR} it is the dead-letter topics'
 * recoverer too: a dead letter its handler failed on goes back to the dead-letter topic it was read from, due after
 * {@link RetryTopics#dltBackOff()}, unless the failure is one {@link DefaultErrorHandler#isRetryable} does not retry
 * (a conversion failure, which would come again at every delivery): that dead letter is logged and skipped. Its error
 * handler makes
 * no blocking retries: every attempt is one delivery.
 */
public final class RetryTopicRecoverer implements RecordRecoverer {

    /** One plan per topic of the listener, in its order. */
    private final List<RetryTopics> plans;
    private final LogBackend backend;
    private final DeadLetterPublishingRecoverer publisher;
    private final LoggingRecordRecoverer logger = new LoggingRecordRecoverer();

    public RetryTopicRecoverer(RetryTopics topics, LogBackend backend, KafkoInstrumentation instrumentation) {
        this(List.of(Objects.requireNonNull(topics, "topics")), backend, instrumentation);
    }

    /**
     * The recoverer of a listener of several topics: a record is forwarded by the plan of the topic it was read
     * from (the listener's topic, or one of that topic's retry or dead-letter topics).
     *
     * @throws IllegalArgumentException when {@code plans} is empty
     */
    public RetryTopicRecoverer(List<RetryTopics> plans, LogBackend backend, KafkoInstrumentation instrumentation) {
        this.plans = List.copyOf(plans);
        if (this.plans.isEmpty()) {
            throw new IllegalArgumentException("a retry topics' recoverer needs the plan of at least one topic");
        }
        this.backend = Objects.requireNonNull(backend, "backend");
        this.publisher = DeadLetterPublishingRecoverer.forRetryTopics(backend, instrumentation);
    }

    /** The topics and back-offs it forwards by: those of the listener's first topic, whose settings every plan shares. */
    public RetryTopics getTopics() {
        return plans.get(0);
    }

    /** The plans of the listener's topics, in its order. */
    public List<RetryTopics> getPlans() {
        return plans;
    }

    /** The plan of the listener topic {@code topic} is, or is a retry or dead-letter topic of; else the first. */
    private RetryTopics planOf(String topic) {
        for (RetryTopics plan : plans) {
            if (plan.topic().equals(topic) || plan.retryTopics().contains(topic) || plan.isDltTopic(topic)) {
                return plan;
            }
        }
        return plans.get(0);
    }

    /** The error handler of such containers: no blocking retry, then this recoverer. */
    public KafkoErrorHandler errorHandler() {
        return new DefaultErrorHandler(new FixedBackOff(0, 0), this);
    }

    @Override
    public void recover(KafkoRecord record, Exception failure, FailedInvocation invocation) {
        DeadLetterPublishingRecoverer.refuseACancelledStage(record, invocation);
        RetryTopics topics = planOf(record.topic());
        if (topics.isDltTopic(record.topic())) {
            if (!DefaultErrorHandler.isRetryable(failure)) {
                // a failure that would come again at every delivery (the payload's conversion, say) ends the dead
                // letter's processing, as in spring-kafka: published again, it would go round for ever
                logger.recover(record, failure, invocation);
                return;
            }
            // the dead-letter handler failed (ALWAYS_RETRY_ON_ERROR): handled again once its back-off has passed, in
            // the dead-letter topic it was read from
            long due = dueAfter(backend.currentTimeMillis(), topics.dltBackOff());
            publisher.publish(record, failure, invocation, destination(record.topic(), record),
                    Headers.empty().with(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, utf8(Long.toString(due))), true);
            return;
        }
        int attempt = attemptOf(record);
        long now = backend.currentTimeMillis();
        if (attempt < topics.attempts() && topics.retryable(failure)
                && !topics.pastTimeout(originalTimestamp(record), now)) {
            int next = attempt + 1;
            long due = dueAfter(now, topics.waitBefore(next));
            Headers extra = Headers.empty()
                    .with(KafkoHeaders.RETRY_ATTEMPTS, utf8(Integer.toString(next)))
                    .with(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, utf8(Long.toString(due)));
            publisher.publish(record, failure, invocation, destination(topics.topicOfAttempt(next), record), extra,
                    true);
            return;
        }
        if (!topics.hasDltTopic()) {
            logger.recover(record, failure, invocation);
            return;
        }
        Headers extra = Headers.empty().with(KafkoHeaders.RETRY_ATTEMPTS, utf8(Integer.toString(attempt)));
        publisher.publish(record, failure, invocation, destination(topics.dltTopicFor(failure), record), extra,
                false);
    }

    /**
     * The record's partition of {@code topic}, or the one its key chooses where {@code topic} has fewer partitions
     * ({@link RetryTopics#numPartitions()}); a topic missing now is left to the publisher, which makes it ready.
     */
    private DeadLetterDestination destination(String topic, KafkoRecord record) {
        try {
            if (record.partition() >= backend.partitionCount(topic)) {
                return DeadLetterDestination.of(topic);
            }
        } catch (UnknownTopicException e) {
            // deleted since the start: the publisher makes it ready again, as before
        }
        return DeadLetterDestination.of(topic, record.partition());
    }

    /**
     * {@code wait} milliseconds after {@code now}; the last millisecond there is where the sum would overflow (a
     * multiplied back-off without a {@code maxDelay} grows without bound), not one in the past.
     */
    static long dueAfter(long now, long wait) {
        long due = now + wait;
        return due < now ? Long.MAX_VALUE : due;
    }

    /**
     * When the record was first written: its {@code kafko_dlt-original-timestamp} header (a forwarded record's), or its
     * own timestamp (the listener topic's records, or a header it cannot read).
     */
    static long originalTimestamp(KafkoRecord record) {
        byte[] value = record.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP);
        if (value == null) {
            return record.timestamp();
        }
        try {
            return Long.parseLong(new String(value, StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return record.timestamp();
        }
    }

    /** The attempt {@code record} was at: its header's, or 1 (the listener topic's own records). */
    static int attemptOf(KafkoRecord record) {
        byte[] value = record.headers().lastValue(KafkoHeaders.RETRY_ATTEMPTS);
        if (value == null) {
            return 1;
        }
        try {
            return Math.max(1, Integer.parseInt(new String(value, StandardCharsets.UTF_8)));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /**
     * Makes the retry topics and the dead-letter topics (where there are any) ready with at least the listener
     * topic's partitions, for the listener topic's container and each retry topic's: created where topics are
     * created on first use, else a start-up failure that names every one to declare (not the first alone, which
     * would take a start per topic to find them all), as a {@link UnknownTopicException} so that the start-up failure
     * analysis shows this message.
     */
    @Override
    public void prepare(String topic) {
        RetryTopics topics = planOf(topic);
        int partitions = topics.numPartitions() > 0 ? topics.numPartitions() : backend.partitionCount(topics.topic());
        List<String> missing = new ArrayList<>();
        List<String> declarations = new ArrayList<>();
        UnknownTopicException first = ready(topics, partitions, topics.autoCreateTopics(), missing, declarations);
        if (first != null) {
            // the listener's other topics lack theirs too, as a rule: named with these, not one start per topic
            for (RetryTopics other : plans) {
                if (other != topics) {
                    addMissing(other, missing, declarations);
                }
            }
            String what = missing.size() == 1 ? "'" + missing.get(0) + "', which does not exist and is not created on"
                    + " first use: declare it" : "topics that do not exist and are not created on first use: declare"
                    + " them";
            String of = plans.size() == 1 ? "topic '" + topics.topic() + "'" : "topics " + listenerTopics();
            throw new UnknownTopicException("The @RetryableTopic listener of " + of + " reads"
                    + " and writes " + what + " (" + String.join(", ", declarations) + ") or set"
                    + (topics.autoCreateTopics() ? " kafko.auto-create-topics=true"
                            : " its autoCreateTopics to true (it is false)") + "; a NewTopic bean declares a topic too", first);
        }
    }

    /**
     * Adds the retry and dead-letter topics of {@code plan} that do not exist to {@code missing}, with their
     * declarations; nothing is created. A plan whose listener topic does not exist either is left out: its
     * container's start names that topic.
     */
    private void addMissing(RetryTopics plan, List<String> missing, List<String> declarations) {
        int partitions;
        try {
            partitions = plan.numPartitions() > 0 ? plan.numPartitions() : backend.partitionCount(plan.topic());
        } catch (UnknownTopicException e) {
            return;
        }
        ready(plan, partitions, false, missing, declarations);
    }

    /**
     * Makes {@code plan}'s retry and dead-letter topics ready with {@code partitions} ({@code create}), or checks that
     * they exist (declared, or made beforehand: used as they are); adds each missing one to {@code missing}, with its
     * declaration.
     *
     * @return the first missing topic's failure; null when none is missing
     */
    private @Nullable UnknownTopicException ready(RetryTopics plan, int partitions, boolean create,
                                                  List<String> missing, List<String> declarations) {
        List<String> all = new ArrayList<>(plan.retryTopics());
        all.addAll(plan.dltTopics());
        UnknownTopicException first = null;
        for (String name : all) {
            try {
                if (create) {
                    backend.ensureTopic(name, partitions);
                } else {
                    backend.partitionCount(name);
                }
            } catch (UnknownTopicException e) {
                missing.add(name);
                declarations.add(KafkoTopicProvisioner.propertyPrefix(name) + ".partitions=" + partitions);
                first = first == null ? e : first;
            }
        }
        return first;
    }

    private String listenerTopics() {
        List<String> names = new ArrayList<>();
        for (RetryTopics plan : plans) {
            names.add(plan.topic());
        }
        return names.toString();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
