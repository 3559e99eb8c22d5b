package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;

/**
 * Deals with a record that exhausted its attempts: logs it, publishes it to a dead-letter topic,
 * or anything else. Called on the container member's polling thread; throwing leaves the record
 * uncommitted so it is delivered again.
 */
@FunctionalInterface
public interface RecordRecoverer {

    void recover(KafkoRecord record, Exception failure, FailedInvocation invocation) throws Exception;

    /**
     * Called when a container starts reading {@code topic}, before any record: a recoverer that
     * needs something per topic (a dead-letter topic) checks or creates it here, so that a
     * misconfiguration fails the start instead of every failed record. Does nothing by default.
     */
    default void prepare(String topic) {
    }

    /**
     * Called instead of {@link #prepare} for a topic that a container's {@code topicPattern} matched (see
     * {@link KafkoErrorHandler#prepareMatched}). By default {@link #prepare}.
     */
    default void prepareMatched(String topic) {
        prepare(topic);
    }
}
