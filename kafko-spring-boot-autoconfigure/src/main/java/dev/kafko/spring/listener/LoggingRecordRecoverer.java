package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs a record that exhausted its attempts at ERROR and lets the container commit past it. Stateless. */
public final class LoggingRecordRecoverer implements RecordRecoverer {

    private static final Logger LOG = LoggerFactory.getLogger(LoggingRecordRecoverer.class);

    @Override
    public void recover(KafkoRecord record, Exception failure, FailedInvocation invocation) {
        LOG.error("Listener '{}' gave up on {}-{}@{}; skipping it", invocation.listenerId(), record.topic(),
                record.partition(), record.offset(), failure);
    }
}
