package dev.kafko;

import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of one consumer group on one topic.
 *
 * @param topic the topic
 * @param group the group
 * @param committed the committed offset per partition (partitions without a commit are absent)
 * @param lag per partition, the end offset (what consumers may read: under {@link FsyncPolicy#EVERY_BATCH}
 *     the records whose fsync returned) minus where the group reads next: its committed offset;
 *     the log start when its commit is below the log start (retention deleted records it never read);
 *     without a commit, where a member without one starts: the log start, or the end (a lag of 0) under
 *     {@link OffsetResetPolicy#LATEST} — the policy of the group's consumer made last in this instance
 *     (its own {@link ConsumerOptions#offsetReset()}, else the instance's), before any the instance's; never
 *     negative (a commit past the end counts 0)
 * @param members how many live members the group has in this instance
 */
public record GroupInfo(String topic, String group, Map<Integer, Long> committed, Map<Integer, Long> lag, int members) {

    public GroupInfo {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(committed, "committed");
        Objects.requireNonNull(lag, "lag");
    }
}
