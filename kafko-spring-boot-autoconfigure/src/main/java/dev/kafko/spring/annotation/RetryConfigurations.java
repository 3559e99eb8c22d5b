package dev.kafko.spring.annotation;

import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The {@link RetryTopicConfiguration} beans of a context, for the listener post-processor: which one applies to a
 * listener without {@link RetryableTopic}, the retry and dead-letter endpoints it gives that listener, and the warning
 * of two groups' listeners that share retry topics. Thread-safe.
 */
final class RetryConfigurations {

    private static final Logger LOG = LoggerFactory.getLogger(RetryConfigurations.class);

    private final ConfigurableListableBeanFactory factory;
    /** The beans by name, in declaration order; read on first use, once every singleton exists or later. */
    private @Nullable Map<String, RetryTopicConfiguration> beans;
    /** The listener and group whose retry containers read each retry topic, for the warning of a shared one. */
    private final Map<String, String[]> retryTopicReaders = new HashMap<>();

    RetryConfigurations(ConfigurableListableBeanFactory factory) {
        this.factory = factory;
    }

    /**
     * The endpoints the first {@link RetryTopicConfiguration} bean that applies to the listener gives it; null for
     * none, or for a listener that cannot take retry topics under a bean for every topic (with a warning).
     *
     * @throws InvalidKafkoListenerException when a bean that names the listener's topic cannot work with it
     */
    synchronized @Nullable List<RetryableTopicEndpoints.Planned> partsFor(KafkoListenerEndpoint endpoint,
                                                                          String beanName, Class<?> targetClass) {
        Map.Entry<String, RetryTopicConfiguration> config = configurationFor(endpoint);
        if (config == null) {
            return null;
        }
        if (!endpoint.handlers().isEmpty()) {
            if (config.getValue().namesTopics()) {
                throw new InvalidKafkoListenerException("listener '" + endpoint.id() + "' on " + targetClass.getName()
                        + " (given retry topics by the RetryTopicConfiguration bean '" + config.getKey() + "') is a"
                        + " class-level listener: retry topics are for @KafkoListener methods");
            }
            LOG.warn("The RetryTopicConfiguration bean '{}' applies to every topic, but listener '{}' on {} cannot"
                    + " take retry topics (a class-level listener): it keeps its error handler's blocking retries",
                    config.getKey(), endpoint.id(), targetClass.getName());
            return null;
        }
        if (!config.getValue().namesTopics() && !RetryableTopicEndpoints.canTakeRetryTopics(endpoint)) {
            LOG.warn("The RetryTopicConfiguration bean '{}' applies to every topic, but listener '{}' on"
                    + " {}.{} cannot take retry topics (a batch, topicPattern or topicPartitions listener): it"
                    + " keeps its error handler's blocking retries",
                    config.getKey(), endpoint.id(), targetClass.getName(), endpoint.method().getName());
            return null;
        }
        return RetryableTopicEndpoints.of(endpoint, config.getValue(), config.getKey(), targetClass, beanName, factory);
    }

    /**
     * Warns when a listener's retry topics are those of a listener of the same topic in another group: each group's
     * retry container then reads what the other forwarded, so a record one listener failed on is delivered to the
     * other too, and each dead letter handled once per group. Only {@code retryTopicSuffix} and
     * {@code dltTopicSuffix} tell them apart, which a {@link RetryTopicConfiguration} bean, chosen by topic, gives
     * alike to every listener of the topic.
     */
    synchronized void warnIfSharedWithAnotherGroup(KafkoListenerEndpoint endpoint, RetryTopics topics) {
        for (String retryTopic : topics.retryTopics()) {
            String[] reader = retryTopicReaders.putIfAbsent(retryTopic,
                    new String[] {endpoint.id(), endpoint.groupId()});
            if (reader != null && !reader[1].equals(endpoint.groupId())) {
                LOG.warn("Listeners '{}' (group '{}') and '{}' (group '{}') of topic '{}' share the retry topic '{}':"
                        + " each group's retry container reads what the other forwarded, so a record one of them"
                        + " failed on is delivered to the other too, and each dead letter is handled once per group."
                        + " Give one of them a @RetryableTopic with another retryTopicSuffix and dltTopicSuffix",
                        reader[0], reader[1], endpoint.id(), endpoint.groupId(), topics.topic(), retryTopic);
                return;
            }
        }
    }

    /**
     * The first {@link RetryTopicConfiguration} bean, in the order the context declares them, that applies to every
     * one of the listener's topics (or, for a listener of no named topic, one that applies to every topic); null for
     * none.
     */
    private Map.@Nullable Entry<String, RetryTopicConfiguration> configurationFor(KafkoListenerEndpoint endpoint) {
        Map<String, RetryTopicConfiguration> configs = beans;
        if (configs == null) {
            // every singleton bean of the type, read once every singleton exists (or at a listener's bean made
            // later), so that none is in creation and left out
            configs = new LinkedHashMap<>();
            for (String name : factory.getBeanNamesForType(RetryTopicConfiguration.class, false, false)) {
                configs.put(name, factory.getBean(name, RetryTopicConfiguration.class));
            }
            beans = configs;
        }
        for (Map.Entry<String, RetryTopicConfiguration> config : configs.entrySet()) {
            if (endpoint.topics().isEmpty() && !config.getValue().namesTopics()) {
                return config;
            }
            if (!endpoint.topics().isEmpty() && appliesToEvery(config.getValue(), endpoint.topics())) {
                return config;
            }
        }
        return null;
    }

    /** As spring-kafka chooses: a bean applies to a listener whose topics it all allows, not to one of some of them. */
    private static boolean appliesToEvery(RetryTopicConfiguration config, List<String> topics) {
        for (String topic : topics) {
            if (!config.appliesTo(topic)) {
                return false;
            }
        }
        return true;
    }
}
