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
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Hands the {@link KafkoTopicProvisioner} the {@link NewTopic} and {@link NewTopics} beans it has not declared once
 * every singleton exists: those whose making needed the provisioner itself (a configuration class that takes the
 * template and declares a topic), which the bean factory leaves out of the look-up made while the provisioner is
 * made, and all of them for an application's own provisioner. spring-kafka's {@code KafkaAdmin} creates its topics
 * at this point; kafko creates the others earlier, before anything can send to them.
 */
final class LateTopicDeclarations implements SmartInitializingSingleton {

    private final KafkoProperties properties;
    /** This context's beans only (a parent's {@code NewTopic} beans are its own provisioner's). */
    private final ListableBeanFactory beans;

    LateTopicDeclarations(KafkoProperties properties, ListableBeanFactory beans) {
        this.properties = properties;
        this.beans = beans;
    }

    @Override
    public void afterSingletonsInstantiated() {
        if (beans.getBeanNamesForType(NewTopic.class, false, false).length == 0
                && beans.getBeanNamesForType(NewTopics.class, false, false).length == 0) {
            return;
        }
        Map<String, KafkoTopicProvisioner> local = beans.getBeansOfType(KafkoTopicProvisioner.class, false, false);
        KafkoTopicProvisioner provisioner = provisioner(local);
        if (provisioner == null) {
            return;
        }
        // all of them again: a topic declared twice is refused whichever of the two came late
        TopicDeclarations all = TopicDeclarations.of(properties, beans);
        Map<String, TopicConfig> late = new LinkedHashMap<>();
        Set<String> defaultPartitions = new LinkedHashSet<>();
        for (Map.Entry<String, String> declaration : all.declaredBy.entrySet()) {
            String name = declaration.getKey();
            if (!provisioner.declares(name)) {
                late.put(name, all.configs.get(name));
                if (all.defaultPartitions.contains(name)) {
                    defaultPartitions.add(name);
                }
            } else if (!declaration.getValue().equals(provisioner.declaredBy(name))) {
                // declared by the provisioner itself (an application's own, from its code): the bean would be
                // ignored without a word, its partitions and keys with it; properties and a bean were refused above
                throw new InvalidConfigException("topic '" + name + "' is declared twice, by the KafkoTopicProvisioner"
                        + " bean '" + nameOf(provisioner, local) + "' and by " + declaration.getValue()
                        + ": declare it in one place");
            }
        }
        if (!late.isEmpty()) {
            provisioner.declare(late, defaultPartitions, all.declaredBy, all.keys);
        }
    }

    /**
     * This context's provisioner (a child context of one with kafko has its own, beside its parent's, which
     * injection by type would also see), or null when it has none.
     */
    private @Nullable KafkoTopicProvisioner provisioner(Map<String, KafkoTopicProvisioner> local) {
        if (local.size() == 1) {
            return local.values().iterator().next();
        }
        return local.isEmpty() ? null : beans.getBean(KafkoTopicProvisioner.class);
    }

    /** The name of {@code provisioner} among this context's provisioners. */
    private static String nameOf(KafkoTopicProvisioner provisioner, Map<String, KafkoTopicProvisioner> local) {
        for (Map.Entry<String, KafkoTopicProvisioner> bean : local.entrySet()) {
            if (bean.getValue() == provisioner) {
                return bean.getKey();
            }
        }
        return KafkoTopicProvisioner.class.getSimpleName();
    }
}
