package dev.kafko.spring.core;

import dev.kafko.KafkoObserver;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the topics the log creates to whoever watches them ({@link LogBackend#watchTopicCreations}): a
 * {@link KafkoObserver} that the auto-configuration makes part of the {@code Kafko} bean's observer, as it
 * does every {@code KafkoObserver} bean. A listener with a topic pattern starts reading a matching topic the
 * moment it is created through it.
 */
public final class KafkoTopicCreations implements KafkoObserver {

    private static final Logger LOG = LoggerFactory.getLogger(KafkoTopicCreations.class);

    private final CopyOnWriteArrayList<Consumer<String>> watchers = new CopyOnWriteArrayList<>();

    /**
     * Calls {@code created} with the name of every topic created from now on, on the creating thread, until
     * the returned handle is closed.
     */
    public AutoCloseable watch(Consumer<String> created) {
        Consumer<String> watcher = created::accept; // a handle of its own, also for a consumer watching twice
        watchers.add(watcher);
        return () -> watchers.remove(watcher);
    }

    @Override
    public void onTopicCreated(String topic) {
        for (Consumer<String> watcher : watchers) {
            try {
                watcher.accept(topic);
            } catch (RuntimeException e) {
                LOG.error("A watcher of topic creations failed on '{}'; the others are told", topic, e);
            }
        }
    }
}
