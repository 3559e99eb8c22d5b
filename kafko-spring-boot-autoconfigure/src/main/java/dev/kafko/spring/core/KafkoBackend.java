package dev.kafko.spring.core;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.PartitionInfo;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.support.Timeouts;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The {@link LogBackend} over an in-process {@link Kafko}, callable from any thread: it holds no
 * state besides the instance and the {@link KafkoTopicProvisioner} that creates topics on first use.
 */
public final class KafkoBackend implements LogBackend {

    private final Kafko kafko;
    private final KafkoTopicProvisioner topics;
    private final @Nullable KafkoTopicCreations creations;

    /** A backend that cannot tell topic creations: a listener's topic pattern is matched when it starts. */
    public KafkoBackend(Kafko kafko, KafkoTopicProvisioner topics) {
        this(kafko, topics, null);
    }

    /**
     * @param creations what {@code kafko}'s observer tells of the topics it creates (part of the observer it was
     *     opened with), or {@code null}
     */
    public KafkoBackend(Kafko kafko, KafkoTopicProvisioner topics, @Nullable KafkoTopicCreations creations) {
        this.kafko = kafko;
        this.topics = topics;
        this.creations = creations;
    }

    /** The instance this backend writes to. */
    public Kafko kafko() {
        return kafko;
    }

    @Override
    public BackendProducer producer(String topic) {
        topics.ensure(topic, 1);
        return new KafkoBackendProducer(kafko.producer(topic));
    }

    @Override
    public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                         ConsumerRebalanceListener rebalanceListener) {
        return groupConsumer(topic, group, maxPollRecords, rebalanceListener, true);
    }

    @Override
    public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                         ConsumerRebalanceListener rebalanceListener, boolean createTopic) {
        return groupConsumer(topic, group, maxPollRecords, rebalanceListener, createTopic, null);
    }

    @Override
    public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                         ConsumerRebalanceListener rebalanceListener, boolean createTopic,
                                         @Nullable OffsetResetPolicy offsetReset) {
        if (createTopic) {
            topics.ensure(topic, 1);
        }
        ConsumerOptions options = ConsumerOptions.DEFAULTS.withMaxPollRecords(maxPollRecords)
                .withRebalanceListener(rebalanceListener);
        if (offsetReset != null) {
            options = options.withOffsetReset(offsetReset);
        }
        return new KafkoBackendConsumer(kafko, topic, kafko.groupConsumer(topic, group, options));
    }

    @Override
    public BackendConsumer assignedConsumer(String topic, String group, Set<Integer> partitions, int maxPollRecords,
                                            boolean createTopic) {
        return assignedConsumer(topic, group, partitions, maxPollRecords, createTopic, null);
    }

    @Override
    public BackendConsumer assignedConsumer(String topic, String group, Set<Integer> partitions, int maxPollRecords,
                                            boolean createTopic, @Nullable OffsetResetPolicy offsetReset) {
        if (createTopic) {
            topics.ensure(topic, 1);
        }
        ConsumerOptions options = ConsumerOptions.DEFAULTS.withMaxPollRecords(maxPollRecords).withPartitions(partitions);
        if (offsetReset != null) {
            options = options.withOffsetReset(offsetReset);
        }
        return new KafkoBackendConsumer(kafko, topic, kafko.groupConsumer(topic, group, options));
    }

    @Override
    public void ensureTopic(String topic, int minPartitions) {
        topics.ensure(topic, minPartitions);
    }

    @Override
    public boolean mayCreateTopic(String topic) {
        return topics.mayCreate(topic);
    }

    @Override
    public void checkTopicName(String topic) {
        kafko.topic(topic); // a lookup checks the name first, and throws InvalidNameException for an illegal one
    }

    @Override
    public int partitionCount(String topic) {
        Optional<Topic> t = kafko.topic(topic);
        if (t.isEmpty()) {
            throw new UnknownTopicException("topic '" + topic + "' does not exist");
        }
        return t.get().partitionCount();
    }

    @Override
    public Map<Integer, Long> endOffsets(String topic) {
        Map<Integer, Long> ends = new HashMap<>();
        for (PartitionInfo p : partitions(topic)) {
            ends.put(p.partition(), p.endOffset());
        }
        return ends;
    }

    @Override
    public List<PartitionInfo> partitions(String topic) {
        Topic t = kafko.topic(topic).orElseThrow(() -> new UnknownTopicException("topic '" + topic + "' does not exist"));
        // sends made before this call that linger count: write them first
        kafko.producer(topic).flush();
        return t.partitions();
    }

    /** The topic's handle: the engine keeps one per topic for as long as it exists ({@link Kafko#topic}). */
    @Override
    public @Nullable Object topicId(String topic) {
        return kafko.topic(topic).orElse(null);
    }

    @Override
    public boolean startsAtEndWithoutCommit() {
        return kafko.options().offsetReset() == OffsetResetPolicy.LATEST;
    }

    @Override
    public Map<Integer, Long> committedOffsets(String topic, String group) {
        return kafko.groupInfo(topic, group).committed();
    }

    /**
     * An anonymous consumer of the topic, at {@code offset} on {@code partition} and at the end of the others:
     * the first record at or past {@code offset} it reads of the partition is the one at {@code offset}, or a
     * later one when retention deleted it (a position below the log start moves to the start). Records of the
     * other partitions are skipped, and so are earlier ones of the partition (a seek past the end moves the
     * position to the end).
     */
    @Override
    public @Nullable KafkoRecord read(String topic, int partition, long offset, Duration timeout) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative: " + offset);
        }
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        Topic t = kafko.topic(topic).orElseThrow(() -> new UnknownTopicException("topic '" + topic + "' does not exist"));
        if (offset < t.partition(partition).logStartOffset()) {
            return null; // deleted by retention
        }
        ConsumerOptions options = ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.EARLIEST);
        try (Consumer consumer = kafko.consumer(topic, options)) {
            for (int p : consumer.assignment()) {
                if (p != partition) {
                    consumer.seekToEnd(p);
                }
            }
            consumer.seek(partition, offset);
            long start = System.nanoTime();
            long wait = Timeouts.saturatedNanos(timeout);
            do {
                long left = Math.max(0, wait - (System.nanoTime() - start));
                for (KafkoRecord r : consumer.poll(Duration.ofNanos(left))) {
                    // below the offset: written after a seek past the end, which moved the position to the end
                    if (r.partition() == partition && r.offset() >= offset) {
                        return r.offset() == offset ? r : null;
                    }
                }
            } while (System.nanoTime() - start < wait);
            return null;
        }
    }

    @Override
    public Set<String> topicNames() {
        return kafko.topics();
    }

    @Override
    public @Nullable AutoCloseable watchTopicCreations(java.util.function.Consumer<String> created) {
        return creations == null ? null : creations.watch(created);
    }

    @Override
    public long currentTimeMillis() {
        return kafko.options().clock().millis();
    }

    private record KafkoBackendProducer(Producer producer) implements BackendProducer {

        @Override
        public String topic() {
            return producer.topic();
        }

        @Override
        public CompletableFuture<RecordPosition> send(@Nullable Integer partition, byte @Nullable [] key,
                                                      byte @Nullable [] value, Headers headers, long timestamp) {
            OutgoingRecord record = OutgoingRecord.of(key, value, headers, timestamp);
            return partition == null ? producer.send(record) : producer.sendTo(partition, record);
        }

        @Override
        public CompletableFuture<List<RecordPosition>> sendBatch(List<OutgoingRecord> records, int[] partitions) {
            return producer.sendBatch(records, partitions);
        }

        @Override
        public void checkRecord(@Nullable Integer partition, OutgoingRecord record) {
            if (partition == null) {
                producer.checkRecord(record);
            } else {
                producer.checkRecord(partition, record);
            }
        }

        @Override
        public void flush() {
            producer.flush();
        }
    }

    private record KafkoBackendConsumer(Kafko kafko, String topic, Consumer consumer) implements BackendConsumer {

        @Override
        public List<KafkoRecord> poll(Duration timeout) {
            return consumer.poll(timeout);
        }

        @Override
        public void commit(Map<Integer, Long> offsets) {
            consumer.commit(offsets);
        }

        @Override
        public void seek(int partition, long offset) {
            consumer.seek(partition, offset);
        }

        @Override
        public long position(int partition) {
            return consumer.position(partition);
        }

        @Override
        public void seekToBeginning(Collection<Integer> partitions) {
            for (int p : partitions) {
                consumer.seekToBeginning(p);
            }
        }

        /** The readable end: under EVERY_BATCH a record not yet fsynced is read once it is, not skipped. */
        @Override
        public void seekToEnd(Collection<Integer> partitions) {
            for (int p : partitions) {
                consumer.seekToEnd(p);
            }
        }

        @Override
        public void seekToTimestamp(Collection<Integer> partitions, long epochMillis) {
            for (int p : partitions) {
                consumer.seekToTimestamp(p, epochMillis);
            }
        }

        @Override
        public Set<Integer> assignment() {
            return consumer.assignment();
        }

        @Override
        public void pause(Collection<Integer> partitions) {
            consumer.pause(partitions);
        }

        @Override
        public void resume(Collection<Integer> partitions) {
            consumer.resume(partitions);
        }

        @Override
        public Set<Integer> paused() {
            return consumer.paused();
        }

        @Override
        public void wakeup() {
            consumer.wakeup();
        }

        @Override
        public void close() {
            consumer.close();
        }
    }
}
