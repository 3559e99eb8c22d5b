package dev.kafko.spring.core;

import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.config.NewTopic;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Creates, grows, describes and deletes topics at run time, in the shape of spring-kafka's {@code KafkaAdmin}
 * (the auto-configured bean {@code kafkoAdmin}). Thread-safe. The topics declared for start-up
 * ({@code kafko.topics.*}, {@code NewTopic} beans) need no call here.
 */
public class KafkoAdmin {

    private final Kafko kafko;
    private final KafkoTopicProvisioner topics;

    private volatile boolean modifyTopicConfigs;

    /** Takes {@link KafkoTopicProvisioner#isModifyTopicConfigs()} as its {@link #setModifyTopicConfigs}. */
    public KafkoAdmin(Kafko kafko, KafkoTopicProvisioner topics) {
        this.kafko = kafko;
        this.topics = topics;
        this.modifyTopicConfigs = topics.isModifyTopicConfigs();
    }

    /**
     * Whether {@link #createOrModifyTopics} changes an existing topic's other keys to those of its {@code NewTopic}
     * ({@link Topic#alterConfig}), as spring-kafka's {@code KafkaAdmin.setModifyTopicConfigs}; by default
     * {@code kafko.modify-topic-configs}.
     */
    public void setModifyTopicConfigs(boolean modifyTopicConfigs) {
        this.modifyTopicConfigs = modifyTopicConfigs;
    }

    /**
     * Creates each topic that does not exist, with its keys over the instance's defaults for new topics
     * ({@code kafko.defaults.*}), and grows each existing one that has fewer partitions than it asks for; an existing
     * topic's other keys stay as stored (each key the {@code NewTopic} names with another value is logged as a
     * warning), or, with {@link #setModifyTopicConfigs}, those keys are changed to the {@code NewTopic}'s. All are checked before
     * any is created, grown or changed.
     *
     * @throws KafkoException naming the topic when one would shrink (partitions only grow), or when a name is given
     *     twice
     * @throws dev.kafko.CompressionUnavailableException when one's codec cannot be used in this JVM
     */
    public void createOrModifyTopics(NewTopic... newTopics) {
        TopicConfig base = kafko.options().topicDefaults();
        Map<String, TopicConfig> configs = new LinkedHashMap<>();
        Set<String> countless = new LinkedHashSet<>();
        Map<String, String> by = new LinkedHashMap<>();
        Map<String, UnaryOperator<TopicConfig>> keys = new LinkedHashMap<>();
        for (NewTopic topic : newTopics) {
            String name = topic.name();
            if (configs.put(name, topic.applyTo(base)) != null) {
                throw new KafkoException("topic '" + name + "' is given twice to createOrModifyTopics");
            }
            if (topic.numPartitions() < 0) {
                countless.add(name);
            }
            by.put(name, "NewTopic '" + name + "'");
            keys.put(name, topic::applyTo);
        }
        topics.createOrGrow(configs, countless, by, modifyTopicConfigs, keys);
    }

    /**
     * The topics of these names, in the order given.
     *
     * @throws UnknownTopicException naming the first that does not exist
     */
    public Map<String, Topic> describeTopics(String... topicNames) {
        Map<String, Topic> described = new LinkedHashMap<>();
        for (String name : topicNames) {
            described.put(name, existing(name));
        }
        return described;
    }

    /**
     * Deletes the topics of these names, each as {@link Kafko#deleteTopic} does (its records and its groups'
     * offsets go; a running listener of a topic it may create creates it again: unregister its container first). All
     * must exist when the call begins, and each be given once: none is deleted otherwise (a name given twice would
     * otherwise find its topic gone after the others before it were deleted).
     *
     * @throws UnknownTopicException naming the first that does not exist
     * @throws KafkoException naming a topic given twice
     */
    public void deleteTopics(String... topicNames) {
        Set<String> names = new LinkedHashSet<>();
        for (String name : topicNames) {
            existing(name);
            if (!names.add(name)) {
                throw new KafkoException("topic '" + name + "' is given twice to deleteTopics (nothing was deleted)");
            }
        }
        for (String name : topicNames) {
            kafko.deleteTopic(name);
        }
    }

    private Topic existing(String name) {
        Optional<Topic> topic = kafko.topic(name);
        if (topic.isEmpty()) {
            throw new UnknownTopicException("topic '" + name + "' does not exist");
        }
        return topic.get();
    }
}
