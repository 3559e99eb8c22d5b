package dev.kafko.spring.autoconfigure;

import dev.kafko.KafkoObserver;
import java.util.List;

/** Forwards every engine event to several observers, in order. Called on engine threads; stateless. */
final class CompositeKafkoObserver implements KafkoObserver {

    private final List<KafkoObserver> observers;

    CompositeKafkoObserver(List<KafkoObserver> observers) {
        this.observers = List.copyOf(observers);
    }

    static KafkoObserver of(List<KafkoObserver> observers) {
        return switch (observers.size()) {
            case 0 -> KafkoObserver.NOOP;
            case 1 -> observers.get(0);
            default -> new CompositeKafkoObserver(observers);
        };
    }

    /** Whether {@code observer} is {@code root} or one of the observers it forwards to. */
    static boolean includes(KafkoObserver root, KafkoObserver observer) {
        return root == observer || root instanceof CompositeKafkoObserver c && c.observers.contains(observer);
    }

    @Override
    public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
        for (KafkoObserver o : observers) {
            o.onAppend(topic, partition, records, bytes, nanos);
        }
    }

    @Override
    public void onFsync(String topic, int partition, long nanos) {
        for (KafkoObserver o : observers) {
            o.onFsync(topic, partition, nanos);
        }
    }

    @Override
    public void onFailure(String topic, int partition, Throwable cause) {
        for (KafkoObserver o : observers) {
            o.onFailure(topic, partition, cause);
        }
    }

    @Override
    public void onCommit(String topic, String group) {
        for (KafkoObserver o : observers) {
            o.onCommit(topic, group);
        }
    }

    @Override
    public void onRetention(String topic, int partition, int segments, long bytes) {
        for (KafkoObserver o : observers) {
            o.onRetention(topic, partition, segments, bytes);
        }
    }

    @Override
    public void onTopicCreated(String topic) {
        for (KafkoObserver o : observers) {
            o.onTopicCreated(topic);
        }
    }

    @Override
    public void onTopicDeleted(String topic) {
        for (KafkoObserver o : observers) {
            o.onTopicDeleted(topic);
        }
    }
}
