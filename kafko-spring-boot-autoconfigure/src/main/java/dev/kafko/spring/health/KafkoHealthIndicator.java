package dev.kafko.spring.health;

import dev.kafko.Kafko;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Topic;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.util.unit.DataSize;

/**
 * The health of kafko: UP with the data directory, topic count and free disk; DOWN when a
 * partition FAILED (naming topic, partition and cause), when free disk is below the minimum, or
 * when a listener container's polling thread died (naming the listener in {@code failedListeners}, and
 * why in {@code listenerFailures}). Free disk going below the minimum, and back, is logged once each.
 * Any thread may call it; it reads snapshots only.
 */
public final class KafkoHealthIndicator extends AbstractHealthIndicator {

    private static final Logger LOG = LoggerFactory.getLogger(KafkoHealthIndicator.class);

    private final Kafko kafko;
    private final DataSize minFreeDisk;
    private final ObjectProvider<KafkoListenerEndpointRegistry> registry;
    /** Whether the last check found the disk below the minimum: a change is logged once. */
    private volatile boolean lastDiskLow;

    public KafkoHealthIndicator(Kafko kafko, DataSize minFreeDisk, ObjectProvider<KafkoListenerEndpointRegistry> registry) {
        super("kafko health check failed");
        this.kafko = kafko;
        this.minFreeDisk = minFreeDisk;
        this.registry = registry;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        Path dir = kafko.dataDir();
        long free = Files.getFileStore(dir).getUsableSpace();
        List<Map<String, Object>> failed = failedPartitions();
        Map<String, String> deadListeners = deadListeners();
        boolean diskLow = free < minFreeDisk.toBytes();
        builder.withDetail("dataDir", dir.toString())
                .withDetail("topics", kafko.topics().size())
                .withDetail("freeDiskBytes", free)
                .withDetail("minFreeDiskBytes", minFreeDisk.toBytes());
        if (!failed.isEmpty()) {
            builder.withDetail("failedPartitions", failed);
        }
        if (!deadListeners.isEmpty()) {
            builder.withDetail("failedListeners", List.copyOf(deadListeners.keySet()));
            builder.withDetail("listenerFailures", deadListeners);
        }
        if (diskLow != lastDiskLow) {
            lastDiskLow = diskLow;
            if (diskLow) {
                LOG.warn("kafko health is DOWN: free disk {} in {} is below {} (kafko.health.min-free-disk)",
                        readable(free), dir, readable(minFreeDisk.toBytes()));
            } else {
                LOG.info("kafko health: free disk in {} is back above kafko.health.min-free-disk", dir);
            }
        }
        if (diskLow) {
            builder.withDetail("error", "free disk " + readable(free) + " is below " + readable(minFreeDisk.toBytes())
                    + " (kafko.health.min-free-disk)");
        }
        if (failed.isEmpty() && deadListeners.isEmpty() && !diskLow) {
            builder.up();
        } else {
            builder.down();
        }
    }

    /**
     * {@code bytes} in the largest binary unit that keeps it at 1 or more (as Spring's {@code DataSize} counts:
     * 1KB = 1024 bytes), with one decimal below 10: "952KB", not the "0MB" of whole megabytes.
     */
    static String readable(long bytes) {
        String[] units = {"B", "KB", "MB", "GB", "TB", "PB"};
        double value = bytes;
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        String number = unit == 0 || value >= 10 ? String.valueOf(Math.round(value))
                : String.format(Locale.ROOT, "%.1f", value);
        return number + units[unit];
    }

    private List<Map<String, Object>> failedPartitions() {
        List<Map<String, Object>> failed = new ArrayList<>();
        for (String name : kafko.topics()) {
            Optional<Topic> topic = kafko.topic(name);
            if (topic.isEmpty()) {
                continue; // deleted meanwhile
            }
            for (PartitionInfo p : topic.get().partitions()) {
                if (p.state() == PartitionState.FAILED) {
                    Map<String, Object> detail = new LinkedHashMap<>();
                    detail.put("topic", p.topic());
                    detail.put("partition", p.partition());
                    detail.put("cause", p.failure() == null ? "unknown" : p.failure().toString());
                    failed.add(detail);
                }
            }
        }
        return failed;
    }

    /** The listeners whose polling thread died, each with why (or "unknown"). */
    private Map<String, String> deadListeners() {
        KafkoListenerEndpointRegistry endpoints = registry.getIfAvailable();
        if (endpoints == null) {
            return Map.of();
        }
        Map<String, String> dead = new LinkedHashMap<>();
        for (MessageListenerContainer container : endpoints.getListenerContainers()) {
            if (!container.isInExpectedState()) {
                Throwable failure = container.getFailure();
                dead.put(container.getListenerId(), failure == null ? "unknown" : failure.toString());
            }
        }
        return dead;
    }
}
