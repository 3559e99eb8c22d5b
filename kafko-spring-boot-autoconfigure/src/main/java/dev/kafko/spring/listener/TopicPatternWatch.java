package dev.kafko.spring.listener;

import dev.kafko.spring.core.LogBackend;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic pattern of a listener's container, and its watch of the backend's topic creations from the container's
 * start until it is asked to stop. {@link #start} and {@link #stop} run under the container's lock; a creation is
 * matched on the creating thread before the container is told, so that a topic the container does not follow never
 * waits for its lock (see {@link ConcurrentMessageListenerContainer}).
 */
final class TopicPatternWatch {

    /** The container's: what it logs of its pattern stays under the logger an application configures for it. */
    private static final Logger LOG = LoggerFactory.getLogger(ConcurrentMessageListenerContainer.class);

    private final String listenerId;
    private final Pattern pattern;
    private final LogBackend backend;
    private @Nullable AutoCloseable watch;

    TopicPatternWatch(String listenerId, Pattern pattern, LogBackend backend) {
        this.listenerId = listenerId;
        this.pattern = pattern;
        this.backend = backend;
    }

    Pattern pattern() {
        return pattern;
    }

    /** Whether the pattern matches {@code topic}: its whole name, and not a dead-letter topic. */
    boolean follows(String topic) {
        return pattern.matcher(topic).matches() && !topic.endsWith(DeadLetterPublishingRecoverer.SUFFIX);
    }

    /** Starts telling {@code followed} of each topic created that the pattern matches, unless it does already. */
    void start(Consumer<String> followed) {
        if (watch != null) {
            return;
        }
        watch = backend.watchTopicCreations(topic -> {
            if (follows(topic)) {
                followed.accept(topic);
            }
        });
        if (watch == null) {
            LOG.info("Listener '{}' reads the topics its pattern '{}' matches when it starts: this log does not"
                    + " tell the topics it creates", listenerId, pattern);
        }
    }

    /** Stops telling of creations. */
    void stop() {
        AutoCloseable ending = watch;
        watch = null;
        if (ending != null) {
            try {
                ending.close();
            } catch (Exception e) {
                LOG.debug("Ending the watch of topic creations of listener '{}' failed", listenerId, e);
            }
        }
    }
}
