package dev.kafko;

import java.util.Map;

/**
 * A snapshot of one consumer group on one topic.
 *
 * @param topic the topic
 * @param group the group
 * @param committed the committed offset per partition (partitions without a commit are absent)
 * @param lag per partition, the end offset minus where the group reads next: its committed offset,
 *     or the log start when it has no commit or its commit is below the log start (retention deleted
 *     records it never read)
 * @param members how many live members the group has in this instance
 */
public record GroupInfo(String topic, String group, Map<Integer, Long> committed, Map<Integer, Long> lag, int members) {
}
