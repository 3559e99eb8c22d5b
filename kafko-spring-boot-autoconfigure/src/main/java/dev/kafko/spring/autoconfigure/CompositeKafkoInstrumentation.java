package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.support.GuardedInstrumentation;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Forwards every timing to each {@link KafkoInstrumentation} bean, in order, as the {@code Kafko} bean's observer
 * does to each {@code KafkoObserver} bean: an application's own instrumentation beside Micrometer's switches
 * neither off. Each one is guarded, so that one that throws keeps the others told. Any thread; stateless.
 */
final class CompositeKafkoInstrumentation implements KafkoInstrumentation {

    private final List<KafkoInstrumentation> all;

    private CompositeKafkoInstrumentation(List<KafkoInstrumentation> all) {
        this.all = all;
    }

    /** Every bean's, {@link KafkoInstrumentation#NOOP} when there is none. */
    static KafkoInstrumentation of(ObjectProvider<KafkoInstrumentation> beans) {
        List<KafkoInstrumentation> all = new ArrayList<>();
        for (KafkoInstrumentation bean : beans.orderedStream().toList()) {
            all.add(GuardedInstrumentation.of(bean));
        }
        return switch (all.size()) {
            case 0 -> KafkoInstrumentation.NOOP;
            case 1 -> all.get(0);
            default -> new CompositeKafkoInstrumentation(all);
        };
    }

    @Override
    public void sendCompleted(String topic, long nanos, @Nullable Throwable failure) {
        for (KafkoInstrumentation i : all) {
            i.sendCompleted(topic, nanos, failure);
        }
    }

    @Override
    public void listenerInvoked(String listenerId, String topic, long nanos, boolean success) {
        for (KafkoInstrumentation i : all) {
            i.listenerInvoked(listenerId, topic, nanos, success);
        }
    }

    @Override
    public void listenerStarting(String listenerId, String groupId, String topic) {
        for (KafkoInstrumentation i : all) {
            i.listenerStarting(listenerId, groupId, topic);
        }
    }

    @Override
    public void listenerRemoved(String listenerId, String groupId, List<String> topics) {
        for (KafkoInstrumentation i : all) {
            i.listenerRemoved(listenerId, groupId, topics);
        }
    }

    @Override
    public void deadLettered(String listenerId, String topic) {
        for (KafkoInstrumentation i : all) {
            i.deadLettered(listenerId, topic);
        }
    }
}
