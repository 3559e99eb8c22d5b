package dev.kafko.spring.autoconfigure;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * Checks every {@code kafko.*} property before the data directory is created or opened, so that a value
 * out of range fails start-up, naming the property, with nothing created on disk (the listener and
 * template settings were otherwise checked only when their beans were built, after the log was open).
 * The beans check their own values again where they use them: an application that opens its own
 * {@link Kafko} skips this.
 */
final class KafkoPropertiesCheck {

    private KafkoPropertiesCheck() {
    }

    /**
     * @param classLoader loads the classes {@code kafko.listener.retry.not-retryable} names
     * @throws InvalidKafkoPropertyException naming the property
     */
    static void check(KafkoProperties properties, @Nullable ClassLoader classLoader) {
        for (String name : properties.declaredTopics().keySet()) {
            checkName(KafkoTopicProvisioner.propertyPrefix(name), "topic", name);
        }
        String defaultTopic = properties.getTemplate().getDefaultTopic();
        if (defaultTopic != null && !defaultTopic.isBlank()) {
            checkName("kafko.template.default-topic", "topic", defaultTopic);
        }
        KafkoAutoConfiguration.notNegative("kafko.linger", properties.getLinger());
        KafkoAutoConfiguration.notNegative("kafko.max-block", properties.getMaxBlock());
        DataSize queued = properties.getMaxQueuedBytes();
        if (queued.toBytes() < 1) {
            throw new InvalidKafkoPropertyException("kafko.max-queued-bytes", "must be at least 1 byte, was "
                    + queued.toBytes() + " bytes");
        }
        KafkoAutoConfiguration.between("kafko.compaction-buffer-size", properties.getCompactionBufferSize(),
                KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, KafkoOptions.MAX_COMPACTION_BUFFER_BYTES);
        KafkoAutoConfiguration.notNegative("kafko.health.min-free-disk", properties.getHealth().getMinFreeDisk());
        KafkoProperties.Listener listener = properties.getListener();
        KafkoAutoConfiguration.atLeastOne("kafko.listener.concurrency", listener.getConcurrency());
        KafkoAutoConfiguration.atLeastOne("kafko.listener.max-poll-records", listener.getMaxPollRecords());
        KafkoAutoConfiguration.positive("kafko.listener.poll-timeout", listener.getPollTimeout());
        KafkoAutoConfiguration.notNegative("kafko.listener.shutdown-timeout", listener.getShutdownTimeout());
        if (listener.getGroupId() != null && !listener.getGroupId().isBlank()) {
            checkName("kafko.listener.group-id", "group", listener.getGroupId());
        }
        KafkoAutoConfiguration.atLeastOne("kafko.listener.ack-count", listener.getAckCount());
        KafkoAutoConfiguration.positive("kafko.listener.ack-time", listener.getAckTime());
        if (listener.getIdleEventInterval() != null) {
            KafkoAutoConfiguration.positive("kafko.listener.idle-event-interval", listener.getIdleEventInterval());
        }
        if (listener.getIdlePartitionEventInterval() != null) {
            KafkoAutoConfiguration.positive("kafko.listener.idle-partition-event-interval",
                    listener.getIdlePartitionEventInterval());
        }
        KafkoAutoConfiguration.atLeastOne("kafko.listener.retry.max-attempts", listener.getRetry().getMaxAttempts());
        KafkoAutoConfiguration.notNegative("kafko.listener.retry.backoff", listener.getRetry().getBackoff());
        for (String name : listener.getRetry().getNotRetryable()) {
            KafkoAutoConfiguration.throwableClass(name.strip(), classLoader);
        }
    }

    private static void checkName(String property, String kind, String name) {
        try {
            Kafko.checkName(kind, name);
        } catch (InvalidNameException e) {
            throw new InvalidKafkoPropertyException(property, e.getMessage(), e);
        }
    }
}
