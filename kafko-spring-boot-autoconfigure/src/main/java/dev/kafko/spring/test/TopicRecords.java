package dev.kafko.spring.test;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.Topic;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.LogBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The records of a topic, read for {@link KafkoTestUtils} without a group (nothing is committed): those it holds now,
 * or those it holds once it holds enough; or what a test's own consumer reads on from its position. On the caller's
 * thread; the waits park on the log (a poll wakes on an append) and on the topic's creation, never in a sleep.
 */
final class TopicRecords {

    /** How long reading up to the ends may take. */
    private static final Duration READ_ALL_LIMIT = Duration.ofSeconds(60);

    private TopicRecords() {
    }

    /** Every record the topic holds now, partition by partition, each in offset order. */
    static List<KafkoRecord> now(Kafko kafko, String topic) {
        Topic t = kafko.topic(topic).orElseThrow(() -> unknown(kafko, topic));
        kafko.producer(topic).flush();
        List<KafkoRecord> all = new ArrayList<>();
        try (Consumer consumer = fromStart(kafko, t)) {
            readToEnds(consumer, t, all);
        }
        return sorted(all);
    }

    /**
     * Every record the topic holds once it holds at least {@code minRecords}, partition by partition, each in offset
     * order. A topic not yet created is waited for when {@code backend} can tell its creation.
     */
    static List<KafkoRecord> atLeast(Kafko kafko, @Nullable LogBackend backend, String topic, int minRecords,
                                     Duration timeout) {
        long deadline = deadline(minRecords, timeout);
        Topic t = kafko.topic(topic).orElse(null);
        if (t == null) {
            t = created(kafko, backend, topic, timeout, deadline);
        }
        List<KafkoRecord> all = new ArrayList<>();
        try (Consumer consumer = fromStart(kafko, t)) {
            // a poll writes sends that linger, and wakes on an append; one at least, so that a zero timeout reads what
            // the topic holds, as spring-kafka-test's getRecords does
            for (all.addAll(consumer.poll(left(deadline))); all.size() < minRecords;
                    all.addAll(consumer.poll(left(deadline)))) {
                if (deadline - System.nanoTime() <= 0) {
                    throw new AssertionError("topic '" + topic + "' held " + all.size() + " record"
                            + (all.size() == 1 ? "" : "s") + " after " + timeout + "; expected at least " + minRecords);
                }
            }
            readToEnds(consumer, t, all);
        }
        return sorted(all);
    }

    /**
     * What {@code consumer} returns from where it stands once it returned at least {@code minRecords}, with what it
     * then returns without waiting, in offset order within each partition; the consumer keeps its position.
     */
    static List<KafkoRecord> polled(Consumer consumer, int minRecords, Duration timeout) {
        Objects.requireNonNull(consumer, "consumer");
        long deadline = deadline(minRecords, timeout);
        List<KafkoRecord> all = new ArrayList<>();
        // one poll at least, so that a zero timeout returns what is there, as spring-kafka-test's getRecords does
        for (all.addAll(consumer.poll(left(deadline))); all.size() < minRecords;
                all.addAll(consumer.poll(left(deadline)))) {
            if (deadline - System.nanoTime() <= 0) {
                throw new AssertionError("consumer of topic '" + consumer.topic() + "' returned " + all.size()
                        + " record" + (all.size() == 1 ? "" : "s") + " after " + timeout + "; expected at least "
                        + minRecords);
            }
        }
        long limit = System.nanoTime() + READ_ALL_LIMIT.toNanos();
        for (List<KafkoRecord> more = consumer.poll(Duration.ZERO); !more.isEmpty();
                more = consumer.poll(Duration.ZERO)) {
            if (System.nanoTime() > limit) {
                throw new IllegalStateException("reading " + consumer.topic() + " on took more than "
                        + READ_ALL_LIMIT + "; read " + all.size() + " records");
            }
            all.addAll(more);
        }
        return sorted(all);
    }

    /** What is left of the wait until {@code deadline} ({@link System#nanoTime}), none once it passed. */
    private static Duration left(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    private static long deadline(int minRecords, Duration timeout) {
        if (minRecords < 1) {
            throw new IllegalArgumentException("minRecords must be at least 1, was " + minRecords);
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        return System.nanoTime() + timeout.toNanos();
    }

    private static Topic created(Kafko kafko, @Nullable LogBackend backend, String topic, Duration timeout,
                                 long deadline) {
        CountDownLatch created = new CountDownLatch(1);
        AutoCloseable watch = backend == null ? null : backend.watchTopicCreations(name -> {
            if (name.equals(topic)) {
                created.countDown();
            }
        });
        if (watch == null) {
            throw unknown(kafko, topic);
        }
        try {
            // created between the first look and the watch's start: the watch was not told
            if (kafko.topic(topic).isEmpty()
                    && !created.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw new AssertionError("topic '" + topic + "' was not created within " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for topic '" + topic + "' to be created", e);
        } finally {
            try {
                watch.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing the watch of topic creations failed", e);
            }
        }
        // deleted again right after its creation
        return kafko.topic(topic).orElseThrow(() -> unknown(kafko, topic));
    }

    private static Consumer fromStart(Kafko kafko, Topic t) {
        Consumer consumer = kafko.consumer(t.name());
        for (PartitionInfo p : t.partitions()) {
            consumer.seek(p.partition(), p.logStartOffset());
        }
        return consumer;
    }

    /** Reads on from the consumer's positions up to the topic's end offsets as they are now. */
    private static void readToEnds(Consumer consumer, Topic t, List<KafkoRecord> into) {
        Map<Integer, Long> ends = new LinkedHashMap<>();
        for (PartitionInfo p : t.partitions()) {
            ends.put(p.partition(), p.endOffset());
        }
        long deadline = System.nanoTime() + READ_ALL_LIMIT.toNanos();
        while (ends.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("reading " + t.name() + " up to " + ends + " took more than "
                        + READ_ALL_LIMIT + "; read " + into.size() + " records");
            }
            for (KafkoRecord r : consumer.poll(Duration.ofMillis(100))) {
                if (r.offset() < ends.getOrDefault(r.partition(), 0L)) {
                    into.add(r);
                }
            }
        }
    }

    private static List<KafkoRecord> sorted(List<KafkoRecord> all) {
        all.sort(Comparator.comparingInt(KafkoRecord::partition).thenComparingLong(KafkoRecord::offset));
        return all;
    }

    private static UnknownTopicException unknown(Kafko kafko, String topic) {
        return new UnknownTopicException("topic '" + topic + "' does not exist in " + kafko.dataDir());
    }
}
