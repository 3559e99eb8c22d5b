package dev.kafko.spring.config;

import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Owns every listener container, for any thread to look up, start, stop, pause or resume: it
 * starts the auto-startup ones when the context starts and stops them all (in parallel, each
 * gracefully) before the context closes, so that kafko itself closes only after every container
 * stopped. While any container of the JVM runs, a non-daemon thread named {@code kafko-keep-alive} keeps
 * the JVM alive (the members' threads are daemon threads), as spring-kafka's non-daemon consumer threads
 * do.
 *
 * <pre>{@code
 * registry.getListenerContainer("billing").pause();
 * }</pre>
 */
public class KafkoListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

    /** The bean name of the registry. */
    public static final String BEAN_NAME = "kafkoListenerEndpointRegistry";

    /** Late start, early stop: after and before most other lifecycle beans (spring-kafka's phase). */
    public static final int PHASE = Integer.MAX_VALUE - 100;

    private final Map<String, MessageListenerContainer> containers = new LinkedHashMap<>();
    /** The container groups by name, under the lock of {@link #containers}. */
    private final Map<String, ContainerGroup> groups = new LinkedHashMap<>();
    /**
     * The containers {@link #unregisterListenerContainer} is removing, by identity, under the lock of
     * {@link #containers}, each with its unregistration: the registry starts a container only while it is registered
     * and not in here, also from a {@link #start()} that listed it before ({@link #startRegistered}), and another
     * unregistration of it waits for that one ({@link #unregister}).
     */
    private final Map<MessageListenerContainer, Unregistration> unregistering = new IdentityHashMap<>();
    private volatile boolean running;

    /**
     * Adds a container.
     *
     * @param startIfRunning start it now when the registry runs (or is starting) and the container is
     *     auto-startup; when that start fails, the container is not registered and the failure is thrown
     * @throws IllegalStateException when another container has the same id
     */
    public void registerListenerContainer(MessageListenerContainer container, boolean startIfRunning) {
        register(container, startIfRunning, null);
    }

    /**
     * Adds a container, lets {@code beforeStart} act on it registered (join its container group, so that a
     * {@code stop()} of the group from then on stops it too), then starts it as
     * {@link #registerListenerContainer(MessageListenerContainer, boolean)} does: as any start of the registry's, only
     * while this very container is registered and not being unregistered, so that one unregistered meanwhile (by
     * another thread) is not left running, registered nowhere. When {@code beforeStart} or the start fails, this very
     * container is unregistered again (stopped, out of its groups, its meters gone; not another one registered under
     * its id meanwhile) and the failure is thrown.
     *
     * @throws IllegalStateException when another container has the same id
     */
    public void registerListenerContainer(MessageListenerContainer container, boolean startIfRunning,
                                          Consumer<? super MessageListenerContainer> beforeStart) {
        register(container, startIfRunning, Objects.requireNonNull(beforeStart, "beforeStart"));
    }

    private void register(MessageListenerContainer container, boolean startIfRunning,
                          @Nullable Consumer<? super MessageListenerContainer> beforeStart) {
        String id = container.getListenerId();
        synchronized (containers) {
            if (containers.containsKey(id)) {
                throw new IllegalStateException("Two listeners have the id '" + id + "'; listener ids must be unique");
            }
            containers.put(id, container);
        }
        try {
            if (beforeStart != null) {
                beforeStart.accept(container);
            }
            if (startIfRunning && running && container.isAutoStartup()) {
                startRegistered(container);
            }
        } catch (RuntimeException | Error e) {
            // not registered after all: the id is free for a corrected container; by identity, as an equal one
            // registered under the id once this one was unregistered meanwhile is another container
            try {
                unregister(container, false);
            } catch (RuntimeException | Error suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Removes the container with this id, stopping it first (gracefully, as {@link MessageListenerContainer#stop()}),
     * so that a listener added at runtime (a tenant's) can go for good: its id is free again, and its meters
     * (the listener's timers and dead-letter counter, its group's lag on its topics) leave the registry. As
     * spring-kafka's, two calls for one id at once remove it once: one returns the container, the other
     * {@code null}; here the other waits until the container stopped and its id is free (or, when that
     * unregistration failed, unregisters it itself), but for a call from the container's own stop or its own
     * listener, which returns {@code null} at once (the container stops once the listener returns), and one
     * interrupted while it waits, which returns {@code null} then, its interrupt kept.
     *
     * @return the removed container, or {@code null} when there is none with this id, or another call removed it
     * @throws RuntimeException what the container's {@code stop()} threw: it stays registered, in its groups
     */
    public @Nullable MessageListenerContainer unregisterListenerContainer(String id) {
        Objects.requireNonNull(id, "id");
        MessageListenerContainer container;
        synchronized (containers) {
            container = containers.get(id);
        }
        return container != null && unregister(container, true) ? container : null;
    }

    /**
     * Unregisters this very container, when it is registered: takes it out of its groups and marks it before its
     * stop, then removes it; puts everything back in place when the stop fails. When another unregistration of it is
     * under way, waits for that one ({@code await}; a failed one is taken over), unless it is this thread's or the
     * container's own (its stop, its listener: that one waits for this thread), or until this thread is interrupted.
     *
     * @return whether this call removed it
     */
    private boolean unregister(MessageListenerContainer container, boolean await) {
        String id = container.getListenerId();
        Unregistration own = new Unregistration(Thread.currentThread());
        Map<ContainerGroup, List<MessageListenerContainer>> left = new LinkedHashMap<>();
        while (true) {
            Unregistration other;
            synchronized (containers) {
                if (containers.get(id) != container) {
                    return false; // removed by another call, or never registered
                }
                other = unregistering.get(container);
                if (other == null) {
                    // before the stop: a start() of the registry or of its group that listed it already must not
                    // start it again after the stop, which would leave it running unregistered, stopped by nothing
                    // (and the JVM kept alive)
                    unregistering.put(container, own);
                    for (ContainerGroup group : groups.values()) {
                        List<MessageListenerContainer> before = group.getContainers().stream()
                                .takeWhile(c -> c != container).toList();
                        if (group.removeContainer(container)) {
                            left.put(group, before);
                        }
                    }
                    break;
                }
            }
            if (!await || other.thread == Thread.currentThread() || isOwnThread(container) || !other.awaitDone()) {
                return false; // that unregistration waits for this thread, or this one was interrupted
            }
        }
        try {
            container.stop();
            if (container instanceof ConcurrentMessageListenerContainer c) {
                c.removed();
            }
        } catch (RuntimeException | Error e) {
            synchronized (containers) { // still registered, in its groups, each in its place
                unregistering.remove(container);
                left.forEach((group, before) -> group.restoreContainer(container, before));
            }
            own.done.countDown();
            throw e;
        }
        synchronized (containers) {
            containers.remove(id, container);
            unregistering.remove(container);
        }
        own.done.countDown();
        return true;
    }

    /** Whether this thread is a polling thread of the container (its listener, or its listener's stop events). */
    private static boolean isOwnThread(MessageListenerContainer container) {
        return container instanceof ConcurrentMessageListenerContainer c && c.isPollingThread(Thread.currentThread());
    }

    /** An unregistration under way: its thread, and its end, which another unregistration of the container awaits. */
    private static final class Unregistration {
        final Thread thread;
        final CountDownLatch done = new CountDownLatch(1);

        Unregistration(Thread thread) {
            this.thread = thread;
        }

        /**
         * Waits for its end.
         *
         * @return false when the waiting thread was interrupted first (its interrupt kept)
         */
        boolean awaitDone() {
            try {
                done.await();
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /**
     * Starts a container unless it was unregistered (or is being). For kafko's container the check and the start are
     * made under its own lock, on which its lifecycle methods are serialized: an unregistration either marks it before
     * the check (it does not start) or stops it after this start. Another container's monitor guards nothing of its
     * lifecycle (and its start may wait for a thread that takes it): its start is checked for before and after, and
     * one unregistered meanwhile, whose stop may have come while it started, is stopped again.
     */
    private void startRegistered(MessageListenerContainer container) {
        if (container instanceof ConcurrentMessageListenerContainer) {
            synchronized (container) {
                if (isRegistered(container)) {
                    container.start();
                }
            }
        } else if (isRegistered(container)) {
            container.start();
            if (!isRegistered(container)) {
                container.stop();
            }
        }
    }

    /** Whether this very container is registered, and not being unregistered. */
    private boolean isRegistered(MessageListenerContainer container) {
        String id = container.getListenerId();
        synchronized (containers) {
            return containers.get(id) == container && !unregistering.containsKey(container);
        }
    }

    /**
     * Adds a registered container to the {@link ContainerGroup} of that name, made now when there is none.
     *
     * @return the group
     * @throws IllegalStateException when the container is not registered (it may have been removed meanwhile), or is
     *     being unregistered: it would stay in the group once removed, for the group's {@code start()} to run it
     */
    public ContainerGroup addToGroup(String group, MessageListenerContainer container) {
        Objects.requireNonNull(group, "group");
        synchronized (containers) {
            if (!isRegistered(container)) {
                throw new IllegalStateException("Listener '" + container.getListenerId() + "' is not registered: it"
                        + " cannot join container group '" + group + "'");
            }
            ContainerGroup joined = groups.computeIfAbsent(group, ContainerGroup::new);
            joined.addContainers(container);
            return joined;
        }
    }

    /** The container group of that name, or {@code null} when no container has joined one of that name. */
    public @Nullable ContainerGroup getContainerGroup(String group) {
        synchronized (containers) {
            return groups.get(group);
        }
    }

    /** The container with this listener id, or {@code null}. */
    public @Nullable MessageListenerContainer getListenerContainer(String id) {
        synchronized (containers) {
            return containers.get(id);
        }
    }

    public Set<String> getListenerContainerIds() {
        synchronized (containers) {
            return Set.copyOf(containers.keySet());
        }
    }

    public Collection<MessageListenerContainer> getListenerContainers() {
        synchronized (containers) {
            return List.copyOf(containers.values());
        }
    }

    /**
     * The containers whose listener id {@code idMatcher} accepts, in registration order, as spring-kafka's
     * ({@code registry.getListenerContainersMatching(id -> id.startsWith("tenant-"))}).
     */
    public Collection<MessageListenerContainer> getListenerContainersMatching(Predicate<String> idMatcher) {
        Objects.requireNonNull(idMatcher, "idMatcher");
        return getListenerContainersMatching((id, container) -> idMatcher.test(id));
    }

    /** The containers that {@code matcher} accepts, given each one's listener id and the container itself. */
    public Collection<MessageListenerContainer> getListenerContainersMatching(
            BiPredicate<String, MessageListenerContainer> matcher) {
        Objects.requireNonNull(matcher, "matcher");
        List<MessageListenerContainer> matching = new ArrayList<>();
        for (MessageListenerContainer container : getListenerContainers()) {
            if (matcher.test(container.getListenerId(), container)) {
                matching.add(container);
            }
        }
        return matching;
    }

    /**
     * Starts every auto-startup container. When one cannot start (its topic is missing, say), those
     * started before it are stopped again before the failure is thrown: the context is failing, and
     * they would otherwise still poll while kafko closes under them.
     */
    @Override
    public void start() {
        // running first: a container registered while this loop runs (from a listener, another thread) is started
        // by its registration, which sees the registry running; one in the loop's copy too is started once
        running = true;
        for (MessageListenerContainer container : getListenerContainers()) {
            if (container.isAutoStartup()) {
                try {
                    startRegistered(container); // not one unregistered since the list was taken
                } catch (RuntimeException | Error e) {
                    try {
                        stop();
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                    throw e;
                }
            }
        }
    }

    /**
     * Stops every container at once and waits for all. A container whose members all died is stopped too,
     * which lets the JVM exit. Called on a listener's own polling thread (a listener that closes the
     * application), that listener's container is stopped on it, so the member is not waited for.
     */
    @Override
    public void stop() {
        running = false;
        Thread caller = Thread.currentThread();
        List<CompletableFuture<Void>> stopping = new ArrayList<>();
        List<MessageListenerContainer> here = new ArrayList<>();
        for (MessageListenerContainer container : getListenerContainers()) {
            if (container.isRunning() && !(container instanceof ConcurrentMessageListenerContainer c
                    && c.isPollingThread(caller))) {
                stopping.add(CompletableFuture.runAsync(container::stop, runnable -> {
                    Thread t = new Thread(runnable, "kafko-stop-" + container.getListenerId());
                    t.start();
                }));
            } else {
                here.add(container);
            }
        }
        // the others stop meanwhile: their shutdown timeouts run together, not one after the other
        for (MessageListenerContainer container : here) {
            if (container instanceof ConcurrentMessageListenerContainer c && c.isPollingThread(caller)) {
                c.stopForShutdown();
            } else {
                container.stop();
            }
        }
        CompletableFuture.allOf(stopping.toArray(CompletableFuture[]::new)).join();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public void destroy() {
        stop();
    }
}
