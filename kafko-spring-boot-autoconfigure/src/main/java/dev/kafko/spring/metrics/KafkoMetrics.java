package dev.kafko.spring.metrics;

import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoObserver;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Topic;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.micrometer.KafkoListenerObservation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * kafko's Micrometer meters, fed from any thread: the engine calls the observer methods on its
 * appending and committing threads, the template and containers the instrumentation methods on theirs.
 *
 * <ul>
 *   <li>{@code kafko.template.send} (timer; topic, outcome)</li>
 *   <li>{@code kafko.listener.process} (timer; listener, topic, outcome = success|failure)</li>
 *   <li>{@code kafko.listener.dead.letter} (counter; listener, topic)</li>
 *   <li>{@code kafko.log.end.offset}, {@code kafko.log.size} (gauges, bytes for size; topic, partition)</li>
 *   <li>{@code kafko.log.failed} (gauge; topic, partition): 1 while the partition is failed, else 0; the
 *       failure counter counts the failures themselves, not the appends refused after one</li>
 *   <li>{@code kafko.consumer.lag} (gauge; topic, group, partition): the offsets of the partition after the
 *       group's committed offset (as Kafka's lag; on a compacted topic more than the records left to read). For a partition the group has not committed on yet, it counts from
 *       where such a group starts reading: the log start offset under the offset reset policy
 *       {@code EARLIEST} (the default) or {@code FAIL}; under {@code LATEST} (the instance's, or the
 *       listener's own {@code auto.offset.reset=latest}) such a group starts at the end, wherever that is
 *       when it takes the partition, and the gauge reads 0 until it commits.</li>
 *   <li>{@code kafko.log.fsync} (timer; topic, partition) and {@code kafko.log.failures} (counter;
 *       topic, partition), straight from the engine's observer hook</li>
 * </ul>
 *
 * <p>Gauges and the failure counter exist for every partition found at start-up, and the lag of
 * every listener's group on every partition of its topics from the moment its container starts (before
 * any commit, also while it is paused or never acknowledges); partitions and groups that appear
 * otherwise (a topic created at run time, a group of a plain consumer) get theirs on their first append
 * or commit, reported by the engine's observer hook. A group found on disk that nothing in this process
 * uses gets no lag gauge: the groups of a replay under a new group id at every start, say, would
 * otherwise leave a growing set of series whose lag never clears. Gauges read the engine's
 * snapshots when scraped. Timers appear with the first event they time. When a topic is deleted, the
 * gauges, fsync timers and failure counters of its partitions and groups and the template's send timers
 * are removed (a topic created again under its name gets new ones, its listeners' groups their lag on
 * every partition with its first append, also while the listener is paused), and so are the listeners'
 * timers and dead-letter counters of it, so that an application that creates and deletes topics (a topic
 * pattern's listener among them) keeps a bounded set of meters. When a group is deleted ({@code Kafko.deleteGroup}),
 * its lag gauges are removed (a group used again gets them anew). When the
 * context closes, every meter registered here is removed from the registry, which may outlive it.
 */
public final class KafkoMetrics implements KafkoObserver, KafkoInstrumentation, SmartInitializingSingleton,
        DisposableBean {

    /**
     * The meters of a topic's partitions, groups, sends and deliveries, removed with the topic (a listener's timers
     * of a topic created again start anew with its next record: a topic pattern's listener over short-lived topics
     * would otherwise keep a series for every topic it ever read).
     */
    private static final Set<String> TOPIC_METERS = Set.of("kafko.log.end.offset", "kafko.log.size",
            "kafko.log.failed", "kafko.log.failures", "kafko.log.fsync", "kafko.consumer.lag", "kafko.template.send",
            "kafko.listener.process", "kafko.listener.dead.letter");

    private final MeterRegistry registry;
    private final ObjectProvider<Kafko> kafko;
    private final Map<String, Set<Integer>> partitions = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> groups = new ConcurrentHashMap<>();
    /** The groups of the listeners of each topic: kept when the topic is deleted, for one created again. */
    private final Map<String, Set<String>> listenerGroups = new ConcurrentHashMap<>();
    private final Map<String, Timer> sendTimers = new ConcurrentHashMap<>();
    private final Map<String, Timer> processTimers = new ConcurrentHashMap<>();
    private final Map<String, Timer> fsyncTimers = new ConcurrentHashMap<>();
    /**
     * Every meter registered here, with the name and topic kafko gave it: a {@code MeterFilter} may have
     * renamed either in the registry, where a search by them would then miss the meter.
     */
    private final Map<Meter, Owned> registered = new ConcurrentHashMap<>();
    /**
     * Set by {@link #destroy}: what reports after the context closed (a member left to finish its record past its
     * shutdown timeout, a send from a thread the context does not own) registers no meter, which would otherwise
     * stay in a registry that outlives the context, and the next context's meter of that name would count on from it.
     */
    private volatile boolean destroyed;
    /** The names and keys of kafko's observations seen, whatever convention gave them. */
    private final ObservationMeters observationMeters;

    public KafkoMetrics(MeterRegistry registry, ObjectProvider<Kafko> kafko) {
        this.registry = registry;
        this.kafko = kafko;
        this.observationMeters = new ObservationMeters(registry);
    }

    /**
     * The handler that remembers the names and keys of kafko's observations, so that the timers a meter handler
     * makes of them leave with their topic, their listener and the context also when a
     * {@code KafkoTemplateObservationConvention} or {@code KafkoListenerObservationConvention} renamed them: add it to
     * the {@code ObservationRegistry} the template and containers observe with (the auto-configuration does).
     */
    public ObservationHandler<Observation.Context> observationHandler() {
        return observationMeters;
    }

    /** Registers gauges for the topics and groups that exist once the context is up. */
    @Override
    public void afterSingletonsInstantiated() {
        Kafko k = kafko.getIfAvailable();
        if (k == null) {
            return;
        }
        for (String topic : k.topics()) {
            topicSeen(k, topic);
        }
    }

    private void topicSeen(Kafko k, String topic) {
        Optional<Topic> t = k.topic(topic);
        if (t.isPresent()) {
            for (int p = 0; p < t.get().partitionCount(); p++) {
                partitionSeen(topic, p);
            }
        }
    }

    // --- engine observer ----------------------------------------------------------------------

    @Override
    public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
        if (destroyed) {
            return;
        }
        partitionSeen(topic, partition);
    }

    /** A topic created while the application runs shows its partitions' gauges before its first record. */
    @Override
    public void onTopicCreated(String topic) {
        if (destroyed) {
            return;
        }
        Kafko k = kafko.getIfAvailable();
        if (k != null) {
            topicSeen(k, topic);
        }
    }

    @Override
    public void onCommit(String topic, String group) {
        if (destroyed) {
            return;
        }
        groupSeen(topic, group);
    }

    /**
     * Removes the lag gauges of a deleted group ({@code Kafko.deleteGroup}): a projection rebuilt under a new group id
     * would otherwise leave the old group's lag growing for ever. They are registered anew if the group is used again
     * (a commit, a listener's start).
     */
    @Override
    public synchronized void onGroupDeleted(String topic, String group) {
        Set<String> seen = groups.get(topic);
        if (seen != null) {
            seen.remove(group);
        }
        registered.entrySet().removeIf(e -> {
            Owned owned = e.getValue();
            boolean lag = "kafko.consumer.lag".equals(owned.name()) && group.equals(owned.group())
                    && owned.topics().contains(topic);
            if (lag) {
                registry.remove(e.getKey());
            }
            return lag;
        });
    }

    @Override
    public void onFsync(String topic, int partition, long nanos) {
        if (destroyed) {
            return;
        }
        String key = topic + '\0' + partition;
        Timer timer = fsyncTimers.get(key);
        if (timer == null) {
            timer = kept(fsyncTimers, key, own("kafko.log.fsync", topic, Timer.builder("kafko.log.fsync")
                    .description("Fsyncs of a partition").tags("topic", topic, "partition", Integer.toString(partition))
                    .register(registry)));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void onFailure(String topic, int partition, Throwable cause) {
        if (destroyed) {
            return;
        }
        Kafko k = kafko.getIfAvailable();
        if (k != null && !k.topics().contains(topic)) {
            return; // a deleted topic's partitions failing as they close: its meters went with it, and stay gone
        }
        // a partition that fails before its first append (a dead-letter topic on a full disk) gets its gauges too
        partitionSeen(topic, partition);
        failures(topic, partition).increment();
    }

    private Counter failures(String topic, int partition) {
        return own("kafko.log.failures", topic, Counter.builder("kafko.log.failures")
                .description("Appends, fsyncs, retention runs or compactions that failed")
                .tags("topic", topic, "partition", Integer.toString(partition)).register(registry));
    }

    /** Removes the meters of the deleted topic's partitions and groups; they are registered anew if it comes back. */
    @Override
    public synchronized void onTopicDeleted(String topic) {
        partitions.remove(topic);
        groups.remove(topic);
        fsyncTimers.keySet().removeIf(k -> k.startsWith(topic + '\0'));
        sendTimers.keySet().removeIf(k -> k.startsWith(topic + '\0'));
        processTimers.keySet().removeIf(k -> k.contains('\0' + topic + '\0'));
        registered.entrySet().removeIf(e -> {
            Owned owned = e.getValue();
            if (!TOPIC_METERS.contains(owned.name()) || !owned.topics().remove(topic) || !owned.topics().isEmpty()) {
                return false;
            }
            // no topic left that this meter counts for (a filter may have merged several topics' into one)
            registry.remove(e.getKey());
            return true;
        });
        removeObservationMeters(topic);
    }

    /**
     * The meters Micrometer's observation handler made of kafko's observations (kafko.template and
     * kafko.listener, with their .active long task timers) for {@code topic}, or for every topic when null.
     */
    private void removeObservationMeters(@Nullable String topic) {
        if (topic == null) {
            observationMeters.removeAll();
        } else {
            observationMeters.topicDeleted(topic);
        }
        String[][] names = {{"kafko.template", "messaging.destination.name"},
                {"kafko.template.active", "messaging.destination.name"}, {"kafko.listener", "messaging.source.name"},
                {"kafko.listener.active", "messaging.source.name"}};
        for (String[] name : names) {
            var search = registry.find(name[0]);
            if (topic != null) {
                search = search.tag(name[1], topic);
            }
            search.meters().forEach(registry::remove);
        }
    }

    /** Removes every meter registered here: a registry that outlives the context keeps none of them. */
    @Override
    public synchronized void destroy() {
        destroyed = true;
        for (Meter m : registered.keySet()) {
            registry.remove(m);
        }
        registered.clear();
        removeObservationMeters(null);
        partitions.clear();
        groups.clear();
        sendTimers.clear();
        processTimers.clear();
        fsyncTimers.clear();
    }

    private <M extends Meter> M own(String name, @Nullable String topic, M meter) {
        return own(name, topic, null, null, meter);
    }

    /** {@link #own(String, String, Meter)} for a meter of a listener or of a group, which leave with their listener. */
    private <M extends Meter> M own(String name, @Nullable String topic, @Nullable String listener, @Nullable String group,
                                    M meter) {
        Owned owned = registered.get(meter);
        if (owned == null) {
            owned = kept(registered, meter, new Owned(name, ConcurrentHashMap.newKeySet(), listener, group));
        }
        if (topic != null) {
            owned.topics().add(topic);
        }
        if (destroyed) {
            // registered by a report that raced destroy (every report after it returns first: the registry knows a
            // meter by name and tags, so one registered now may be the next context's, which must stay): it goes too
            registered.remove(meter);
            registry.remove(meter);
        }
        return meter;
    }

    /**
     * The name kafko gave a meter, and the topics it registered it for: one, unless a filter merged the
     * meters of several topics into one.
     */
    private record Owned(String name, Set<String> topics, @Nullable String listener, @Nullable String group) {
    }

    // --- template and containers ----------------------------------------------------------------

    @Override
    public void sendCompleted(String topic, long nanos, @Nullable Throwable failure) {
        if (destroyed) {
            return;
        }
        String outcome = failure == null ? "success" : "failure";
        String key = topic + '\0' + outcome;
        Timer timer = sendTimers.get(key);
        if (timer == null) {
            timer = kept(sendTimers, key, own("kafko.template.send", topic, Timer.builder("kafko.template.send")
                    .description("Sends through KafkoTemplate, until appended")
                    .tags("topic", topic, "outcome", outcome).register(registry)));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void listenerInvoked(String listenerId, String topic, long nanos, boolean success) {
        if (destroyed) {
            return;
        }
        String outcome = success ? "success" : "failure";
        String key = listenerId + '\0' + topic + '\0' + outcome;
        Timer timer = processTimers.get(key);
        if (timer == null && (timer = processTimer(key, listenerId, topic, outcome)) == null) {
            return;
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * The listener's timer of {@code topic}, registered now; null when the topic was deleted (a listener call that
     * outlived the deletion of its record's topic): its meters went with it, and stay gone. Under this object's
     * lock, as {@link #onTopicDeleted}, which comes once the topic no longer exists.
     */
    private synchronized @Nullable Timer processTimer(String key, String listenerId, String topic, String outcome) {
        Kafko k = kafko.getIfAvailable();
        if (k != null && !exists(k, topic)) {
            return null;
        }
        Timer timer = processTimers.get(key);
        return timer != null ? timer : kept(processTimers, key, own("kafko.listener.process", topic, listenerId, null,
                Timer.builder("kafko.listener.process").description("Invocations of a @KafkoListener method")
                        .tags("listener", listenerId, "topic", topic, "outcome", outcome).register(registry)));
    }

    private static boolean exists(Kafko k, String topic) {
        try {
            return k.topic(topic).isPresent();
        } catch (KafkoClosedException e) {
            return false;
        }
    }

    @Override
    public void listenerStarting(String listenerId, String groupId, String topic) {
        if (destroyed) {
            return;
        }
        setOf(listenerGroups, topic).add(groupId);
        Kafko k = kafko.getIfAvailable();
        if (k == null) {
            return;
        }
        // the listener's topic, and its dead-letter topic (created by the container's start): their gauges from
        // now, not from their first append
        String deadLetters = topic + KafkoTopicProvisioner.DEAD_LETTER_SUFFIX;
        for (String name : k.topics().contains(deadLetters) ? List.of(topic, deadLetters) : List.of(topic)) {
            topicSeen(k, name);
        }
        groupSeen(topic, groupId);
    }

    /**
     * Removes the meters of a listener removed from its registry: its timers and dead-letter counter, and its
     * group's lag on its topics (registered again if a listener or a consumer of that group reads them later).
     */
    @Override
    public synchronized void listenerRemoved(String listenerId, String groupId, List<String> topics) {
        processTimers.keySet().removeIf(k -> k.startsWith(listenerId + '\0'));
        for (String topic : topics) {
            Set<String> listening = listenerGroups.get(topic);
            if (listening != null) {
                listening.remove(groupId);
            }
            Set<String> seen = groups.get(topic);
            if (seen != null) {
                seen.remove(groupId);
            }
        }
        // the meters Micrometer's observation handler made of the listener's deliveries
        observationMeters.listenerRemoved(listenerId);
        for (String name : List.of("kafko.listener", "kafko.listener.active")) {
            registry.find(name).tag(KafkoListenerObservation.ListenerLowCardinalityTags.LISTENER_ID.asString(),
                    listenerId).meters().forEach(registry::remove);
        }
        registered.entrySet().removeIf(e -> {
            Owned owned = e.getValue();
            boolean listeners = listenerId.equals(owned.listener())
                    || groupId.equals(owned.group()) && owned.topics().stream().anyMatch(topics::contains);
            if (listeners) {
                registry.remove(e.getKey());
            }
            return listeners;
        });
    }

    @Override
    public void deadLettered(String listenerId, String topic) {
        if (destroyed) {
            return;
        }
        own("kafko.listener.dead.letter", topic, listenerId, null, Counter.builder("kafko.listener.dead.letter").description("Records published to a dead-letter topic")
                .tags("listener", listenerId, "topic", topic).register(registry)).increment();
    }

    // --- gauges ---------------------------------------------------------------------------------

    private void partitionSeen(String topic, int partition) {
        Set<Integer> seen = partitions.get(topic);
        if (seen == null || !seen.contains(partition)) {
            registerPartition(topic, partition);
        }
    }

    private synchronized void registerPartition(String topic, int partition) {
        boolean firstOfTopic = !partitions.containsKey(topic);
        if (!setOf(partitions, topic).add(partition)) {
            return;
        }
        Tags tags = Tags.of("topic", topic, "partition", Integer.toString(partition));
        gauge("kafko.log.end.offset", "The offset the next record of the partition gets", null, tags,
                new PartitionGauge(PartitionGauge.END_OFFSET, topic, null, partition));
        gauge("kafko.log.size", "Bytes of all segments of the partition", BaseUnits.BYTES, tags,
                new PartitionGauge(PartitionGauge.SIZE, topic, null, partition));
        gauge("kafko.log.failed", "1 while the partition is failed (it refuses appends), else 0", null, tags,
                new PartitionGauge(PartitionGauge.FAILED, topic, null, partition));
        // at zero from the start, so that an alert on failures has a series before the first one
        failures(topic, partition);
        for (String group : groups.getOrDefault(topic, Set.of())) {
            lagGauge(topic, group, partition);
        }
        Set<String> listening = listenerGroups.getOrDefault(topic, Set.of());
        if (firstOfTopic && !listening.isEmpty()) {
            // a listener's topic created again: its groups get their lag on every partition now, even
            // while the listener is paused (it reads the topic again only once it polls)
            for (String group : listening) {
                groupSeen(topic, group);
            }
            for (int p = 0; p < partitionCount(topic); p++) {
                partitionSeen(topic, p);
            }
        }
    }

    /** The partitions {@code topic} has now, 0 when it or the instance is gone. */
    private int partitionCount(String topic) {
        Kafko k = kafko.getIfAvailable();
        try {
            Optional<Topic> t = k == null ? Optional.empty() : k.topic(topic);
            return t.isPresent() ? t.get().partitionCount() : 0;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private void groupSeen(String topic, String group) {
        Set<String> seen = groups.get(topic);
        if (seen == null || !seen.contains(group)) {
            registerGroup(topic, group);
        }
    }

    private synchronized void registerGroup(String topic, String group) {
        if (!setOf(groups, topic).add(group)) {
            return;
        }
        for (Integer partition : partitions.getOrDefault(topic, Set.of())) {
            lagGauge(topic, group, partition);
        }
    }

    private void lagGauge(String topic, String group, int partition) {
        gauge("kafko.consumer.lag", "Records of the partition the group has not committed yet", null,
                Tags.of("topic", topic, "group", group, "partition", Integer.toString(partition)),
                new PartitionGauge(PartitionGauge.LAG, topic, group, partition));
    }

    private void gauge(String name, String description, @Nullable String baseUnit, Tags tags, PartitionGauge value) {
        own(name, value.topic, null, value.group, Gauge.builder(name, kafko, value).description(description)
                .baseUnit(baseUnit).tags(tags).strongReference(true).register(registry));
    }

    /** The set {@code map} holds for {@code key}, made now if it holds none. */
    private static <T> Set<T> setOf(Map<String, Set<T>> map, String key) {
        Set<T> set = map.get(key);
        return set != null ? set : kept(map, key, ConcurrentHashMap.newKeySet());
    }

    /** Puts {@code value} unless {@code map} holds one for {@code key} by now; what it holds then. */
    private static <K, V> V kept(Map<K, V> map, K key, V value) {
        V earlier = map.putIfAbsent(key, value);
        return earlier != null ? earlier : value;
    }

    /**
     * What a partition's gauge reads when scraped: its end offset, size, failed state or a group's lag; NaN when the
     * instance, the topic or the partition is gone. (A named class: the start-up path makes no lambda; see
     * {@code StartupClassListTest}.)
     */
    private static final class PartitionGauge implements ToDoubleFunction<ObjectProvider<Kafko>> {
        static final int END_OFFSET = 0;
        static final int SIZE = 1;
        static final int FAILED = 2;
        static final int LAG = 3;

        private final int kind;
        final String topic;
        final @Nullable String group;
        private final int partition;

        PartitionGauge(int kind, String topic, @Nullable String group, int partition) {
            this.kind = kind;
            this.topic = topic;
            this.group = group;
            this.partition = partition;
        }

        @Override
        public double applyAsDouble(ObjectProvider<Kafko> provider) {
            Kafko k = provider.getIfAvailable();
            if (k == null) {
                return Double.NaN;
            }
            try {
                if (kind == LAG) {
                    try {
                        // one partition's lag: a scrape reads every gauge, so not the whole topic's each time
                        return k.groupLag(topic, group, partition);
                    } catch (InvalidPartitionException e) {
                        return 0; // the topic was made again with fewer partitions
                    }
                }
                Optional<PartitionInfo> info = partitionInfo(k, topic, partition);
                if (info.isEmpty()) {
                    return Double.NaN;
                }
                PartitionInfo p = info.get();
                return kind == END_OFFSET ? p.endOffset() : kind == SIZE ? p.sizeBytes()
                        : p.state() == PartitionState.FAILED ? 1.0 : 0.0;
            } catch (RuntimeException e) {
                return Double.NaN; // topic deleted or instance closed: nothing to report
            }
        }
    }

    private static Optional<PartitionInfo> partitionInfo(Kafko k, String topic, int partition) {
        Optional<Topic> t = k.topic(topic);
        if (t.isEmpty() || partition >= t.get().partitionCount()) {
            return Optional.empty();
        }
        return Optional.of(t.get().partition(partition));
    }
}
