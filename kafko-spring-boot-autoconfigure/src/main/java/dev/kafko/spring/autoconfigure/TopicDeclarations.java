package dev.kafko.spring.autoconfigure;

import dev.kafko.InvalidConfigException;
import dev.kafko.TopicConfig;
import dev.kafko.spring.config.NewTopic;
import dev.kafko.spring.config.NewTopics;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The topics an application declares, under {@code kafko.topics.<name>.*} and as {@link NewTopic} and
 * {@link NewTopics} beans, each with its engine config over {@code kafko.defaults.*}: what the
 * {@link KafkoTopicProvisioner} creates or checks at start-up. A topic declared twice fails the start-up naming
 * both declarations: no order between a property and a bean, or two beans, says which one meant it.
 */
final class TopicDeclarations {

    final Map<String, TopicConfig> configs = new LinkedHashMap<>();
    /** The declared topics that leave their partition count to kafko.defaults. */
    final Set<String> defaultPartitions = new LinkedHashSet<>();
    /** For a topic a bean declared, which one. */
    final Map<String, String> declaredBy = new LinkedHashMap<>();
    /** Each topic's own keys, set on a config (the others left as they are). */
    final Map<String, UnaryOperator<TopicConfig>> keys = new LinkedHashMap<>();

    private TopicDeclarations() {
    }

    /**
     * @throws InvalidKafkoPropertyException naming a {@code kafko.topics.*} property of a value out of range
     * @throws InvalidConfigException naming both declarations of a topic declared twice
     */
    static TopicDeclarations of(KafkoProperties properties, ListableBeanFactory beans) {
        TopicDeclarations d = new TopicDeclarations();
        d.configs.putAll(properties.declaredTopics());
        d.defaultPartitions.addAll(properties.topicsWithDefaultPartitions());
        for (Map.Entry<String, KafkoProperties.TopicProperties> topic : properties.getTopics().entrySet()) {
            String prefix = KafkoTopicProvisioner.propertyPrefix(topic.getKey());
            KafkoProperties.TopicProperties own = topic.getValue();
            d.keys.put(topic.getKey(), config -> own.applyTo(prefix, config)); // its own keys, the others left
        }
        // as spring-kafka's KafkaAdmin looks them up: singletons, no factory initialised only to learn its type
        Map<String, NewTopic> single = beans.getBeansOfType(NewTopic.class, false, false);
        Map<String, NewTopics> several = beans.getBeansOfType(NewTopics.class, false, false);
        if (single.isEmpty() && several.isEmpty()) {
            return d;
        }
        TopicConfig base = properties.topicDefaults();
        for (Map.Entry<String, NewTopic> bean : single.entrySet()) {
            d.add(bean.getValue(), "NewTopic bean '" + bean.getKey() + "'", base);
        }
        for (Map.Entry<String, NewTopics> bean : several.entrySet()) {
            for (NewTopic topic : bean.getValue().getNewTopics()) {
                d.add(topic, "NewTopics bean '" + bean.getKey() + "'", base);
            }
        }
        return d;
    }

    private void add(NewTopic topic, String by, TopicConfig base) {
        String name = topic.name();
        if (configs.containsKey(name)) {
            String other = declaredBy.getOrDefault(name, KafkoTopicProvisioner.propertyPrefix(name));
            throw new InvalidConfigException("topic '" + name + "' is declared twice, by " + other + " and by " + by
                    + ": declare it in one place");
        }
        configs.put(name, topic.applyTo(base));
        keys.put(name, topic::applyTo);
        declaredBy.put(name, by);
        if (topic.numPartitions() < 0) {
            defaultPartitions.add(name);
        }
    }
}
