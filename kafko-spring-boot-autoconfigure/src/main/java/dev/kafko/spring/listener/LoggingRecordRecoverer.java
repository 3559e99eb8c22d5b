package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.StackTraceLimiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a record that exhausted its attempts at ERROR and lets the container commit past it. The stack
 * trace comes with the first failure of its kind (listener and exception class) and then at most once a
 * minute; the records between are one line each, with the exception and its cause: a replay of a topic
 * whose old records no longer convert does not flood the log. Thread-safe.
 */
public final class LoggingRecordRecoverer implements RecordRecoverer {

    private static final Logger LOG = LoggerFactory.getLogger(LoggingRecordRecoverer.class);

    private final StackTraceLimiter traces = new StackTraceLimiter();

    @Override
    public void recover(KafkoRecord record, Exception failure, FailedInvocation invocation) {
        if (traces.traceDue(invocation.listenerId() + '\0' + failure.getClass().getName())) {
            LOG.error("Listener '{}' gave up on {}-{}@{}; skipping it", invocation.listenerId(), record.topic(),
                    record.partition(), record.offset(), failure);
        } else {
            LOG.error("Listener '{}' gave up on {}-{}@{}; skipping it: {} (stack trace logged with an earlier one)",
                    invocation.listenerId(), record.topic(), record.partition(), record.offset(),
                    StackTraceLimiter.oneLine(failure));
        }
    }
}
