package dev.kafko.internal.broker;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Internal: what one poll of a {@link ConsumerImpl} reads from its partitions, fair across them, and the failure
 * of one partition that it holds back for the next poll. Used by the consumer's one polling thread.
 */
final class PollFetch {

    private final TopicImpl topic;
    private final PartitionPositions positions;
    private final int maxPollRecords;
    private int rotation;
    /**
     * A partition's failure met in a poll that returned other partitions' records: the next poll throws it,
     * unless the consumer has left the position it was met at since (a seek, or the partition moved to
     * another member), as Kafka's consumer drops what it fetched for a position it left.
     */
    private @Nullable KafkoException deferredFailure;
    private int deferredPartition;
    private long deferredPosition;
    private long[] rewind = new long[0];

    PollFetch(TopicImpl topic, PartitionPositions positions, int maxPollRecords) {
        this.topic = topic;
        this.positions = positions;
        this.maxPollRecords = maxPollRecords;
    }

    /**
     * Reads from every partition of {@code owned}, starting at a rotating one, up to maxPollRecords. A partition
     * that cannot be read (failed, a corrupt frame, a position out of range under {@code FAIL}) does
     * not hold back the others: their records are returned, and its exception is thrown by the next
     * poll (at once when there are none), so one failed partition neither stops a consumer nor loses
     * the records it read from the others in the same poll; a seek of that partition, or its move to
     * another member, before that poll drops it (the next read there reports what it finds).
     */
    List<KafkoRecord> fetch(int[] owned) {
        KafkoException deferred = deferredFailure;
        if (deferred != null) {
            deferredFailure = null;
            if (contains(owned, deferredPartition) && positions.get(deferredPartition) == deferredPosition) {
                throw deferred;
            }
        }
        int[] ps = owned;
        int n = ps.length;
        if (n == 0) {
            return List.of();
        }
        PartitionActor[] actors = topic.actors();
        int start = Math.floorMod(rotation, n);
        // the next poll starts after the last partition this one read records from (as Kafka's fetcher moves
        // a partition it returned records of to the back): moving the start by one each poll gave the busy
        // partition after a run of empty ones the turns of all of them
        rotation = start + 1;
        List<KafkoRecord> first = null;
        List<KafkoRecord> all = null;
        int count = 0;
        KafkoException failed = null;
        int failedPartition = -1;
        long[] before = startPositions(n);
        int i = 0;
        try {
            for (; i < n && count < maxPollRecords; i++) {
                int p = ps[(start + i) % n];
                before[i] = positions.get(p);
                List<KafkoRecord> got;
                try {
                    got = read(p, actors[p], maxPollRecords - count);
                } catch (KafkoClosedException | UnknownTopicException e) {
                    // a log closed by a deleteTopic that raced this read is the topic's deletion, not kafko's close
                    topic.ensureOpen();
                    throw e; // the consumer's or the topic's end, not one partition's
                } catch (KafkoException e) {
                    if (failed == null) {
                        failed = e;
                        failedPartition = p;
                    }
                    continue;
                }
                if (got.isEmpty()) {
                    continue;
                }
                rotation = start + i + 1;
                count += got.size();
                if (first == null) {
                    first = got;
                } else {
                    if (all == null) {
                        all = new ArrayList<>(first.size() + got.size());
                        all.addAll(first);
                    }
                    all.addAll(got);
                }
            }
        } catch (Error e) {
            // the heap ran out reading a partition (a large frame decompressed) or gathering the records: the poll
            // throws, and returns none of what it read, so the partitions read before go back to where they were
            // (their records would otherwise be skipped, and the group's next commit would pass them). The rewind allocates nothing
            for (int j = Math.min(i, n - 1); j >= 0; j--) {
                positions.set(ps[(start + j) % n], before[j]);
            }
            throw e;
        }
        if (failed != null) {
            if (count == 0) {
                throw failed;
            }
            deferredFailure = failed;
            deferredPartition = failedPartition;
            deferredPosition = positions.get(failedPartition);
        }
        return all != null ? all : first != null ? first : List.of();
    }

    /** The positions of the partitions a poll reads, before it reads them; reused from poll to poll. */
    private long[] startPositions(int n) {
        if (rewind.length < n) {
            rewind = new long[n];
        }
        return rewind;
    }

    private List<KafkoRecord> read(int p, PartitionActor actor, int max) {
        if (!actor.isOpen()) {
            topic.ensureOpen();
            return List.of();
        }
        return positions.read(p, actor, max);
    }

    private static boolean contains(int[] partitions, int partition) {
        for (int p : partitions) {
            if (p == partition) {
                return true;
            }
        }
        return false;
    }
}
