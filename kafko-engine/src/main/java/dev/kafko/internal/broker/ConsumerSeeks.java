package dev.kafko.internal.broker;

import dev.kafko.KafkoClosedException;
import dev.kafko.OffsetOutOfRangeException;
import java.util.function.ToLongFunction;

/**
 * Internal: the seeks of one {@link ConsumerImpl} and its {@code position}: each checks its arguments first, then
 * that the consumer is open and owns the partition, then moves the consumer's {@link PartitionPositions}. Called
 * by the consumer's one thread, inside its {@link ConsumerThreadGuard}.
 */
final class ConsumerSeeks {

    private final ConsumerImpl consumer;
    private final TopicImpl topic;
    private final PartitionPositions positions;

    ConsumerSeeks(ConsumerImpl consumer, TopicImpl topic, PartitionPositions positions) {
        this.consumer = consumer;
        this.topic = topic;
        this.positions = positions;
    }

    /** {@link ConsumerImpl#seek}: a position past the end is settled there now ({@link PartitionPositions#settle}). */
    void seek(int partition, long offset) {
        // an argument error first, before the close, as every argument is checked (the class comment of Consumer)
        if (offset < 0) {
            throw new OffsetOutOfRangeException("cannot seek partition " + partition + " of topic '" + topic.name
                    + "' to negative offset " + offset, partition, offset);
        }
        consumer.ensureOpen();
        consumer.requireOwned(partition);
        positions.settle(partition, offset, topic.actors()[partition]);
    }

    /** {@link ConsumerImpl#seekAll}: {@link ConsumerImpl#seek} of every owned partition. */
    void seekAll(long offset) {
        // refused whatever the assignment, also an empty one or after the close, as seek refuses it
        if (offset < 0) {
            throw new OffsetOutOfRangeException("cannot seek the partitions of topic '" + topic.name
                    + "' to negative offset " + offset);
        }
        consumer.ensureOpen();
        for (int p : consumer.owned()) {
            consumer.seek(p, offset);
        }
    }

    /** {@link ConsumerImpl#seekToBeginning()}: every owned partition to its log start. */
    void toBeginning() {
        consumer.ensureOpen();
        PartitionActor[] actors = topic.actors();
        for (int p : consumer.owned()) {
            positions.set(p, actors[p].log().logStartOffset());
        }
    }

    /** {@link ConsumerImpl#seekToBeginning(int)}. */
    void toBeginning(int partition) {
        seekOne(partition, actor -> actor.log().logStartOffset());
    }

    /** {@link ConsumerImpl#seekToEnd(int)}. */
    void toEnd(int partition) {
        seekOne(partition, PartitionActor::readableEnd); // what is not yet readable is read, not skipped
    }

    /** Moves one owned partition to the offset {@code where} picks from its actor. */
    private void seekOne(int partition, ToLongFunction<PartitionActor> where) {
        consumer.ensureOpen();
        consumer.requireOwned(partition);
        positions.set(partition, where.applyAsLong(topic.actors()[partition]));
    }

    /** {@link ConsumerImpl#seekToEnd()}: every owned partition to its readable end. */
    void toEnd() {
        consumer.ensureOpen();
        PartitionActor[] actors = topic.actors();
        for (int p : consumer.owned()) {
            positions.set(p, actors[p].readableEnd()); // what is appended and not yet readable is read, not skipped
        }
    }

    /** {@link ConsumerImpl#seekToTimestamp(int, long)}. */
    void toTimestamp(int partition, long epochMillis) {
        // the argument's own error first, before the close and the assignment, as seek(partition, -1) does
        requireTimestamp(epochMillis);
        consumer.ensureOpen();
        consumer.requireOwned(partition);
        toTimestamp(new int[] {partition}, epochMillis);
    }

    private static void requireTimestamp(long epochMillis) {
        if (epochMillis < 0) {
            throw new IllegalArgumentException("cannot seek to negative timestamp " + epochMillis);
        }
    }

    /** Each of {@code partitions} to its first record at or after {@code epochMillis}, else its readable end. */
    void toTimestamp(int[] partitions, long epochMillis) {
        requireTimestamp(epochMillis);
        consumer.ensureOpen();
        for (int p : partitions) {
            PartitionActor actor = topic.actors()[p];
            long found;
            try {
                found = actor.log().offsetForTimestamp(epochMillis);
            } catch (KafkoClosedException | OffsetOutOfRangeException e) {
                // a log closed, or a segment released under the search, by a deleteTopic or a close that raced it is
                // the topic's end (as a poll reports it), not kafko's close nor a position out of range
                topic.ensureOpen();
                throw e;
            }
            // none readable at or after it: the readable end, as a seek to the end
            positions.set(p, Math.min(found, actor.readableEnd()));
        }
    }

    /** {@link ConsumerImpl#position}. */
    long position(int partition) {
        consumer.ensureOpen();
        consumer.requireOwned(partition);
        return positions.get(partition);
    }
}
