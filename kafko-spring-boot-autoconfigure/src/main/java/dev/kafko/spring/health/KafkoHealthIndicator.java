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
import java.util.Map;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.util.unit.DataSize;

/**
 * The health of kafko: UP with the data directory, topic count and free disk; DOWN when a
 * partition FAILED (naming topic, partition and cause), when free disk is below the minimum, or
 * when a listener container's polling thread died (naming the listener). Any thread may call it;
 * it reads snapshots only.
 */
public final class KafkoHealthIndicator extends AbstractHealthIndicator {

    private final Kafko kafko;
    private final DataSize minFreeDisk;
    private final ObjectProvider<KafkoListenerEndpointRegistry> registry;

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
        List<String> deadListeners = deadListeners();
        boolean diskLow = free < minFreeDisk.toBytes();
        builder.withDetail("dataDir", dir.toString())
                .withDetail("topics", kafko.topics().size())
                .withDetail("freeDiskBytes", free)
                .withDetail("minFreeDiskBytes", minFreeDisk.toBytes());
        if (!failed.isEmpty()) {
            builder.withDetail("failedPartitions", failed);
        }
        if (!deadListeners.isEmpty()) {
            builder.withDetail("failedListeners", deadListeners);
        }
        if (diskLow) {
            builder.withDetail("error", "free disk " + DataSize.ofBytes(free).toMegabytes() + "MB is below "
                    + minFreeDisk.toMegabytes() + "MB (kafko.health.min-free-disk)");
        }
        if (failed.isEmpty() && deadListeners.isEmpty() && !diskLow) {
            builder.up();
        } else {
            builder.down();
        }
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

    private List<String> deadListeners() {
        KafkoListenerEndpointRegistry endpoints = registry.getIfAvailable();
        if (endpoints == null) {
            return List.of();
        }
        List<String> dead = new ArrayList<>();
        for (MessageListenerContainer container : endpoints.getListenerContainers()) {
            if (!container.isInExpectedState()) {
                dead.add(container.getListenerId());
            }
        }
        return dead;
    }
}
