package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.util.unit.DataSize;

/**
 * Each {@code kafko.*} value the start-up check covers, on its own: the first value out of range is refused naming
 * its property, and the value at the edge of the range is accepted (the check is what keeps the data directory
 * from being made for a start that is bound to fail).
 */
class KafkoPropertiesCheckTest {

    @Test
    void theDefaultsPass() {
        assertThatCode(() -> KafkoPropertiesCheck.check(new KafkoProperties(), getClass().getClassLoader()))
                .doesNotThrowAnyException();
    }

    @Test
    void eachValueJustOutOfRangeIsRefusedNamingItsProperty() {
        Map<String, Consumer<KafkoProperties>> bad = new LinkedHashMap<>();
        bad.put("kafko.linger", p -> p.setLinger(Duration.ofMillis(-1)));
        bad.put("kafko.max-block", p -> p.setMaxBlock(Duration.ofMillis(-1)));
        bad.put("kafko.max-queued-bytes", p -> p.setMaxQueuedBytes(DataSize.ofBytes(0)));
        bad.put("kafko.compaction-buffer-size", p -> p.setCompactionBufferSize(DataSize.ofBytes((64 << 10) - 1)));
        bad.put("kafko.health.min-free-disk", p -> p.getHealth().setMinFreeDisk(DataSize.ofBytes(-1)));
        bad.put("kafko.listener.concurrency", p -> p.getListener().setConcurrency(0));
        bad.put("kafko.listener.max-poll-records", p -> p.getListener().setMaxPollRecords(0));
        bad.put("kafko.listener.poll-timeout", p -> p.getListener().setPollTimeout(Duration.ZERO));
        bad.put("kafko.listener.shutdown-timeout", p -> p.getListener().setShutdownTimeout(Duration.ofMillis(-1)));
        bad.put("kafko.listener.ack-count", p -> p.getListener().setAckCount(0));
        bad.put("kafko.listener.ack-time", p -> p.getListener().setAckTime(Duration.ZERO));
        bad.put("kafko.listener.idle-event-interval", p -> p.getListener().setIdleEventInterval(Duration.ZERO));
        bad.put("kafko.listener.idle-partition-event-interval",
                p -> p.getListener().setIdlePartitionEventInterval(Duration.ZERO));
        bad.put("kafko.listener.retry.max-attempts", p -> p.getListener().getRetry().setMaxAttempts(0));
        bad.put("kafko.listener.retry.backoff", p -> p.getListener().getRetry().setBackoff(Duration.ofMillis(-1)));
        bad.put("kafko.listener.retry.not-retryable",
                p -> p.getListener().getRetry().setNotRetryable(List.of(" com.nope.Missing ")));
        bad.put("kafko.template.default-topic", p -> p.getTemplate().setDefaultTopic("bad topic!"));
        bad.put("kafko.listener.group-id", p -> p.getListener().setGroupId("bad group!"));
        bad.put("kafko.defaults.cleanup-policy", p -> p.getDefaults().setCleanupPolicy("compacted"));
        bad.put("kafko.defaults.min-compaction-lag", p -> p.getDefaults().setMinCompactionLag(Duration.ofMillis(-1)));
        bad.put("kafko.defaults.delete-retention", p -> p.getDefaults().setDeleteRetention(Duration.ofMillis(-1)));
        bad.put("kafko.defaults.retention", p -> p.getDefaults().setRetention(Duration.ofMillis(-2)));
        bad.put("kafko.topics.orders.retention", p -> p.getTopics().computeIfAbsent("orders",
                name -> new KafkoProperties.TopicProperties()).setRetention(Duration.ofSeconds(-1)));
        bad.put("kafko.defaults.min-cleanable-dirty-ratio", p -> p.getDefaults().setMinCleanableDirtyRatio(1.01));
        bad.put("kafko.topics.orders.cleanup-policy", p -> p.getTopics().computeIfAbsent("orders",
                name -> new KafkoProperties.TopicProperties()).setCleanupPolicy("delete;compact"));
        bad.put("kafko.topics.orders.min-cleanable-dirty-ratio", p -> p.getTopics().computeIfAbsent("orders",
                name -> new KafkoProperties.TopicProperties()).setMinCleanableDirtyRatio(Double.NaN));
        bad.put("kafko.topics.orders.min-compaction-lag", p -> p.getTopics().computeIfAbsent("orders",
                name -> new KafkoProperties.TopicProperties()).setMinCompactionLag(Duration.ofSeconds(-1)));
        bad.put("kafko.topics.orders.delete-retention", p -> p.getTopics().computeIfAbsent("orders",
                name -> new KafkoProperties.TopicProperties()).setDeleteRetention(Duration.ofSeconds(-1)));
        bad.put("kafko.topics[bad!name]", p -> p.getTopics().put("bad!name", new KafkoProperties.TopicProperties()));
        // Kafka's rule: '.' and '_' count as the same character, so the engine would refuse the second once the first
        // is created; refused here naming it, before the first is created in the data directory
        bad.put("kafko.topics[orders_v1]", p -> {
            p.getTopics().put("orders.v1", new KafkoProperties.TopicProperties());
        p.getTopics().put("orders-v1", new KafkoProperties.TopicProperties()); // '-' is no '.' or '_'
            p.getTopics().put("orders_v1", new KafkoProperties.TopicProperties());
        });
        bad.forEach((property, setting) -> {
            KafkoProperties properties = new KafkoProperties();
            setting.accept(properties);
            assertThatThrownBy(() -> KafkoPropertiesCheck.check(properties, getClass().getClassLoader()))
                    .as(property).isInstanceOfSatisfying(InvalidKafkoPropertyException.class,
                            e -> assertThat(e.getProperty()).isEqualTo(property));
        });
    }

    @Test
    void theValuesAtTheEdgeOfEachRangeAreAccepted() {
        KafkoProperties p = new KafkoProperties();
        p.setLinger(Duration.ZERO);
        p.setMaxBlock(Duration.ZERO);
        p.setMaxQueuedBytes(DataSize.ofBytes(1));
        p.setCompactionBufferSize(DataSize.ofGigabytes(1));
        p.getHealth().setMinFreeDisk(DataSize.ofBytes(0));
        p.getListener().setConcurrency(1);
        p.getListener().setMaxPollRecords(1);
        p.getListener().setPollTimeout(Duration.ofMillis(1));
        p.getListener().setShutdownTimeout(Duration.ZERO);
        p.getListener().setAckCount(1);
        p.getListener().setAckTime(Duration.ofMillis(1));
        p.getListener().setIdleEventInterval(Duration.ofMillis(1));
        p.getListener().setIdlePartitionEventInterval(Duration.ofMillis(1));
        p.getListener().getRetry().setMaxAttempts(1);
        p.getListener().getRetry().setBackoff(Duration.ZERO);
        p.getListener().getRetry().setNotRetryable(List.of(" java.lang.IllegalStateException "));
        p.getTemplate().setDefaultTopic(" "); // blank: no default topic
        p.getTopics().put("orders.v1", new KafkoProperties.TopicProperties());
        p.getDefaults().setCleanupPolicy("Delete, Compact");
        p.getDefaults().setMinCompactionLag(Duration.ZERO);
        p.getDefaults().setDeleteRetention(Duration.ZERO);
        p.getDefaults().setMinCleanableDirtyRatio(0);
        p.getTopics().get("orders.v1").setMinCleanableDirtyRatio(1.0);
        p.getDefaults().setRetention(Duration.ofMillis(-1)); // -1: no time limit
        p.getTopics().get("orders.v1").setRetention(Duration.ofMillis(-1));
        assertThatCode(() -> KafkoPropertiesCheck.check(p, getClass().getClassLoader())).doesNotThrowAnyException();
    }
}
