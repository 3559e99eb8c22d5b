package dev.kafko.spring.core;

import dev.kafko.Compression;
import dev.kafko.CompressionUnavailableException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.function.UnaryOperator;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;

/**
 * Creates, from any thread, the topics declared under {@code kafko.topics.<name>.*} (at start-up)
 * and the topics nobody declared (on first use, when auto-creation is on); two threads creating
 * one topic at once both end up with it.
 */
public final class KafkoTopicProvisioner implements InitializingBean {

    private static final Logger LOG = LoggerFactory.getLogger(KafkoTopicProvisioner.class);
    /** How many times {@link #create} tries a topic that another caller created and deleted again meanwhile. */
    private static final int CREATE_ATTEMPTS = 10;

    /** The suffix of dead-letter topics: {@code <topic>.DLT} takes the dead letters of {@code <topic>}. */
    public static final String DEAD_LETTER_SUFFIX = ".DLT";

    private final Kafko kafko;
    /** The declared topics: given at construction, and by {@link #declare} later (read by any thread). */
    private final Map<String, TopicConfig> declared = new ConcurrentHashMap<>();
    /** The declared topics whose partition count is kafko.defaults', not their own. */
    private final Set<String> defaultPartitions = ConcurrentHashMap.newKeySet();
    private final boolean autoCreate;
    private final Map<String, String> declaredBy = new ConcurrentHashMap<>();
    private volatile boolean logCreations = true;
    private volatile boolean modifyTopicConfigs;
    /**
     * For a declared topic, its declaration's own keys set on a config (the others left as they are): what an
     * existing topic is compared with and changed to; a topic without is compared with its whole declared config.
     */
    private final Map<String, UnaryOperator<TopicConfig>> declaredKeys = new ConcurrentHashMap<>();

    /**
     * @param declared the topics to create or check at start-up, with their configs
     * @param autoCreate whether a topic nobody declared is created on first send or listen, with
     *     the instance's topic defaults
     */
    public KafkoTopicProvisioner(Kafko kafko, Map<String, TopicConfig> declared, boolean autoCreate) {
        this(kafko, declared, Set.of(), autoCreate);
    }

    /**
     * @param defaultPartitions the declared topics whose partition count came from the defaults rather
     *     than their own {@code partitions} key: an existing one with more partitions keeps them (no
     *     declaration asked for fewer)
     */
    public KafkoTopicProvisioner(Kafko kafko, Map<String, TopicConfig> declared, Set<String> defaultPartitions,
                                 boolean autoCreate) {
        this(kafko, declared, defaultPartitions, autoCreate, Map.of());
    }

    /**
     * @param declaredBy for a declared topic that is not declared by properties, what declared it, for messages
     *     ({@code NewTopic bean 'orders'}); the others are named by their {@code kafko.topics.<name>} prefix
     */
    public KafkoTopicProvisioner(Kafko kafko, Map<String, TopicConfig> declared, Set<String> defaultPartitions,
                                 boolean autoCreate, Map<String, String> declaredBy) {
        this.kafko = kafko;
        this.declared.putAll(declared);
        this.defaultPartitions.addAll(defaultPartitions);
        this.autoCreate = autoCreate;
        this.declaredBy.putAll(declaredBy);
    }

    /**
     * Whether each topic this provisioner creates is logged at INFO (the default), or at DEBUG (an ephemeral log,
     * whose topics are all new at every start).
     */
    public void setLogCreations(boolean logCreations) {
        this.logCreations = logCreations;
    }

    /**
     * Whether a declared topic that exists with another config than its declaration's is changed to it
     * ({@link Topic#alterConfig}, logged at INFO), as spring-kafka's {@code modifyTopicConfigs}; by default the
     * stored config stays and each difference is logged as a warning. Read at each start-up check and
     * {@link #declare}; {@link #createOrGrow} is told by its caller.
     */
    public void setModifyTopicConfigs(boolean modifyTopicConfigs) {
        this.modifyTopicConfigs = modifyTopicConfigs;
    }

    /**
     * The declared topics' own keys, each as a function that sets them on a config and leaves the others: an existing
     * topic then differs from its declaration only in the keys the declaration names (a key changed at run time by
     * {@link Topic#alterConfig}, or a changed {@code kafko.defaults}, is left alone), as spring-kafka's
     * {@code KafkaAdmin} compares only the configs a {@code NewTopic} names. Without, the whole declared config counts.
     */
    public void setDeclaredKeys(Map<String, UnaryOperator<TopicConfig>> keys) {
        declaredKeys.putAll(keys);
    }

    /** See {@link #setModifyTopicConfigs}. */
    public boolean isModifyTopicConfigs() {
        return modifyTopicConfigs;
    }

    /**
     * Creates or checks every declared topic: first checks that none would shrink and that the codec of each is
     * available, so that a start-up that fails has created or grown nothing (partitions never shrink back).
     */
    @Override
    public void afterPropertiesSet() {
        provisionAll(declared);
    }

    /** Whether {@code name} is a declared topic. */
    public boolean declares(String name) {
        return declared.containsKey(name);
    }

    /**
     * What declared {@code name}, when it was given with its declarer ({@code NewTopic bean 'orders'}, at construction
     * or to {@link #declare}); null for a topic declared otherwise (by properties, or in the map of a constructor
     * without declarers) or not declared.
     */
    public @Nullable String declaredBy(String name) {
        return declaredBy.get(name);
    }

    /**
     * Declares more topics, and creates or checks them as {@link #afterPropertiesSet()} does those given at
     * construction (all checked before any is created or grown); a topic already declared is left as it is. For
     * declarations that could not be read before this provisioner was needed: the auto-configuration's
     * {@code NewTopic} beans whose own making needed it.
     *
     * @param defaultPartitions those of {@code topics} whose partition count is {@code kafko.defaults}'
     * @param declaredBy what declared each of {@code topics}, for messages
     */
    public synchronized void declare(Map<String, TopicConfig> topics, Set<String> defaultPartitions,
                                     Map<String, String> declaredBy) {
        declare(topics, defaultPartitions, declaredBy, Map.of());
    }

    /**
     * {@link #declare(Map, Set, Map)}, with each topic's own keys (see {@link #setDeclaredKeys}).
     */
    public synchronized void declare(Map<String, TopicConfig> topics, Set<String> defaultPartitions,
                                     Map<String, String> declaredBy, Map<String, UnaryOperator<TopicConfig>> keys) {
        Map<String, TopicConfig> added = new LinkedHashMap<>();
        for (Map.Entry<String, TopicConfig> topic : topics.entrySet()) {
            if (!declared.containsKey(topic.getKey())) {
                added.put(topic.getKey(), topic.getValue());
            }
        }
        for (String name : added.keySet()) {
            if (defaultPartitions.contains(name)) {
                this.defaultPartitions.add(name);
            }
            String by = declaredBy.get(name);
            if (by != null) {
                this.declaredBy.put(name, by);
            }
            UnaryOperator<TopicConfig> own = keys.get(name);
            if (own != null) {
                declaredKeys.put(name, own);
            }
        }
        // declared before the checks: a dead-letter topic's check looks at its original topic's declaration
        declared.putAll(added);
        provisionAll(added);
    }

    /**
     * Creates the topics that do not exist and grows those with fewer partitions, without declaring them: all are
     * checked first (none would shrink, each codec is available), so that a call that fails has created or grown
     * nothing. An existing topic's other keys stay as stored, each difference logged as a warning. Calls run one at a
     * time (with {@link #declare}), so that two growing one topic at once do not find it grown between check and
     * growth.
     *
     * @param countless those of {@code topics} that ask for no partition count of their own: an existing one keeps
     *     its count, a new one gets its config's
     * @param by what asked for each of {@code topics}, for messages ({@code NewTopic 'orders'})
     * @throws KafkoException naming the topic and who asked, when one would shrink
     * @throws CompressionUnavailableException when one's codec (stored, or asked for) cannot be used in this JVM
     */
    public synchronized void createOrGrow(Map<String, TopicConfig> topics, Set<String> countless,
                                          Map<String, String> by) {
        createOrGrow(topics, countless, by, false, Map.of());
    }

    /**
     * {@link #createOrGrow(Map, Set, Map)}; with {@code modify}, an existing topic's keys that differ from those asked
     * for are changed ({@link Topic#alterConfig}) instead of staying as stored, the codec asked for checked too.
     *
     * @param keys each topic's own keys (see {@link #setDeclaredKeys}); a topic without is compared whole
     */
    public synchronized void createOrGrow(Map<String, TopicConfig> topics, Set<String> countless,
                                          Map<String, String> by, boolean modify,
                                          Map<String, UnaryOperator<TopicConfig>> keys) {
        provisionAll(topics, countless, by, modify, keys);
    }

    private void provisionAll(Map<String, TopicConfig> topics) {
        provisionAll(topics, defaultPartitions, declaredBy, modifyTopicConfigs, declaredKeys);
    }

    private void provisionAll(Map<String, TopicConfig> topics, Set<String> countless, Map<String, String> by,
            boolean modify, Map<String, UnaryOperator<TopicConfig>> keys) {
        for (Map.Entry<String, TopicConfig> topic : topics.entrySet()) {
            checkNoShrink(topic.getKey(), topic.getValue(), countless, by.get(topic.getKey()));
        }
        for (Map.Entry<String, TopicConfig> topic : topics.entrySet()) {
            checkCodec(topic.getKey(), topic.getValue(), by.get(topic.getKey()), modify);
        }
        for (Map.Entry<String, TopicConfig> topic : topics.entrySet()) {
            provision(topic.getKey(), topic.getValue(), countless, by.get(topic.getKey()), modify,
                    keys.get(topic.getKey()));
        }
    }

    /**
     * A declared topic whose codec this JVM lacks (an existing topic's stored one, else the declared one) can be
     * neither written nor read: the start-up fails, as the creation of a new one does, rather than every send and
     * every poll of it failing for the life of the process.
     */
    private void checkCodec(String name, TopicConfig config, @Nullable String by, boolean modify) {
        Optional<Topic> existing = kafko.topic(name);
        Compression compression = existing.map(t -> t.config().compression()).orElse(config.compression());
        requireCodec(name, compression, by, existing.isPresent() ? "exists with" : "asks for");
        if (modify && compression != config.compression()) {
            requireCodec(name, config.compression(), by, "asks for");
        }
    }

    private static void requireCodec(String name, Compression compression, @Nullable String by, String how) {
        try {
            compression.requireAvailable();
        } catch (CompressionUnavailableException e) {
            throw new CompressionUnavailableException(declarer(name, by) + ": topic '" + name + "' " + how
                    + " compression " + compression + ", which cannot be used in this JVM: " + e.getMessage(), e);
        }
    }

    private void checkNoShrink(String name, TopicConfig config, Set<String> countless, @Nullable String by) {
        Optional<Topic> existing = kafko.topic(name);
        if (existing.isEmpty() || countless.contains(name)) {
            return;
        }
        int current = existing.get().partitionCount();
        if (config.partitions() < current && !grownAsDeadLetterTopic(name, current)) {
            throw new KafkoException((by == null ? propertyPrefix(name) + ".partitions=" + config.partitions()
                    : by + " with " + config.partitions() + " partitions") + " would shrink topic '" + name
                    + "', which has " + current + " partitions; partitions can only grow: "
                    + (by == null ? "set it to " : "ask for ") + current + " or more");
        }
    }

    private void provision(String name, TopicConfig config, Set<String> countless, @Nullable String by,
            boolean modify, @Nullable UnaryOperator<TopicConfig> own) {
        Optional<Topic> existing = kafko.topic(name);
        Topic topic;
        if (existing.isEmpty()) {
            Made made = create(name, config);
            if (made.here()) {
                return;
            }
            // another caller (a send or a listener's start, with kafko.defaults) created it since the look-up: it gets
            // what an existing topic gets, grown to the count asked for, instead of being taken as it is
            topic = made.topic();
        } else {
            topic = existing.get();
        }
        int current = topic.partitionCount();
        if (config.partitions() < current) {
            LOG.debug("Topic '{}' keeps its {} partitions ({} asks for {}{})", name, current, declarer(name, by),
                    config.partitions(), countless.contains(name) ? ", from kafko.defaults" : ", a dead-letter topic");
            config = config.toBuilder().partitions(current).build();
        }
        if (config.partitions() > current) {
            LOG.info("Growing topic '{}' from {} to {} partitions", name, current, config.partitions());
            growTo(topic, config.partitions());
        }
        TopicConfig stored = topic.config().toBuilder().partitions(config.partitions()).build();
        // the keys the declaration names over the stored ones; its whole config when its own keys are not known
        TopicConfig asked = own == null ? config : own.apply(stored).toBuilder().partitions(config.partitions()).build();
        if (stored.equals(asked)) {
            return;
        }
        if (modify) {
            LOG.info("Changing the config of topic '{}' as {} asks: {}", name, declarer(name, by),
                    differences(stored, asked));
            alterKeepingCount(topic, asked);
        } else {
            LOG.warn("Topic '{}' exists with another config than {} asks for: {}. The stored config stays (only the"
                    + " partition count grows): set kafko.modify-topic-configs=true to change it", name,
                    declarer(name, by), differences(stored, asked));
        }
    }

    /**
     * The keys of {@code asked} that differ from {@code stored}, by their {@code kafko.topics} property names:
     * {@code retention PT1H (asked PT720H), compression LZ4 (asked ZSTD)}; no time retention reads {@code forever}
     * ({@code retention PT168H (asked forever)}).
     */
    static String differences(TopicConfig stored, TopicConfig asked) {
        StringJoiner out = new StringJoiner(", ");
        difference(out, "compression", stored.compression(), asked.compression());
        difference(out, "segment-size", stored.segmentBytes(), asked.segmentBytes());
        difference(out, "segment-age", stored.segmentAge(), asked.segmentAge());
        difference(out, "retention", stored.retention() == null ? "forever" : stored.retention(),
                asked.retention() == null ? "forever" : asked.retention());
        difference(out, "retention-bytes", stored.retentionBytes(), asked.retentionBytes());
        difference(out, "fsync", stored.fsync(), asked.fsync());
        difference(out, "max-record-size", stored.maxRecordBytes(), asked.maxRecordBytes());
        difference(out, "index-interval-bytes", stored.indexIntervalBytes(), asked.indexIntervalBytes());
        difference(out, "cleanup-policy", stored.cleanupPolicy().kafkaName(), asked.cleanupPolicy().kafkaName());
        difference(out, "min-compaction-lag", stored.minCompactionLag(), asked.minCompactionLag());
        difference(out, "delete-retention", stored.deleteRetention(), asked.deleteRetention());
        difference(out, "min-cleanable-dirty-ratio", stored.minCleanableDirtyRatio(), asked.minCleanableDirtyRatio());
        return out.toString();
    }

    private static void difference(StringJoiner out, String key, Object stored, Object asked) {
        if (!stored.equals(asked)) {
            out.add(key + " " + stored + " (asked " + asked + ")");
        }
    }

    /**
     * Changes {@code topic}'s config to {@code config}'s other keys at the count the topic has when the change is
     * made: {@link #ensure} and an application's own {@code increasePartitions} do not take this object's lock, and
     * the engine refuses a change that names another count, so a topic grown meanwhile is asked again at its count.
     */
    private static void alterKeepingCount(Topic topic, TopicConfig config) {
        while (true) {
            int count = topic.partitionCount();
            try {
                topic.alterConfig(config.toBuilder().partitions(count).build());
                return;
            } catch (InvalidPartitionException e) {
                if (topic.partitionCount() == count) {
                    throw e;
                }
                // grown meanwhile (partitions only grow, so this ends): asked again at the new count
            }
        }
    }

    /**
     * Whether {@code name} is a dead-letter topic whose {@code current} partitions are no more than
     * its original topic has (or is declared with): kafko itself grows a dead-letter topic declared
     * with fewer to that count ({@link #ensure}), so finding it so on the next start is no shrink.
     */
    private boolean grownAsDeadLetterTopic(String name, int current) {
        if (!name.endsWith(DEAD_LETTER_SUFFIX) || name.length() == DEAD_LETTER_SUFFIX.length()) {
            return false;
        }
        String original = name.substring(0, name.length() - DEAD_LETTER_SUFFIX.length());
        TopicConfig declaredOriginal = declared.get(original);
        int originalPartitions = Math.max(kafko.topic(original).map(Topic::partitionCount).orElse(0),
                declaredOriginal == null ? 0 : declaredOriginal.partitions());
        return current <= originalPartitions;
    }

    /** What declared {@code name}: {@code by} (a bean), else the properties under its prefix. */
    private static String declarer(String name, @Nullable String by) {
        return by != null ? by : propertyPrefix(name);
    }

    /** The properties that declare topic {@code name}: a name with other than lower-case letters, digits and dashes in brackets. */
    public static String propertyPrefix(String name) {
        // Boot's canonical form: a key of lower-case letters, digits and dashes as is, any other in brackets
        return name.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')
                ? "kafko.topics." + name : "kafko.topics[" + name + "]";
    }

    /** Whether {@link #ensure} may create {@code name} should it not exist: declared, or created on first use. */
    public boolean mayCreate(String name) {
        return autoCreate || declared.containsKey(name);
    }

    /**
     * Makes sure {@code name} exists with at least {@code minPartitions} partitions (a dead-letter topic
     * needs as many as the topic it serves), growing it with a log line when it has fewer.
     *
     * @throws UnknownTopicException when it does not exist and auto-creation is off
     */
    public Topic ensure(String name, int minPartitions) {
        Topic topic = kafko.topic(name).orElse(null);
        if (topic == null) {
            TopicConfig config = declared.get(name);
            if (config == null && !autoCreate) {
                throw new UnknownTopicException("topic '" + name + "' does not exist and kafko.auto-create-topics"
                        + " is false: declare it under " + propertyPrefix(name) + " or as a NewTopic bean, or create it first");
            }
            if (config == null) {
                config = kafko.options().topicDefaults();
            }
            if (config.partitions() < minPartitions) {
                config = config.toBuilder().partitions(minPartitions).build();
            }
            topic = create(name, config).topic();
        }
        if (topic.partitionCount() < minPartitions) {
            LOG.info("Growing topic '{}' from {} to {} partitions (a dead-letter topic has as many as the topic it serves)",
                    name, topic.partitionCount(), minPartitions);
            growTo(topic, minPartitions);
        }
        return topic;
    }

    /**
     * Grows {@code topic} to {@code partitions}, or takes it as it is when another caller grew it to as many or more
     * since its count was read: {@link #ensure} (a dead-letter topic grown to its topic's count, from a listener's
     * thread) does not take this object's lock, and neither does an application's own {@code increasePartitions}, so
     * the engine's refusal of a smaller count than the topic's ("never removed") means only that the topic is larger.
     */
    private static void growTo(Topic topic, int partitions) {
        try {
            topic.increasePartitions(partitions);
        } catch (InvalidPartitionException e) {
            if (topic.partitionCount() < partitions) {
                throw e;
            }
        }
    }

    /** What {@link #create} gave: the topic, and whether this call created it ({@code here}) or took another's. */
    private record Made(Topic topic, boolean here) {
    }

    /**
     * Creates the topic, or takes the one another caller created meanwhile; logs only a creation made here. A
     * topic created by another caller and deleted again before it could be taken is created anew (a few times:
     * tests that delete and create topics while listeners rejoin them do this).
     */
    private Made create(String name, TopicConfig config) {
        for (int attempt = 1; ; attempt++) {
            Topic created;
            try {
                created = kafko.createTopic(name, config);
            } catch (TopicExistsException raced) {
                Topic other = kafko.topic(name).orElse(null);
                if (other != null) {
                    return new Made(other, false);
                }
                if (attempt == CREATE_ATTEMPTS) {
                    throw raced; // refused while a deletion of it runs, from a thread that deletion waits for
                }
                continue;
            }
            if (logCreations) {
                LOG.info("Created topic '{}' with {}", name, config);
            } else {
                LOG.debug("Created topic '{}' with {}", name, config);
            }
            return new Made(created, true);
        }
    }
}
