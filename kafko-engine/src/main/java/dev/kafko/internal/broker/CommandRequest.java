package dev.kafko.internal.broker;

import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.CompactionPlan;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * Internal: work other than an append that must run as the partition's single writer (flush,
 * retention, close, and writing lingering sends); see {@link Request} for which thread does what.
 */
final class CommandRequest extends Request<Void> {

    /** What the owner does. */
    enum Kind {
        /** The interval fsync came due. */
        INTERVAL_FLUSH,
        /** Apply the retention limits. */
        RETENTION,
        /** Flush and close the log because the instance closes. */
        CLOSE,
        /** Close the log because the topic is being deleted. */
        DELETE,
        /** Lingering sends have waited long enough. */
        LINGER_ENDED,
        /** A thread blocks on a lingering send. */
        AWAITED,
        /** Write the sends that linger now: a consumer is about to park. */
        WRITE_LINGERING,
        /** A producer flushes: write the sends that linger, and mark which rounds it waits for. */
        WRITE_SUBMITTED,
        /** The topic's config changed: write by {@link CommandRequest#config} from now on. */
        RECONFIGURE,
        /** Put the segments of {@link CommandRequest#plan}, a compaction prepared off the owner, in place. */
        COMPACT
    }

    final Kind kind;
    /**
     * {@link Kind#WRITE_SUBMITTED}, {@link Kind#CLOSE}, {@link Kind#DELETE}: the epoch of the rounds released before it
     * ({@link CompletionBarrier}); null until the command runs.
     */
    CompletionBarrier.@Nullable Epoch epoch;

    /** {@link Kind#RECONFIGURE}: the topic's new config; null for every other kind. */
    final @Nullable TopicConfig config;
    /** {@link Kind#RECONFIGURE}: whether the seals of later rolls are forced; {@link Kind#COMPACT}: whether the files are. */
    final boolean forceSeals;
    /** {@link Kind#COMPACT}: the compaction to apply; null for every other kind. */
    final @Nullable CompactionPlan plan;
    /** {@link Kind#COMPACT}: the records removed by the segments it put in place, once it ran. */
    long compactedRecords;

    CommandRequest(Kind kind) {
        this(kind, null, false);
    }

    CommandRequest(Kind kind, @Nullable TopicConfig config, boolean forceSeals) {
        this(kind, config, forceSeals, null);
    }

    CommandRequest(Kind kind, @Nullable TopicConfig config, boolean forceSeals, @Nullable CompactionPlan plan) {
        this.kind = kind;
        this.config = config;
        this.forceSeals = forceSeals;
        this.plan = plan;
    }

    /** Waits for the command; its failure is thrown as it is (typed), not wrapped. Returns this command. */
    CommandRequest await() {
        try {
            join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
        return this;
    }

    @Override
    int recordCount() {
        return 0;
    }

    @Override
    void addRecords(List<OutgoingRecord> frame) {
        // a command carries no records
    }

    @Override
    long encodedBytes() {
        return 0;
    }

    @Override
    @Nullable Void result(int partition) {
        return null;
    }
}
