package dev.kafko.spring.listener;

import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.LogBackend;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A real backend whose group consumers a test wraps (to make their commits or polls fail, say); a subclass overrides
 * what else it changes.
 */
public class DelegatingBackend implements LogBackend {

    final LogBackend real;
    private final UnaryOperator<BackendConsumer> wrap;

    DelegatingBackend(LogBackend real, UnaryOperator<BackendConsumer> wrap) {
        this.real = real;
        this.wrap = wrap;
    }

    /** A backend that changes nothing: a subclass overrides what it changes. */
    public DelegatingBackend(LogBackend real) {
        this(real, UnaryOperator.identity());
    }

    @Override
    public BackendProducer producer(String topic) {
        return real.producer(topic);
    }

    @Override
    public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                         ConsumerRebalanceListener rebalanceListener) {
        return wrap.apply(real.groupConsumer(topic, group, maxPollRecords, rebalanceListener));
    }

    @Override
    public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                         ConsumerRebalanceListener rebalanceListener, boolean createTopic) {
        return wrap.apply(real.groupConsumer(topic, group, maxPollRecords, rebalanceListener, createTopic));
    }

    @Override
    public Set<String> topicNames() {
        return real.topicNames();
    }

    @Override
    public @Nullable AutoCloseable watchTopicCreations(java.util.function.Consumer<String> created) {
        return real.watchTopicCreations(created);
    }

    @Override
    public boolean startsAtEndWithoutCommit() {
        return real.startsAtEndWithoutCommit();
    }

    @Override
    public @Nullable KafkoRecord read(String topic, int partition, long offset, Duration timeout) {
        return real.read(topic, partition, offset, timeout);
    }

    @Override
    public void ensureTopic(String topic, int minPartitions) {
        real.ensureTopic(topic, minPartitions);
    }

    @Override
    public void checkTopicName(String topic) {
        real.checkTopicName(topic);
    }

    @Override
    public int partitionCount(String topic) {
        return real.partitionCount(topic);
    }

    @Override
    public Map<Integer, Long> endOffsets(String topic) {
        return real.endOffsets(topic);
    }

    @Override
    public @Nullable Object topicId(String topic) {
        return real.topicId(topic);
    }

    @Override
    public Map<Integer, Long> committedOffsets(String topic, String group) {
        return real.committedOffsets(topic, group);
    }

    @Override
    public long currentTimeMillis() {
        return real.currentTimeMillis();
    }

    /** A consumer that does what {@code c} does; tests override what they change. */
    static class DelegatingConsumer implements BackendConsumer {
        final BackendConsumer c;

        DelegatingConsumer(BackendConsumer c) {
            this.c = c;
        }

        @Override
        public List<KafkoRecord> poll(Duration timeout) {
            return c.poll(timeout);
        }

        @Override
        public void commit(Map<Integer, Long> offsets) {
            c.commit(offsets);
        }

        @Override
        public void seek(int partition, long offset) {
            c.seek(partition, offset);
        }

        @Override
        public long position(int partition) {
            return c.position(partition);
        }

        @Override
        public Set<Integer> assignment() {
            return c.assignment();
        }

        @Override
        public void wakeup() {
            c.wakeup();
        }

        @Override
        public void close() {
            c.close();
        }
    }
}
