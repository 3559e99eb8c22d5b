package dev.kafko.spring.metrics;

import dev.kafko.spring.support.micrometer.KafkoRecordReceiverContext;
import dev.kafko.spring.support.micrometer.KafkoRecordSenderContext;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Remembers the names and low-cardinality keys of kafko's observations as they start and stop, so that the timers
 * a meter handler makes of them ({@code <name>} and {@code <name>.active}) can be removed with their topic, their
 * listener or the context, whatever name and keys a {@code KafkoTemplateObservationConvention} or
 * {@code KafkoListenerObservationConvention} gave them.
 */
final class ObservationMeters implements ObservationHandler<Observation.Context> {

    /** The key of the tag Micrometer's meter handler adds to an observation's timer: its error, or "none". */
    private static final String ERROR_KEY = "error";

    private final MeterRegistry registry;
    /** Each name and tags an observation had, with the topics and listeners whose observations had them. */
    private final Map<Key, Owners> seen = new ConcurrentHashMap<>();

    ObservationMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof KafkoRecordSenderContext || context instanceof KafkoRecordReceiverContext;
    }

    @Override
    public void onStart(Observation.Context context) {
        seen(context);
    }

    @Override
    public void onStop(Observation.Context context) {
        seen(context); // a convention's or a filter's keys may have come since the start
    }

    private void seen(Observation.Context context) {
        String name = context.getName();
        if (name == null) {
            return;
        }
        List<Tag> tags = new ArrayList<>();
        for (KeyValue keyValue : context.getLowCardinalityKeyValues()) {
            tags.add(Tag.of(keyValue.getKey(), keyValue.getValue()));
        }
        Key key = new Key(name, Tags.of(tags));
        Owners owners = seen.get(key);
        if (owners == null) {
            Owners made = new Owners(ConcurrentHashMap.newKeySet(), ConcurrentHashMap.newKeySet());
            owners = seen.putIfAbsent(key, made);
            owners = owners != null ? owners : made;
        }
        if (context instanceof KafkoRecordSenderContext sender) {
            owners.topics().add(sender.getDestination());
        } else if (context instanceof KafkoRecordReceiverContext receiver) {
            owners.topics().add(receiver.getSource());
            owners.listeners().add(receiver.getListenerId());
        }
    }

    /** Removes the timers of {@code topic}'s observations, but those that other topics' observations share. */
    void topicDeleted(String topic) {
        removeOwned(Owners::topics, topic);
    }

    /** Removes the timers of {@code listenerId}'s deliveries, but those that other listeners' deliveries share. */
    void listenerRemoved(String listenerId) {
        removeOwned(Owners::listeners, listenerId);
    }

    /** Removes the timers whose only owner, of the kind {@code owners} picks, was {@code owner}. */
    private synchronized void removeOwned(Function<Owners, Set<String>> owners, String owner) {
        seen.entrySet().removeIf(e -> {
            Set<String> left = owners.apply(e.getValue());
            boolean gone = left.remove(owner) && left.isEmpty();
            if (gone) {
                remove(e.getKey());
            }
            return gone;
        });
    }

    /** Removes the timers of every observation seen. */
    synchronized void removeAll() {
        seen.keySet().forEach(this::remove);
        seen.clear();
    }

    /**
     * How many names with their keys it remembers now: none of a topic or a listener gone, none after
     * {@link #removeAll}.
     */
    int remembered() {
        return seen.size();
    }

    private void remove(Key key) {
        removeExactly(key.name(), key.tags());
        removeExactly(key.name() + ".active", key.tags());
    }

    /**
     * Removes the meters of that name whose tags are {@code tags}, and for a timer the {@code error} tag a meter
     * handler adds: not those with more keys, another topic's (a search by tags finds every meter that has them).
     */
    private void removeExactly(String name, Tags tags) {
        for (Meter meter : registry.find(name).tags(tags).meters()) {
            boolean exact = true;
            for (Tag tag : meter.getId().getTags()) {
                if (!tag.getKey().equals(ERROR_KEY) && tags.stream().noneMatch(tag::equals)) {
                    exact = false;
                    break;
                }
            }
            if (exact) {
                registry.remove(meter);
            }
        }
    }

    private record Key(String name, Tags tags) {
    }

    private record Owners(Set<String> topics, Set<String> listeners) {
    }
}
