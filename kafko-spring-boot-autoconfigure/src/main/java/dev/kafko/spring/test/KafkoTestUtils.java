package dev.kafko.spring.test;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.listener.RetryTopicRecoverer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Helpers for an application's own tests. With {@code kafko.ephemeral=true} every test context
 * gets its own empty log, deleted when the context closes; {@link #waitForListeners} replaces
 * sleeps and polling loops:
 *
 * <pre>{@code
 * @SpringBootTest(properties = "kafko.ephemeral=true")
 * class OrderFlowTest {
 *     @Autowired KafkoTemplate<String, Order> template;
 *     @Autowired KafkoListenerEndpointRegistry registry;
 *     @Autowired Billing billing;
 *
 *     @Test
 *     void billsEveryOrder() {
 *         template.send("orders", "o-1", new Order("o-1", 42)).join();
 *         KafkoTestUtils.waitForListeners(registry, Duration.ofSeconds(10));
 *         assertThat(billing.invoices()).hasSize(1);
 *     }
 * }
 * }</pre>
 *
 * <p>Waiting means: every running, unpaused listener container has finished (its method returned,
 * or the error handler recovered the record) every record that was in its topics when the call
 * began, or its group has committed past them. Under the {@code record} and {@code batch} ack
 * modes "finished" includes the commit; under {@code count}, {@code time} and {@code count-time} it does not: a
 * record counts once processed, and its commit may come later (at the next {@code ack-count} records or
 * {@code ack-time}). Under the manual modes a record the listener acknowledged
 * on its own thread is finished once that acknowledgment is committed; one it did not acknowledge
 * (or acknowledged from another thread) counts once processed. Behind a {@code RecordInterceptor} or
 * {@code BatchInterceptor}, a record is finished once the interceptor was told how it went (its {@code afterRecord},
 * a batch's {@code success} or {@code failure}), also where its commit came first. A container that was stopped and
 * started again is waited for from its group's commits, so records its last run processed without
 * committing are waited for again; so is a replay its {@code ConsumerSeekAware} listener chooses in
 * {@code onPartitionsAssigned} once the partitions are assigned (that seek does not move the group's commit back, so
 * such a partition counts by what the members finished since the seek). A topic deleted and created again under its
 * name is waited for
 * from its start: what the listeners finished of the deleted one does not count, also while a member
 * still finishes records of it. Paused containers are not waited for, nor those not running (never started, as one
 * with {@code autoStartup} false, or stopped: their records stay unread, and the call names none of them; start such a
 * container before the call), nor a partition whose pause was
 * asked for ({@code pausePartition}), nor the share of its group's partitions a paused container keeps (another
 * container of the group is not waited for on them), also one paused or stopped
 * while the call waits (by another thread, or by its own listener), or closed with its context meanwhile. A
 * listener that finished a partition without processing what it holds (it started at the end under
 * {@code kafko.offset-reset=latest}, sought past it, or retention removed it) has caught up once a poll found
 * nothing more. A listener whose
 * polling thread died fails the wait at once, naming it. No sleeps: the caller parks until a listener
 * makes progress.
 *
 * <p>A pipeline settles in one call: once the listeners have caught up, the ends of their topics
 * are read again, and while they moved (a {@code @SendTo} reply, a dead letter, a send a listener
 * made) the listeners are waited for again, up to the new ends. Records that other threads send
 * meanwhile may be waited for as well. Listeners that keep feeding each other (a cycle) or a
 * producer that never stops cannot settle: after one pass more than there are containers the call
 * returns with the listeners caught up to the ends of its last pass.
 */
public final class KafkoTestUtils {

    /** How often a wait looks again whether its container still runs unpaused. */
    private static final Duration SLICE = Duration.ofMillis(100);

    private KafkoTestUtils() {
    }

    /** {@link #records(Kafko, String)} of the context's {@link Kafko}. */
    public static List<KafkoRecord> records(ApplicationContext context, String topic) {
        return records(context.getBean(Kafko.class), topic);
    }

    /**
     * Every record now in {@code topic}, partition by partition, each in offset order, read without a
     * group (nothing is committed): what a test asserts an output, reply or dead-letter topic holds.
     * Sends to the topic that linger are written first; records sent during the call may be left out.
     *
     * @throws UnknownTopicException when the topic does not exist
     * @throws dev.kafko.InvalidNameException when {@code topic} breaks the naming rule
     */
    public static List<KafkoRecord> records(Kafko kafko, String topic) {
        return TopicRecords.now(kafko, topic);
    }

    /**
     * Waits until {@code topic} holds at least {@code minRecords} records, then returns every record it holds, as
     * {@link #records(Kafko, String)} does: for a topic that application code fills from another thread (an
     * {@code @Async} method, a scheduled task, a web request), as spring-kafka-test's
     * {@code KafkaTestUtils.getRecords(consumer, timeout, minRecords)}. A topic not created yet (one the first send
     * creates under {@code kafko.auto-create-topics}) is waited for too. The wait parks until a record is appended
     * or the topic created; records are counted, not offsets (a compacted topic holds fewer than its offsets).
     *
     * @throws AssertionError naming the topic and the records it held when {@code timeout} passes first
     * @throws IllegalArgumentException when {@code minRecords} is below 1 or {@code timeout} is negative
     * @throws dev.kafko.InvalidNameException when {@code topic} breaks the naming rule
     */
    public static List<KafkoRecord> records(ApplicationContext context, String topic, int minRecords,
                                            Duration timeout) {
        return TopicRecords.atLeast(context.getBean(Kafko.class),
                context.getBeanProvider(LogBackend.class).getIfAvailable(), topic, minRecords, timeout);
    }

    /**
     * As {@link #records(ApplicationContext, String, int, Duration)}, of an instance outside a Spring context,
     * which cannot tell a topic's creation: the topic must exist.
     *
     * @throws UnknownTopicException when the topic does not exist
     */
    public static List<KafkoRecord> records(Kafko kafko, String topic, int minRecords, Duration timeout) {
        return TopicRecords.atLeast(kafko, null, topic, minRecords, timeout);
    }

    /**
     * The one record {@code topic} holds, waited for as {@link #records(ApplicationContext, String, int, Duration)}
     * waits for one (spring-kafka-test's {@code KafkaTestUtils.getSingleRecord}).
     *
     * @throws AssertionError when no record comes within {@code timeout}, or the topic holds more than one once one
     *     came, naming how many
     */
    public static KafkoRecord singleRecord(ApplicationContext context, String topic, Duration timeout) {
        List<KafkoRecord> records = records(context, topic, 1, timeout);
        if (records.size() != 1) {
            throw new AssertionError("topic '" + topic + "' holds " + records.size() + " records; expected one (the"
                    + " whole topic counts, with what earlier tests of a cached context sent: read what a test sent"
                    + " with singleRecord(Consumer, Duration), a consumer moved to the end before it sent)");
        }
        return records.get(0);
    }

    /**
     * Waits until {@code consumer} returned at least {@code minRecords} records from where it stands, then returns
     * them with what it returns on without waiting, partition by partition, each in offset order (spring-kafka-test's
     * {@code KafkaTestUtils.getRecords(consumer, timeout, minRecords)}). The consumer keeps its position, so that a
     * consumer the test class makes and moves to the end before each test ({@code kafko.consumer(topic)}, then
     * {@code seekToEnd()}: spring-kafka-test's {@code consumeFromAnEmbeddedTopic(consumer, true, topic)}) returns
     * only what that test made the application send, also in a context that earlier tests used.
     *
     * @throws AssertionError naming the topic and how many records the consumer returned when {@code timeout} passes
     *     first
     * @throws IllegalArgumentException when {@code minRecords} is below 1 or {@code timeout} is negative
     */
    public static List<KafkoRecord> records(Consumer consumer, int minRecords, Duration timeout) {
        return TopicRecords.polled(consumer, minRecords, timeout);
    }

    /**
     * The one record {@code consumer} returns from where it stands, waited for as
     * {@link #records(Consumer, int, Duration)} waits for one (spring-kafka-test's
     * {@code KafkaTestUtils.getSingleRecord(consumer, topic, timeout)}).
     *
     * @throws AssertionError when no record comes within {@code timeout}, or the consumer returns more than one
     *     once one came, naming how many
     */
    public static KafkoRecord singleRecord(Consumer consumer, Duration timeout) {
        List<KafkoRecord> records = records(consumer, 1, timeout);
        if (records.size() != 1) {
            throw new AssertionError("consumer of topic '" + consumer.topic() + "' returned " + records.size()
                    + " records; expected one");
        }
        return records.get(0);
    }

    /**
     * Waits until the container's members read {@code partitions} partitions in all, as spring-kafka's
     * {@code ContainerTestUtils.waitForAssignment}: for a listener just started, before a test sends what a
     * listener reading from the end must see, or to wait for a rebalance to settle. A container that is not running
     * (never started, as one with {@code autoStartup} false, or stopped) reads no partition and is assigned none
     * until it starts: the call fails at once instead of waiting out {@code timeout}, where {@code waitForListeners},
     * which waits for every running container, leaves it out. One started while its members finished a stop (its
     * own listener's, say) is waited for: they run again once that stop ends ({@link
     * ConcurrentMessageListenerContainer#isStartPending()}).
     *
     * @throws AssertionError naming the partitions read when {@code timeout} passes first; at once, naming the
     *     listener, when the container is not running (before the call or while it waits: stopped by another thread
     *     or its own listener) and {@code partitions} is not 0, with the error that ended a member's thread as its cause
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    public static void waitForAssignment(MessageListenerContainer container, int partitions, Duration timeout) {
        long deadline = deadline(timeout);
        while (true) {
            Map<String, Set<Integer>> assigned = container.getAssignedPartitions();
            int count = assigned.values().stream().mapToInt(Set::size).sum();
            if (count == partitions) {
                return;
            }
            if (!container.isRunning() && !(container instanceof ConcurrentMessageListenerContainer c
                    && c.isStartPending())) {
                throw new AssertionError("kafko listener '" + container.getListenerId() + "' is not running, so it is"
                        + " assigned no partition: start it (autoStartup false leaves it stopped until then) before"
                        + " waiting for its " + partitions + " partition(s)", container.getFailure());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("kafko listener '" + container.getListenerId() + "' was assigned " + count
                        + " partition(s) " + assigned + ", not " + partitions + ", within " + timeout);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for the assignment of kafko listener '"
                        + container.getListenerId() + "'", e);
            }
        }
    }

    /**
     * Waits for the listeners of the context's {@link KafkoListenerEndpointRegistry}; returns at once when the
     * context is closed or closing (its listeners stopped with it).
     *
     * @throws AssertionError as {@link #waitForListeners(KafkoListenerEndpointRegistry, Duration)} does, and when
     *     another thread closed the context while the call waited (a parallel test's {@code @DirtiesContext},
     *     Spring's test context cache evicting it): its listeners stopped without the records being checked, and
     *     a test asserting that a record did not arrive would pass having checked nothing
     * @throws IllegalArgumentException when {@code timeout} is negative, also on a closed context
     */
    public static void waitForListeners(ApplicationContext context, Duration timeout) {
        deadline(timeout); // refused before a closed context returns, as on an open one
        if (context instanceof ConfigurableApplicationContext configurable
                && (configurable.isClosed() || !configurable.isActive())) {
            return; // closed, or closing, before the call
        }
        waitForListeners(context.getBean(KafkoListenerEndpointRegistry.class), timeout);
        if (context instanceof ConfigurableApplicationContext configurable && configurable.isClosed()) {
            throw new AssertionError("The application context closed while waitForListeners waited for its kafko"
                    + " listeners: another thread closed it (a parallel test's @DirtiesContext on the same"
                    + " configuration, or Spring's test context cache evicting it past"
                    + " spring.test.context.cache.maxSize), so what its listeners would have received was not"
                    + " checked; give such tests a context of their own");
        }
    }

    /**
     * Waits until every running listener container caught up with the end offsets of its topics,
     * read again after each pass until they stop moving (see the class comment).
     *
     * @throws AssertionError naming the partitions still behind when {@code timeout} passes; naming the
     *     listener, with the cause, when a polling thread of a listener died (before or during the wait), or when the
     *     Kafko instance was closed while the registry still runs (not by the context's close); or at once,
     *     naming the listener and the topic, when a running listener's topic does not exist: deleted, and
     *     not created again yet (where topics are created on use, the listener creates it at its next
     *     poll; with {@code kafko.auto-create-topics=false} an undeclared one waits for the application),
     *     with the {@link UnknownTopicException} as its cause; a deleted topic a listener's topic pattern matched
     *     is not waited for (that listener never creates it again)
     * @throws IllegalArgumentException when {@code timeout} is negative
     */
    public static void waitForListeners(KafkoListenerEndpointRegistry registry, Duration timeout) {
        long deadline = deadline(timeout);
        List<ConcurrentMessageListenerContainer> containers = new ArrayList<>();
        for (MessageListenerContainer container : registry.getListenerContainers()) {
            if (container instanceof ConcurrentMessageListenerContainer concurrent && waitedFor(concurrent)) {
                containers.add(concurrent);
            }
        }
        Map<ConcurrentMessageListenerContainer, Map<String, Map<Integer, Long>>> previous = null;
        for (MessageListenerContainer container : registry.getListenerContainers()) {
            if (container instanceof ConcurrentMessageListenerContainer concurrent) {
                requireAlive(concurrent);
            }
        }
        for (int pass = 0; ; pass++) {
            // every container's targets first: the ends of one moment, whatever the order of the
            // containers (a listener that sends on to another one's topic must not move its target)
            Map<ConcurrentMessageListenerContainer, Map<String, Map<Integer, Long>>> targets = new LinkedHashMap<>();
            for (ConcurrentMessageListenerContainer container : containers) {
                Map<String, Map<Integer, Long>> ends = waitedFor(container) ? endOffsets(registry, container) : null;
                if (ends != null) {
                    targets.put(container, ends);
                }
            }
            if (targets.equals(previous) || pass > passes(containers)) {
                for (ConcurrentMessageListenerContainer container : containers) {
                    // one whose member died between a slice's look for the dead and its look at the running left
                    // the targets as stopped: it did not catch up
                    requireAlive(container);
                }
                return; // settled: nothing moved while the listeners caught up; or it cannot settle
            }
            awaitCaughtUp(registry, targets, deadline, timeout);
            previous = targets;
        }
    }

    /**
     * The {@link System#nanoTime} at which a wait of {@code timeout} ends; a negative timeout is refused, as the record
     * readers refuse it, where it would have returned at once from a wait with nothing behind, having waited for nothing.
     */
    private static long deadline(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, was " + timeout);
        }
        return System.nanoTime() + timeout.toNanos();
    }

    /**
     * One pass more than there are containers, and one more for each attempt of a {@code @RetryableTopic} listener's
     * containers: a retry topic read by several retries forwards a record into itself, a cycle that ends with its
     * attempts (a pass may see one hop of it only), where a cycle of listeners may never end.
     */
    private static int passes(List<ConcurrentMessageListenerContainer> containers) {
        int passes = containers.size();
        for (ConcurrentMessageListenerContainer container : containers) {
            if (container.getErrorHandler() instanceof DefaultErrorHandler handler
                    && handler.getRecoverer() instanceof RetryTopicRecoverer retries) {
                passes += retries.getTopics().attempts();
            }
        }
        return passes;
    }

    /** The container's targets; null when its log closed (its context closed after the container was looked at). */
    private static @Nullable Map<String, Map<Integer, Long>> endOffsets(KafkoListenerEndpointRegistry registry,
                                                                        ConcurrentMessageListenerContainer container) {
        try {
            return unpaused(registry, container, container.endOffsets());
        } catch (UnknownTopicException e) {
            throw noTopic(container, e);
        } catch (KafkoClosedException e) {
            return stoppedWith(registry, container, e); // as a closed context's, which are not waited for
        }
    }

    /**
     * Nothing, for a container whose log closed as its context closed (the registry stops its listeners, then the
     * log closes); a failed wait while the registry and the container still run: the application's own code closed
     * the instance under them (a try-with-resources around an injected {@code Kafko}), and it can never catch up.
     */
    private static @Nullable Map<String, Map<Integer, Long>> stoppedWith(KafkoListenerEndpointRegistry registry,
            ConcurrentMessageListenerContainer container, KafkoClosedException e) {
        if (registry.isRunning() && waitedFor(container)) {
            throw new AssertionError("kafko listener '" + container.getListenerId() + "' cannot catch up: its Kafko"
                    + " instance was closed while the listener runs (" + e.getMessage() + ")", e);
        }
        return null;
    }

    /** A failed wait, not an error of the log: a listener reads a topic that does not exist. */
    private static AssertionError noTopic(ConcurrentMessageListenerContainer container, UnknownTopicException e) {
        return new AssertionError("kafko listener '" + container.getListenerId() + "' cannot be waited for: "
                + e.getMessage(), e);
    }

    /** A listener whose polling thread died can never catch up: the wait fails at once, naming it and why. */
    private static void requireAlive(ConcurrentMessageListenerContainer container) {
        if (container.hasDeadMember()) {
            Throwable failure = container.getFailure();
            throw new AssertionError("kafko listener '" + container.getListenerId() + "' cannot catch up: a polling"
                    + " thread of it died (" + failure + ")", failure);
        }
    }

    /**
     * The target without the partitions whose pause is asked for ({@code pausePartition}), which are not waited for
     * as a paused container is not: their records wait for the {@code resumePartition}, so a wait for them could only
     * time out. Nor those another container of the group reads while its pause, or that partition's, is asked for:
     * a paused container keeps its share of its group's partitions, whose records wait for its resume. Asked again at
     * each slice, so a partition paused while the call waits, or one that moves, is waited for as it is then.
     */
    private static Map<String, Map<Integer, Long>> unpaused(KafkoListenerEndpointRegistry registry,
                                                            ConcurrentMessageListenerContainer container,
                                                            Map<String, Map<Integer, Long>> target) {
        List<ConcurrentMessageListenerContainer> group = othersOfGroup(registry, container);
        Map<String, Map<Integer, Long>> kept = new LinkedHashMap<>();
        for (Map.Entry<String, Map<Integer, Long>> topic : target.entrySet()) {
            Map<Integer, Long> partitions = new LinkedHashMap<>();
            for (Map.Entry<Integer, Long> partition : topic.getValue().entrySet()) {
                if (!container.isPartitionPauseRequested(topic.getKey(), partition.getKey())
                        && !readPaused(group, topic.getKey(), partition.getKey())) {
                    partitions.put(partition.getKey(), partition.getValue());
                }
            }
            kept.put(topic.getKey(), partitions);
        }
        return kept;
    }

    /** The registry's other running containers of {@code container}'s group. */
    private static List<ConcurrentMessageListenerContainer> othersOfGroup(KafkoListenerEndpointRegistry registry,
                                                                          ConcurrentMessageListenerContainer container) {
        List<ConcurrentMessageListenerContainer> group = new ArrayList<>();
        for (MessageListenerContainer other : registry.getListenerContainers()) {
            if (other != container && other instanceof ConcurrentMessageListenerContainer concurrent
                    && concurrent.isRunning() && concurrent.getGroupId().equals(container.getGroupId())) {
                group.add(concurrent);
            }
        }
        return group;
    }

    /** Whether one of {@code group} reads the partition while its pause, or the partition's, is asked for. */
    private static boolean readPaused(List<ConcurrentMessageListenerContainer> group, String topic, int partition) {
        for (ConcurrentMessageListenerContainer other : group) {
            if ((other.isPauseRequested() || other.isPartitionPauseRequested(topic, partition))
                    && other.getAssignedPartitions().getOrDefault(topic, Set.of()).contains(partition)) {
                return true;
            }
        }
        return false;
    }

    private static boolean waitedFor(ConcurrentMessageListenerContainer container) {
        return container.isRunning() && !container.isPauseRequested();
    }

    /**
     * Waits for one container in slices, so that one paused or stopped meanwhile (by another thread, or by
     * its own listener: a circuit breaker) is no longer waited for, as one paused or stopped before the call.
     */
    private static List<String> awaitCaughtUp(KafkoListenerEndpointRegistry registry,
                                              ConcurrentMessageListenerContainer container,
                                              Map<String, Map<Integer, Long>> target, long deadline)
            throws InterruptedException {
        while (true) {
            long left = Math.max(0, deadline - System.nanoTime());
            List<String> lagging;
            try {
                lagging = container.awaitCaughtUp(unpaused(registry, container, target),
                        Duration.ofNanos(Math.min(left, SLICE.toNanos())));
            } catch (UnknownTopicException gone) {
                throw noTopic(container, gone); // deleted while the call waited
            } catch (KafkoClosedException closed) {
                // its context closed while the call waited (another thread closed it: Spring's test context
                // cache evicting it, a parallel test's @DirtiesContext): its listeners stopped, then its log closed
                stoppedWith(registry, container, closed);
                return List.of();
            }
            requireAlive(container); // died while the call waited
            if (lagging.isEmpty() || !waitedFor(container)) {
                return List.of();
            }
            if (left <= SLICE.toNanos()) {
                return lagging;
            }
        }
    }

    private static void awaitCaughtUp(KafkoListenerEndpointRegistry registry,
                                      Map<ConcurrentMessageListenerContainer, Map<String, Map<Integer, Long>>> targets,
                                      long deadline, Duration timeout) {
        List<String> behind = new ArrayList<>();
        try {
            for (Map.Entry<ConcurrentMessageListenerContainer, Map<String, Map<Integer, Long>>> e : targets.entrySet()) {
                List<String> lagging = awaitCaughtUp(registry, e.getKey(), e.getValue(), deadline);
                lagging.forEach(partition -> behind.add(e.getKey().getListenerId() + ": " + partition));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while waiting for kafko listeners", e);
        }
        if (!behind.isEmpty()) {
            throw new AssertionError("kafko listeners did not catch up within " + timeout + ": " + behind);
        }
    }
}
