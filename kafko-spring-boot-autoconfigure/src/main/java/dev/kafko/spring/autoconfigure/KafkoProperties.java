package dev.kafko.spring.autoconfigure;

import dev.kafko.InvalidConfigException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.TopicConfig;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ContainerProperties;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code kafko.*} properties. Defaults equal the engine's ({@code TopicConfig.DEFAULTS},
 * {@code KafkoOptions.DEFAULTS}); a test keeps them so. A key under {@code kafko.} that names no property (a
 * typo such as {@code kafko.topics.orders.max-record-bytes}) fails the start naming it: a misspelt retention or
 * size limit silently left at its default keeps records for ever, or refuses them.
 */
@ConfigurationProperties(prefix = "kafko", ignoreUnknownFields = false)
public class KafkoProperties {

    /** Whether to auto-configure kafko at all. */
    private boolean enabled = true;

    /** Directory that holds the log; created when missing. Ignored when ephemeral. */
    private Path dataDir = Path.of("kafko-data");

    /**
     * Use a fresh temporary directory, deleted on close (for tests); since the directory does not
     * outlive the context, its topic metadata is not fsynced, rolled segments of topics under the
     * never fsync policy are not fsynced at their roll, and the close fsyncs nothing.
     */
    private boolean ephemeral;

    /** Create a topic nobody declared on its first send or listen, with kafko.defaults. */
    private boolean autoCreateTopics = true;

    /**
     * Change the keys a declared topic's declaration (kafko.topics, NewTopic beans) names where the existing topic's
     * stored config differs, as spring-kafka's modifyTopicConfigs does (keys it does not name stay); when false, each
     * such difference is logged as a warning and the stored config stays.
     */
    private boolean modifyTopicConfigs;

    /**
     * Longest a send that streams in with others may wait to be written in one frame with the sends
     * after it; 0 writes every send at once. A send never waits while a listener of its partition is
     * idle, nor when a thread blocks on its future; only sends observed through callbacks alone may
     * complete up to this much later.
     */
    private Duration linger = Duration.ofMillis(1);

    /**
     * Most bytes of records waiting in one partition's queue to be written (each counted at its
     * encoded size plus 64 bytes); a send that finds the queue full waits for room, like a Kafka
     * producer at buffer.memory.
     */
    private DataSize maxQueuedBytes = DataSize.ofMegabytes(8);

    /**
     * How long a send waits for room in a full partition queue before its future fails with
     * BufferExhaustedException; 0 fails at once.
     */
    private Duration maxBlock = Duration.ofSeconds(60);

    /**
     * Most bytes (about) a compaction of a compacted topic's partition keeps its keys in, 64KB to 1GB: each key takes
     * its length plus 31 to 57 bytes; a partition whose keys do not fit is compacted in passes.
     */
    private DataSize compactionBufferSize = DataSize.ofMegabytes(32);

    /**
     * Where a listener's group starts on a partition it has no commit for (earliest: the log start,
     * replaying what is kept; latest: the end, only what comes next), and what a consumer does with a
     * position outside the log (fail: throw OffsetOutOfRangeException).
     */
    private OffsetResetPolicy offsetReset = OffsetResetPolicy.EARLIEST;

    /** Config of topics created without one of their own. */
    private final TopicDefaults defaults = new TopicDefaults();

    /** Topics to create (or check and grow) at start-up, by name; unset keys take kafko.defaults. */
    private final Map<String, TopicProperties> topics = new LinkedHashMap<>();

    private final Template template = new Template();

    private final Listener listener = new Listener();

    private final Health health = new Health();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Path getDataDir() {
        return dataDir;
    }

    public void setDataDir(Path dataDir) {
        this.dataDir = dataDir;
    }

    public boolean isEphemeral() {
        return ephemeral;
    }

    public void setEphemeral(boolean ephemeral) {
        this.ephemeral = ephemeral;
    }

    public Duration getLinger() {
        return linger;
    }

    public void setLinger(Duration linger) {
        this.linger = linger;
    }

    public DataSize getMaxQueuedBytes() {
        return maxQueuedBytes;
    }

    public void setMaxQueuedBytes(DataSize maxQueuedBytes) {
        this.maxQueuedBytes = maxQueuedBytes;
    }

    public DataSize getCompactionBufferSize() {
        return compactionBufferSize;
    }

    public void setCompactionBufferSize(DataSize compactionBufferSize) {
        this.compactionBufferSize = compactionBufferSize;
    }

    public Duration getMaxBlock() {
        return maxBlock;
    }

    public void setMaxBlock(Duration maxBlock) {
        this.maxBlock = maxBlock;
    }

    public OffsetResetPolicy getOffsetReset() {
        return offsetReset;
    }

    public void setOffsetReset(OffsetResetPolicy offsetReset) {
        this.offsetReset = offsetReset;
    }

    public boolean isAutoCreateTopics() {
        return autoCreateTopics;
    }

    public void setAutoCreateTopics(boolean autoCreateTopics) {
        this.autoCreateTopics = autoCreateTopics;
    }

    public boolean isModifyTopicConfigs() {
        return modifyTopicConfigs;
    }

    public void setModifyTopicConfigs(boolean modifyTopicConfigs) {
        this.modifyTopicConfigs = modifyTopicConfigs;
    }

    public TopicDefaults getDefaults() {
        return defaults;
    }

    public Map<String, TopicProperties> getTopics() {
        return topics;
    }

    public Template getTemplate() {
        return template;
    }

    public Listener getListener() {
        return listener;
    }

    public Health getHealth() {
        return health;
    }

    /**
     * The engine config of new topics: kafko.defaults over the engine's defaults.
     *
     * @throws InvalidKafkoPropertyException naming the property ({@code kafko.defaults.partitions}, say) of a
     *     value out of range, caused by the engine's {@link InvalidConfigException}
     */
    public TopicConfig topicDefaults() {
        return defaults.applyTo("kafko.defaults", TopicConfig.DEFAULTS);
    }

    /**
     * The declared topics' engine configs: each one's keys over kafko.defaults.
     *
     * @throws InvalidKafkoPropertyException naming the property ({@code kafko.topics.orders.partitions}, say) of
     *     a value out of range, caused by the engine's {@link InvalidConfigException}
     */
    public Map<String, TopicConfig> declaredTopics() {
        TopicConfig base = topicDefaults();
        Map<String, TopicConfig> declared = new LinkedHashMap<>();
        for (Map.Entry<String, TopicProperties> topic : topics.entrySet()) {
            String name = topic.getKey();
            declared.put(name, topic.getValue().applyTo(KafkoTopicProvisioner.propertyPrefix(name), base));
        }
        return declared;
    }

    /** The declared topics that set no {@code partitions} of their own (they take kafko.defaults'). */
    public Set<String> topicsWithDefaultPartitions() {
        Set<String> names = new LinkedHashSet<>();
        for (Map.Entry<String, TopicProperties> topic : topics.entrySet()) {
            if (topic.getValue().getPartitions() == null) {
                names.add(topic.getKey());
            }
        }
        return names;
    }

    /** kafko.defaults.*: every key has the engine's default. */
    public static class TopicDefaults extends TopicSettings.Defaults {
    }

    /** kafko.topics.&lt;name&gt;.*: unset keys take kafko.defaults. */
    public static class TopicProperties extends TopicSettings.Overrides {
    }

    /** kafko.template.*. */
    public static class Template {

        /** Topic that sendDefault sends to. */
        private @Nullable String defaultTopic;

        public @Nullable String getDefaultTopic() {
            return defaultTopic;
        }

        public void setDefaultTopic(@Nullable String defaultTopic) {
            this.defaultTopic = defaultTopic;
        }

        /**
         * Whether every send is a Micrometer observation (kafko.template), which puts the current trace
         * context into the record's headers. Needs an ObservationRegistry bean (Spring Boot Actuator).
         */
        private boolean observationEnabled;

        public boolean isObservationEnabled() {
            return observationEnabled;
        }

        public void setObservationEnabled(boolean observationEnabled) {
            this.observationEnabled = observationEnabled;
        }

        /**
         * Whether sends join the transaction of the sending thread (executeInTransaction, a @Transactional method),
         * written when it commits and dropped when it rolls back.
         */
        private boolean transactional;

        public boolean isTransactional() {
            return transactional;
        }

        public void setTransactional(boolean transactional) {
            this.transactional = transactional;
        }

        /** Whether a transactional template may also send outside a transaction, writing at once. */
        private boolean allowNonTransactional;

        public boolean isAllowNonTransactional() {
            return allowNonTransactional;
        }

        public void setAllowNonTransactional(boolean allowNonTransactional) {
            this.allowNonTransactional = allowNonTransactional;
        }
    }

    /** kafko.listener.*: defaults of every listener container. */
    public static class Listener {

        /** When offsets are committed: record, batch, manual, manual-immediate, count, time or count-time. */
        private AckMode ackMode = AckMode.BATCH;

        /** Records processed between two commits under the count and count-time ack modes. */
        private int ackCount = ContainerProperties.DEFAULT_ACK_COUNT;

        /** Time between two commits under the time and count-time ack modes. */
        private Duration ackTime = ContainerProperties.DEFAULT_ACK_TIME;

        /** Members (threads) per listener and topic that share the partitions. */
        private int concurrency = 1;

        /** How long one poll waits for records. */
        private Duration pollTimeout = Duration.ofSeconds(1);

        /** The most records one poll returns. */
        private int maxPollRecords = 500;

        /** How long stopping waits for a member to finish its record in hand. */
        private Duration shutdownTimeout = Duration.ofSeconds(10);

        /**
         * Whether the containers of the auto-configured factory start with the context; a listener's autoStartup
         * attribute decides for its own. False: none reads until started through the registry (a test that checks
         * only what is sent, say).
         */
        private boolean autoStartup = true;

        /**
         * The kind of a @KafkoListener method without a batch attribute whose container factory has no
         * setBatchListener: single (one record per call) or batch (every record of a poll as a List).
         */
        private Type type = Type.SINGLE;

        /**
         * The consumer group of the listeners whose @KafkoListener sets idIsGroup = false and no groupId (the others
         * take their groupId, else their id). Unset: such a listener fails the start.
         */
        private @Nullable String groupId;

        /**
         * How long a member goes without records before it publishes a ListenerContainerIdleEvent (again after
         * each further interval without records) and calls ConsumerSeekAware.onIdleContainer. Unset: never.
         */
        private @Nullable Duration idleEventInterval;

        /**
         * How long a partition a member reads goes without records before the member publishes a
         * ListenerContainerPartitionIdleEvent for it (again after each further interval without records of it).
         * Unset: never.
         */
        private @Nullable Duration idlePartitionEventInterval;

        /**
         * Whether every record's delivery to a record listener (its attempts and recovery) is a Micrometer
         * observation (kafko.listener), which continues the trace context the record carries. Needs an
         * ObservationRegistry bean (Spring Boot Actuator). Batch listeners are not observed.
         */
        private boolean observationEnabled;

        private final Retry retry = new Retry();

        private final DeadLetter deadLetter = new DeadLetter();

        /** The kind of a listener method, as Spring Boot's {@code spring.kafka.listener.type}. */
        public enum Type {
            /** One record per call. */
            SINGLE,
            /** Every record of a poll at once, as a {@code List}. */
            BATCH
        }

        public boolean isAutoStartup() {
            return autoStartup;
        }

        public void setAutoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
        }

        public Type getType() {
            return type;
        }

        public void setType(Type type) {
            this.type = type;
        }

        public boolean isObservationEnabled() {
            return observationEnabled;
        }

        public void setObservationEnabled(boolean observationEnabled) {
            this.observationEnabled = observationEnabled;
        }

        public AckMode getAckMode() {
            return ackMode;
        }

        public void setAckMode(AckMode ackMode) {
            this.ackMode = ackMode;
        }

        public int getAckCount() {
            return ackCount;
        }

        public void setAckCount(int ackCount) {
            this.ackCount = ackCount;
        }

        public Duration getAckTime() {
            return ackTime;
        }

        public void setAckTime(Duration ackTime) {
            this.ackTime = ackTime;
        }

        public int getConcurrency() {
            return concurrency;
        }

        public void setConcurrency(int concurrency) {
            this.concurrency = concurrency;
        }

        public Duration getPollTimeout() {
            return pollTimeout;
        }

        public void setPollTimeout(Duration pollTimeout) {
            this.pollTimeout = pollTimeout;
        }

        public int getMaxPollRecords() {
            return maxPollRecords;
        }

        public void setMaxPollRecords(int maxPollRecords) {
            this.maxPollRecords = maxPollRecords;
        }

        public @Nullable String getGroupId() {
            return groupId;
        }

        public void setGroupId(@Nullable String groupId) {
            this.groupId = groupId;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }

        public @Nullable Duration getIdleEventInterval() {
            return idleEventInterval;
        }

        public void setIdleEventInterval(@Nullable Duration idleEventInterval) {
            this.idleEventInterval = idleEventInterval;
        }

        public @Nullable Duration getIdlePartitionEventInterval() {
            return idlePartitionEventInterval;
        }

        public void setIdlePartitionEventInterval(@Nullable Duration idlePartitionEventInterval) {
            this.idlePartitionEventInterval = idlePartitionEventInterval;
        }

        public Retry getRetry() {
            return retry;
        }

        public DeadLetter getDeadLetter() {
            return deadLetter;
        }
    }

    /** kafko.listener.retry.*: read by the default error handler, not by a KafkoErrorHandler bean of the application's. */
    public static class Retry {

        /**
         * Attempts per record, the first one included; then the record is recovered. Not read when the
         * application defines its own KafkoErrorHandler bean.
         */
        private int maxAttempts = 10;

        /** Delay between two attempts. Not read when the application defines its own KafkoErrorHandler bean. */
        private Duration backoff = Duration.ZERO;

        /**
         * Fully qualified names of exceptions not worth retrying: a failure with one of them in its
         * cause chain is recovered at once. Not read when the application defines its own
         * KafkoErrorHandler bean.
         */
        private List<String> notRetryable = new ArrayList<>();

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getBackoff() {
            return backoff;
        }

        public void setBackoff(Duration backoff) {
            this.backoff = backoff;
        }

        public List<String> getNotRetryable() {
            return notRetryable;
        }

        public void setNotRetryable(List<String> notRetryable) {
            this.notRetryable = notRetryable;
        }
    }

    /** kafko.listener.dead-letter.*. */
    public static class DeadLetter {

        /**
         * Publish records that exhausted their attempts to the dead-letter topic (the topic's name
         * plus .DLT) instead of logging and skipping them. Not read when the application defines its
         * own KafkoErrorHandler bean.
         */
        private boolean enabled;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** kafko.health.*. */
    public static class Health {

        /** Below this free space on the data directory's disk the health is DOWN. */
        private DataSize minFreeDisk = DataSize.ofMegabytes(100);

        public DataSize getMinFreeDisk() {
            return minFreeDisk;
        }

        public void setMinFreeDisk(DataSize minFreeDisk) {
            this.minFreeDisk = minFreeDisk;
        }
    }
}
