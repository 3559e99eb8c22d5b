package dev.kafko.spring.autoconfigure;

import dev.kafko.KafkoObserver;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards every engine event to several observers, in order. Called on engine threads; stateless. An
 * exception one observer throws is logged and the others are told still, as the engine does for its one
 * observer: an application's observer with a bug must not keep the metrics or the topic-creation watch blind.
 *
 * <p>The auto-configured {@code Kafko} bean's observer is one of these. An application that defines its own
 * {@code Kafko} bean passes {@code CompositeKafkoObserver.of(observers.orderedStream().toList())}, with
 * {@code ObjectProvider<KafkoObserver> observers}, to {@link dev.kafko.KafkoOptions.Builder#observer}, so that
 * the metrics and the topic-creation watch of the starter still see its events.
 */
public final class CompositeKafkoObserver implements KafkoObserver {

    private static final Logger LOG = LoggerFactory.getLogger(CompositeKafkoObserver.class);

    private final List<KafkoObserver> observers;

    private CompositeKafkoObserver(List<? extends KafkoObserver> observers) {
        this.observers = List.copyOf(observers);
    }

    /**
     * One observer that tells each of {@code observers}, in order: {@link KafkoObserver#NOOP} for none, the
     * observer itself for one.
     */
    public static KafkoObserver of(List<? extends KafkoObserver> observers) {
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
            try {
                o.onAppend(topic, partition, records, bytes, nanos);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onAppend", e);
            }
        }
    }

    @Override
    public void onFsync(String topic, int partition, long nanos) {
        for (KafkoObserver o : observers) {
            try {
                o.onFsync(topic, partition, nanos);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onFsync", e);
            }
        }
    }

    @Override
    public void onFailure(String topic, int partition, Throwable cause) {
        for (KafkoObserver o : observers) {
            try {
                o.onFailure(topic, partition, cause);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onFailure", e);
            }
        }
    }

    @Override
    public void onCommit(String topic, String group) {
        for (KafkoObserver o : observers) {
            try {
                o.onCommit(topic, group);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onCommit", e);
            }
        }
    }

    @Override
    public void onGroupDeleted(String topic, String group) {
        for (KafkoObserver o : observers) {
            try {
                o.onGroupDeleted(topic, group);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onGroupDeleted", e);
            }
        }
    }

    @Override
    public void onCompaction(String topic, int partition, long records, long bytes) {
        for (KafkoObserver o : observers) {
            try {
                o.onCompaction(topic, partition, records, bytes);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onCompaction", e);
            }
        }
    }

    @Override
    public void onRetention(String topic, int partition, int segments, long bytes) {
        for (KafkoObserver o : observers) {
            try {
                o.onRetention(topic, partition, segments, bytes);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onRetention", e);
            }
        }
    }

    @Override
    public void onTopicCreated(String topic) {
        for (KafkoObserver o : observers) {
            try {
                o.onTopicCreated(topic);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onTopicCreated", e);
            }
        }
    }

    @Override
    public void onTopicDeleted(String topic) {
        for (KafkoObserver o : observers) {
            try {
                o.onTopicDeleted(topic);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                complain(o, "onTopicDeleted", e);
            }
        }
    }

    /** Logs what an observer threw (the loops above take no lambda: {@code onAppend} runs for every frame). */
    private static void complain(KafkoObserver observer, String method, Throwable e) {
        LOG.warn("KafkoObserver {}.{} threw {}; ignored, the other observers are told", observer.getClass().getName(),
                method, e.toString(), e);
    }
}
