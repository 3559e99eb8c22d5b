package dev.kafko.spring.config;

import java.util.Collection;
import java.util.List;

/**
 * Several {@link NewTopic}s declared as one bean, spring-kafka's {@code KafkaAdmin.NewTopics}: each is created or
 * checked at start-up as a {@code NewTopic} bean of its own would be.
 */
public final class NewTopics {

    private final List<NewTopic> newTopics;

    public NewTopics(NewTopic... newTopics) {
        this.newTopics = List.of(newTopics);
    }

    /** The declared topics, in the order given. */
    public Collection<NewTopic> getNewTopics() {
        return newTopics;
    }
}
