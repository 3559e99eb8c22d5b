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
}
