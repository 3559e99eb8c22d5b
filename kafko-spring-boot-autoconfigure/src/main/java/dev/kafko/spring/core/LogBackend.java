package dev.kafko.spring.core;

import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The narrow seam through which {@link KafkoTemplate} and the listener containers reach a log.
 * {@link KafkoBackend} implements it over kafko; another implementation (for example over
 * kafka-clients) could be added without touching annotations, properties or user code.
 * Implementations are thread-safe.
 */
public interface LogBackend {

    /**
     * A producer for {@code topic}, creating the topic first when it is unknown and auto-creation
     * is on.
     *
     * @throws dev.kafko.UnknownTopicException when the topic is unknown and may not be created
     */
    BackendProducer producer(String topic);

    /**
     * A member of {@code group} on {@code topic}, creating the topic first when allowed. The member
     * is used by one thread at a time; only {@link BackendConsumer#wakeup()} may be called from others.
     *
     * @param maxPollRecords the most records one poll returns
     * @param rebalanceListener told on the polling thread when partitions move
     */
    BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                  ConsumerRebalanceListener rebalanceListener);

    /**
     * As {@link #groupConsumer(String, String, int, ConsumerRebalanceListener)}, creating the topic only when
     * {@code createTopic} (a listener that follows a topic pattern never creates the topics it reads). The default
     * checks that the topic exists first, when it may not create it.
     *
     * @throws dev.kafko.UnknownTopicException when the topic is unknown and may not be created
     */
    default BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                          ConsumerRebalanceListener rebalanceListener, boolean createTopic) {
        if (!createTopic && !topicNames().contains(topic)) {
            throw new dev.kafko.UnknownTopicException("topic '" + topic + "' does not exist");
        }
        return groupConsumer(topic, group, maxPollRecords, rebalanceListener);
    }

    /**
     * As {@link #groupConsumer(String, String, int, ConsumerRebalanceListener, boolean)}, starting a partition
     * {@code group} never committed, and handling a position outside the log, as {@code offsetReset} says rather than
     * as the backend's own policy ({@code null}: the backend's). The default takes no policy of its own.
     *
     * @throws UnsupportedOperationException when {@code offsetReset} is given and the backend cannot take it
     */
    default BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                          ConsumerRebalanceListener rebalanceListener, boolean createTopic,
                                          dev.kafko.@Nullable OffsetResetPolicy offsetReset) {
        if (offsetReset != null) {
            throw new UnsupportedOperationException(getClass().getName() + " cannot take an offset reset policy per"
                    + " consumer");
        }
        return groupConsumer(topic, group, maxPollRecords, rebalanceListener, createTopic);
    }

    /**
     * A consumer of exactly {@code partitions} of {@code topic}, assigned by hand (Kafka's {@code assign}), that
     * starts each at {@code group}'s committed offset and commits {@code group}'s offsets, without being a member
     * of it: no rebalance callbacks, and its commits are refused while the group has live members. Creates the
     * topic first when {@code createTopic} and allowed. The default cannot assign partitions.
     *
     * @throws dev.kafko.UnknownTopicException when the topic is unknown and may not be created
     * @throws dev.kafko.InvalidPartitionException when the topic does not have one of {@code partitions}
     */
    default BackendConsumer assignedConsumer(String topic, String group, java.util.Set<Integer> partitions,
                                             int maxPollRecords, boolean createTopic) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot assign partitions by hand");
    }

    /**
     * As {@link #assignedConsumer(String, String, java.util.Set, int, boolean)}, with {@code offsetReset} in place of
     * the backend's own policy ({@code null}: the backend's). The default takes no policy of its own.
     *
     * @throws UnsupportedOperationException when {@code offsetReset} is given and the backend cannot take it
     */
    default BackendConsumer assignedConsumer(String topic, String group, java.util.Set<Integer> partitions,
                                             int maxPollRecords, boolean createTopic,
                                             dev.kafko.@Nullable OffsetResetPolicy offsetReset) {
        if (offsetReset != null) {
            throw new UnsupportedOperationException(getClass().getName() + " cannot take an offset reset policy per"
                    + " consumer");
        }
        return assignedConsumer(topic, group, partitions, maxPollRecords, createTopic);
    }

    /**
     * Makes sure {@code topic} exists with at least {@code minPartitions} partitions: creates it
     * (when allowed) or grows it.
     */
    void ensureTopic(String topic, int minPartitions);

    /**
     * Whether {@link #ensureTopic} may create {@code topic} should it not exist (it is declared, or topics are
     * created on first use). By default true.
     */
    default boolean mayCreateTopic(String topic) {
        return true;
    }

    /**
     * Checks that {@code topic} is a legal topic name, without creating anything.
     *
     * @throws dev.kafko.InvalidNameException naming the rule the name breaks
     */
    void checkTopicName(String topic);

    /** The current partition count of an existing topic. */
    int partitionCount(String topic);

    /**
     * The end offset (the offset the next record will get) of every partition of {@code topic}, once
     * every send made to it before the call is written (a send may linger in the log before it is).
     */
    Map<Integer, Long> endOffsets(String topic);

    /**
     * The partitions of an existing topic as they are now, in partition order, once every send made to it before the
     * call is written (as {@link #endOffsets}). The default cannot describe them.
     *
     * @throws UnsupportedOperationException when this backend cannot
     */
    default List<PartitionInfo> partitions(String topic) {
        throw new UnsupportedOperationException(getClass().getName() + " does not describe the partitions of a topic");
    }

    /**
     * Identifies the topic named so as it exists now, as Kafka's topic id does: equal ids for as long as
     * it exists, another one for a topic created again under its name after a delete; {@code null} when
     * no topic has the name. The default cannot tell the two apart: it returns the name itself.
     */
    default @Nullable Object topicId(String topic) {
        return topic;
    }

    /** The committed offsets of {@code group} on {@code topic}; partitions without a commit are absent. */
    Map<Integer, Long> committedOffsets(String topic, String group);

    /**
     * Whether a group member starts a partition its group never committed at the partition's end (Kafka's
     * {@code auto.offset.reset=latest}) rather than at its oldest record. The default: no.
     */
    default boolean startsAtEndWithoutCommit() {
        return false;
    }

    /**
     * The record at {@code offset} of {@code topic}'s {@code partition}, read without a group (nothing is
     * committed), waiting up to {@code timeout} for it to be written; {@code null} when it is not there by then,
     * or no longer there (retention deleted it). The default cannot read by offset.
     *
     * @throws dev.kafko.UnknownTopicException when the topic does not exist (a read never creates it)
     * @throws dev.kafko.InvalidPartitionException when the topic has no such partition
     */
    default @Nullable KafkoRecord read(String topic, int partition, long offset, Duration timeout) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot read by offset");
    }

    /**
     * The names of the topics that exist now. The default cannot list them.
     *
     * @throws UnsupportedOperationException when this backend cannot list its topics
     */
    default java.util.Set<String> topicNames() {
        throw new UnsupportedOperationException(getClass().getName() + " cannot list its topics");
    }

    /**
     * Calls {@code created} with the name of every topic created from now on, on the creating thread (it must not
     * block), until the returned handle is closed; {@code null} when this backend cannot tell (a listener with a
     * topic pattern then reads the matching topics that existed when it started). The default cannot tell.
     */
    default @Nullable AutoCloseable watchTopicCreations(java.util.function.Consumer<String> created) {
        return null;
    }

    /** Now, by the log's clock, in epoch millis: the timestamp the template gives new records. */
    long currentTimeMillis();
}
