package dev.kafko.spring.listener;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes, from any container thread, a record that exhausted its attempts to
 * {@code <topic>.DLT} on the same partition, with its key, value and headers plus
 * {@code kafko_dlt-*} headers naming the exception and the original topic, partition and offset.
 * The dead-letter topic is created on first use with at least as many partitions as the original.
 */
public final class DeadLetterPublishingRecoverer implements RecordRecoverer {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterPublishingRecoverer.class);

    /** The suffix of dead-letter topics. */
    public static final String SUFFIX = ".DLT";

    private final LogBackend backend;
    private final KafkoInstrumentation instrumentation;
    private final Map<String, Integer> ensuredPartitions = new ConcurrentHashMap<>();

    public DeadLetterPublishingRecoverer(LogBackend backend, KafkoInstrumentation instrumentation) {
        this.backend = backend;
        this.instrumentation = instrumentation;
    }

    @Override
    public void recover(KafkoRecord record, Exception failure, FailedInvocation invocation) {
        String dlt = record.topic() + SUFFIX;
        ensureDeadLetterTopic(record.topic(), dlt, record.partition() + 1);
        Headers headers = record.headers()
                .with(KafkoHeaders.DLT_EXCEPTION_FQCN, utf8(failure.getClass().getName()))
                .with(KafkoHeaders.DLT_EXCEPTION_MESSAGE, utf8(String.valueOf(failure.getMessage())))
                .with(KafkoHeaders.DLT_EXCEPTION_STACKTRACE, utf8(stackTrace(failure)))
                .with(KafkoHeaders.DLT_ORIGINAL_TOPIC, utf8(record.topic()))
                .with(KafkoHeaders.DLT_ORIGINAL_PARTITION, utf8(Integer.toString(record.partition())))
                .with(KafkoHeaders.DLT_ORIGINAL_OFFSET, utf8(Long.toString(record.offset())))
                .with(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP, utf8(Long.toString(record.timestamp())))
                .with(KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP, utf8(invocation.groupId()));
        backend.producer(dlt).send(record.partition(), record.key(), record.value(), headers, record.timestamp()).join();
        instrumentation.deadLettered(invocation.listenerId(), record.topic());
        LOG.warn("Listener '{}' gave up on {}-{}@{} ({}); published it to {}", invocation.listenerId(),
                record.topic(), record.partition(), record.offset(), failure.toString(), dlt);
    }

    private void ensureDeadLetterTopic(String topic, String dlt, int atLeast) {
        Integer known = ensuredPartitions.get(dlt);
        if (known != null && known >= atLeast) {
            return;
        }
        int wanted = Math.max(atLeast, backend.partitionCount(topic));
        backend.ensureTopic(dlt, wanted);
        ensuredPartitions.merge(dlt, wanted, Math::max);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String stackTrace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }
}
