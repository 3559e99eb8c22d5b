package dev.kafko.spring.core;

import dev.kafko.UnknownTopicException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A {@link KafkoTemplate}'s producers, one per topic it has sent to, made on first use and safe to use from any
 * number of threads. A producer of a deleted topic is dropped when a send or {@link #flush()} finds its topic gone,
 * and, for the topics the template never sends to again, when the cache has doubled (see {@link #forgetDeleted}).
 */
final class TemplateProducers {

    /** The fewest cached producers at which those of deleted topics are looked for (see {@link #forgetDeleted}). */
    static final int FORGET_DELETED_FROM = 32;

    private final LogBackend backend;
    private final Map<String, BackendProducer> producers = new ConcurrentHashMap<>();
    private final NewProducer newProducer;
    /** The producer of the last send: most templates send to one topic, so this skips the map lookup. */
    private volatile @Nullable BackendProducer lastProducer;
    /** How many cached producers make the next new one look for those of deleted topics first. */
    private volatile int forgetDeletedAt = FORGET_DELETED_FROM;
    /** The template's bean name, for the message of a backend that returns no producer. */
    private volatile String templateName = "kafkoTemplate";

    TemplateProducers(LogBackend backend) {
        this.backend = Objects.requireNonNull(backend, "backend");
        this.newProducer = new NewProducer(backend);
    }

    void templateName(String name) {
        this.templateName = name;
    }

    /** The topic's producer, made through the backend when the template has none yet. */
    BackendProducer get(String topic) {
        BackendProducer last = lastProducer;
        if (last != null && last.topic().equals(topic)) {
            return last;
        }
        BackendProducer producer = producers.get(topic);
        if (producer == null) {
            forgetDeleted();
            // made outside the map's lock: making one can wait for a delete of the topic to finish (the backend
            // creates it again), and the deleting thread, failing the sends in flight, forgets the topic's producer
            BackendProducer made = newProducer.apply(topic);
            if (made == null) {
                throw new IllegalStateException("The LogBackend " + backend.getClass().getName() + " of template '"
                        + templateName + "' returned no producer for '" + topic + "' (a mock of the LogBackend bean?"
                        + " the template sends through it)");
            }
            BackendProducer cached = producers.putIfAbsent(topic, made);
            producer = cached != null ? cached : made;
        }
        lastProducer = producer;
        return producer;
    }

    /** Drops the topic's cached producer ({@code producer}, or whichever is cached when null). */
    void forget(String topic, @Nullable BackendProducer producer) {
        if (producer == null) {
            producers.remove(topic);
            lastProducer = null;
            return;
        }
        producers.remove(topic, producer);
        if (lastProducer == producer) {
            lastProducer = null;
        }
    }

    /** Flushes every cached producer; one whose topic was deleted is dropped. */
    void flush() {
        for (BackendProducer producer : producers.values()) {
            try {
                producer.flush();
            } catch (UnknownTopicException e) {
                // its topic was deleted: what it sent went with it, and the next send finds the topic anew
                forget(producer.topic(), producer);
            }
        }
    }

    /** How many topics the template holds a producer of. */
    int size() {
        return producers.size();
    }

    /**
     * Drops the cached producers of the topics deleted since they were made, once the cache has doubled since it was
     * last looked through (from {@value #FORGET_DELETED_FROM} on). A producer holds its topic, partitions included,
     * and only a send to its topic or a {@link #flush()} finds it deleted otherwise: a template that sends to
     * short-lived topics (a tenant's, deleted once the tenant is gone) would keep every one of them. The producers are
     * taken before the names, so that a producer of a topic created meanwhile is not taken for a deleted one's; one of
     * a topic deleted and created again under its name stays until its next send finds it deleted.
     */
    private void forgetDeleted() {
        if (producers.size() < forgetDeletedAt) {
            return;
        }
        List<BackendProducer> cached = List.copyOf(producers.values());
        Set<String> names;
        try {
            names = backend.topicNames();
        } catch (UnsupportedOperationException e) {
            forgetDeletedAt = Integer.MAX_VALUE; // a backend that cannot list its topics: its send or flush tells
            return;
        }
        for (BackendProducer producer : cached) {
            if (!names.contains(producer.topic())) {
                forget(producer.topic(), producer);
            }
        }
        forgetDeletedAt = Math.max(FORGET_DELETED_FROM, 2 * producers.size());
    }

    /** The backend's producer of a topic. */
    private static final class NewProducer implements Function<String, BackendProducer> {

        private final LogBackend backend;

        NewProducer(LogBackend backend) {
            this.backend = backend;
        }

        @Override
        public BackendProducer apply(String topic) {
            return backend.producer(topic);
        }
    }
}
