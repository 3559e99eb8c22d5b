package dev.kafko.internal.log;

import dev.kafko.TopicConfig;

/**
 * Internal: which of a partition's segments its retention limits delete, as Kafka decides it. Oldest
 * first, whole segments: by age, a segment whose newest record is older than {@code retention}; by size,
 * a segment without which the partition still holds at least {@code retentionBytes}. The active segment
 * is counted like the others (a partition nobody appends to keeps no expired record): {@link PartitionLog}
 * rolls before it deletes it. An empty segment (only ever the active one) is never counted.
 */
final class RetentionRule {

    private RetentionRule() {
    }

    /** How many segments, from the oldest, the limits of {@code config} delete at {@code now}. */
    static int deletable(Segment[] segments, long sizeBytes, TopicConfig config, long now) {
        long cutoff = ageCutoff(config, now);
        long total = sizeBytes;
        int n = 0;
        while (n < segments.length) {
            Segment s = segments[n];
            boolean byAge = s.maxTimestamp() < cutoff;
            boolean byBytes = config.retentionBytes() >= 0 && total - s.size() >= config.retentionBytes();
            if ((!byAge && !byBytes) || s.isEmpty()) {
                return n;
            }
            total -= s.size();
            n++;
        }
        return n;
    }

    /**
     * Records stamped before this are past {@code retention} at {@code now}; {@link Long#MIN_VALUE} when
     * nothing is (no retention, or {@code now - retention} lies before every possible timestamp: a clock
     * before 1970 with a retention of "never" must not wrap around to delete everything).
     */
    private static long ageCutoff(TopicConfig config, long now) {
        if (config.retention() == null) {
            return Long.MIN_VALUE;
        }
        long retention = config.retention().toMillis();
        long cutoff = now - retention;
        return ((now ^ retention) & (now ^ cutoff)) < 0 ? Long.MIN_VALUE : cutoff;
    }
}
