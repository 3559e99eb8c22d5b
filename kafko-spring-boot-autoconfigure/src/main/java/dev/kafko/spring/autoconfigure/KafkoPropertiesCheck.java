package dev.kafko.spring.autoconfigure;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.util.unit.DataSize;

/**
 * Checks every {@code kafko.*} property before the data directory is created or opened, so that a value
 * out of range fails start-up, naming the property, with nothing created on disk (the listener and
 * template settings were otherwise checked only when their beans were built, after the log was open).
 * The beans check their own values again where they use them: an application that opens its own
 * {@link Kafko} skips this. Two declared topics whose names differ only by '.' against '_' are refused here too, as
 * the engine would refuse the second after creating the first.
 */
final class KafkoPropertiesCheck {

    private KafkoPropertiesCheck() {
    }

    /**
     * @param classLoader loads the classes {@code kafko.listener.retry.not-retryable} names
     * @throws InvalidKafkoPropertyException naming the property
     */
    static void check(KafkoProperties properties, @Nullable ClassLoader classLoader) {
        Map<String, String> declaredAs = new HashMap<>();
        for (String name : properties.declaredTopics().keySet()) {
            String property = KafkoTopicProvisioner.propertyPrefix(name);
            checkName(property, "topic", name);
            String other = declaredAs.putIfAbsent(name.replace('.', '_'), name);
            if (other != null) {
                throw new InvalidKafkoPropertyException(property, "declares topic '" + name + "', which collides with"
                        + " topic '" + other + "' (" + KafkoTopicProvisioner.propertyPrefix(other) + "): Kafka"
                        + " counts '.' and '_' in topic names as the same character and refuses such a pair, so kafko"
                        + " does too");
            }
        }
        String defaultTopic = properties.getTemplate().getDefaultTopic();
        if (defaultTopic != null && !defaultTopic.isBlank()) {
            checkName("kafko.template.default-topic", "topic", defaultTopic);
        }
        notNegative("kafko.linger", properties.getLinger());
        notNegative("kafko.max-block", properties.getMaxBlock());
        DataSize queued = properties.getMaxQueuedBytes();
        if (queued.toBytes() < 1) {
            throw new InvalidKafkoPropertyException("kafko.max-queued-bytes", "must be at least 1 byte, was "
                    + queued.toBytes() + " bytes");
        }
        between("kafko.compaction-buffer-size", properties.getCompactionBufferSize(),
                KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, KafkoOptions.MAX_COMPACTION_BUFFER_BYTES);
        notNegative("kafko.health.min-free-disk", properties.getHealth().getMinFreeDisk());
        KafkoProperties.Listener listener = properties.getListener();
        atLeastOne("kafko.listener.concurrency", listener.getConcurrency());
        atLeastOne("kafko.listener.max-poll-records", listener.getMaxPollRecords());
        positive("kafko.listener.poll-timeout", listener.getPollTimeout());
        notNegative("kafko.listener.shutdown-timeout", listener.getShutdownTimeout());
        if (listener.getGroupId() != null && !listener.getGroupId().isBlank()) {
            checkName("kafko.listener.group-id", "group", listener.getGroupId());
        }
        atLeastOne("kafko.listener.ack-count", listener.getAckCount());
        positive("kafko.listener.ack-time", listener.getAckTime());
        if (listener.getIdleEventInterval() != null) {
            positive("kafko.listener.idle-event-interval", listener.getIdleEventInterval());
        }
        if (listener.getIdlePartitionEventInterval() != null) {
            positive("kafko.listener.idle-partition-event-interval",
                    listener.getIdlePartitionEventInterval());
        }
        atLeastOne("kafko.listener.retry.max-attempts", listener.getRetry().getMaxAttempts());
        notNegative("kafko.listener.retry.backoff", listener.getRetry().getBackoff());
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

    /** {@code value}, or an error naming {@code property} when it is below 1. */
    static int atLeastOne(String property, int value) {
        if (value < 1) {
            throw new InvalidKafkoPropertyException(property, "must be at least 1, was " + value);
        }
        return value;
    }

    /** {@code value}, or an error naming {@code property} when it is zero or negative. */
    static Duration positive(String property, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new InvalidKafkoPropertyException(property, "must be positive, was " + value);
        }
        return value;
    }

    /** {@code value}, or an error naming {@code property} when it is negative. */
    static Duration notNegative(String property, Duration value) {
        if (value.isNegative()) {
            throw new InvalidKafkoPropertyException(property, "must not be negative, was " + value);
        }
        return value;
    }

    /** {@code value}'s bytes, or an error naming {@code property} when they are not in {@code [min, max]}. */
    static long between(String property, DataSize value, long min, long max) {
        if (value.toBytes() < min || value.toBytes() > max) {
            throw new InvalidKafkoPropertyException(property, "must be between " + size(min) + " and " + size(max)
                    + ", was " + size(value.toBytes()));
        }
        return value.toBytes();
    }

    /** {@code bytes} as the largest whole unit of a {@link DataSize} property ({@code 64KB}, {@code 1GB}). */
    private static String size(long bytes) {
        String[] units = {"B", "KB", "MB", "GB"};
        int u = 0;
        while (u < units.length - 1 && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            u++;
        }
        return bytes + units[u];
    }

    /** {@code value}, or an error naming {@code property} when it is negative. */
    static DataSize notNegative(String property, DataSize value) {
        if (value.isNegative()) {
            throw new InvalidKafkoPropertyException(property, "must not be negative, was " + value);
        }
        return value;
    }
}
