package dev.kafko.spring.core;

import dev.kafko.ConsumerRebalanceListener;
import java.util.Map;

/**
 * The part of a test's {@link LogBackend} that only sends: one-partition topics, each there when asked, nothing to
 * consume, no offsets, the clock at 0. A test's backend adds its producers.
 */
abstract class SendOnlyBackend implements LogBackend {

    @Override
    public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                         ConsumerRebalanceListener rebalanceListener) {
        throw new UnsupportedOperationException("sends only");
    }

    @Override
    public void ensureTopic(String topic, int minPartitions) {
    }

    @Override
    public void checkTopicName(String topic) {
    }

    @Override
    public int partitionCount(String topic) {
        return 1;
    }

    @Override
    public Map<Integer, Long> endOffsets(String topic) {
        return Map.of();
    }

    @Override
    public Map<Integer, Long> committedOffsets(String topic, String group) {
        return Map.of();
    }

    @Override
    public long currentTimeMillis() {
        return 0;
    }
}
