package dev.kafko.spring.listener;

import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoInstrumentation;
import org.jspecify.annotations.Nullable;
import org.springframework.core.task.TaskExecutor;

/**
 * Makes the members of one {@link ConcurrentMessageListenerContainer}. Internal; called under the container's lock,
 * or in its constructor.
 */
final class ContainerMemberFactory implements ContainerMembers.Factory {

    private final ConcurrentMessageListenerContainer container;
    private final LogBackend backend;
    private final KafkoMessageListener listener;
    private final KafkoInstrumentation instrumentation;
    private final TaskExecutor executor;
    private final ProcessedOffsets processed;

    ContainerMemberFactory(ConcurrentMessageListenerContainer container, LogBackend backend,
                           KafkoMessageListener listener, KafkoInstrumentation instrumentation, TaskExecutor executor,
                           ProcessedOffsets processed) {
        this.container = container;
        this.backend = backend;
        this.listener = listener;
        this.instrumentation = instrumentation;
        this.executor = executor;
        this.processed = processed;
    }

    @Override
    public KafkoMessageListenerContainer make(String memberName, String topic, @Nullable AssignedPartitions byHand,
                                              ContainerProperties properties, KafkoErrorHandler errorHandler) {
        return new KafkoMessageListenerContainer(container, memberName, topic, container.getGroupId(), backend,
                properties, listener, errorHandler, instrumentation, executor, processed, byHand);
    }
}
