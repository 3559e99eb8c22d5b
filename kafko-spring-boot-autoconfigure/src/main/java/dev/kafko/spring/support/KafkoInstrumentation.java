package dev.kafko.spring.support;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Receives timings from the template and the listener containers, for example to feed Micrometer.
 * Methods are called on the sending and polling threads: keep them fast and never block.
 */
public interface KafkoInstrumentation {

    /** Ignores everything. */
    KafkoInstrumentation NOOP = new KafkoInstrumentation() { };

    /** A send through the template completed (successfully when {@code failure} is null). */
    default void sendCompleted(String topic, long nanos, @Nullable Throwable failure) {
    }

    /**
     * A listener invocation returned ({@code success}) or threw. Retries are separate invocations.
     */
    default void listenerInvoked(String listenerId, String topic, long nanos, boolean success) {
    }

    /**
     * A listener container is starting to read {@code topic} as {@code groupId}, which exists by
     * then; called once per topic on the thread that starts the container, and again on a member's polling thread
     * when its topic was deleted and the member reads the topic created again under the name.
     */
    default void listenerStarting(String listenerId, String groupId, String topic) {
    }

    /**
     * A listener container was removed from its registry ({@code unregisterListenerContainer}): what was
     * kept for it (its timers, its group's lag on {@code topics}) can go.
     */
    default void listenerRemoved(String listenerId, String groupId, List<String> topics) {
    }

    /** A record that exhausted its attempts was published to a dead-letter topic. */
    default void deadLettered(String listenerId, String topic) {
    }
}
