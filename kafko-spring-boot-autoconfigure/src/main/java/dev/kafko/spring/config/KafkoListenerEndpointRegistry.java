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
import java.util.concurrent.CompletionException;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * Owns every listener container, for any thread to look up, start, stop, pause or resume: it
 * starts the auto-startup ones when the context starts and stops them all (in parallel, each
 * gracefully) before the context closes, so that kafko itself closes only after every container
 * stopped. While any container of the JVM runs, a non-daemon thread named {@code kafko-keep-alive} keeps
 * the JVM alive (the members' threads are daemon threads), as spring-kafka's non-daemon consumer threads
 * do. As spring-kafka's, once its context has been refreshed it starts every container, whatever its
 * {@code autoStartup}: a {@link #start()} while it runs and a container registered with {@code startIfRunning} while
 * it runs, as {@code SmartLifecycle} weighs {@code autoStartup} only while the context starts; a {@link #stop()} (the
 * context's {@code stop()} or {@code pause()}) ends that until the next refresh, so that the start after it (the
 * context's {@code start()} or {@code restart()}) weighs {@code autoStartup} as the context's first start did.
 * {@link #setAlwaysStartAfterRefresh(boolean) setAlwaysStartAfterRefresh(false)} keeps weighing it always.
 *
 * <pre>{@code
 * registry.getListenerContainer("billing").pause();
 * }</pre>
 */
public class KafkoListenerEndpointRegistry implements SmartLifecycle, DisposableBean, ApplicationContextAware,
        ApplicationListener<ContextRefreshedEvent> {

    /** The bean name of the registry. */
    public static final String BEAN_NAME = "kafkoListenerEndpointRegistry";

    /** Late start, early stop: after and before most other lifecycle beans (spring-kafka's phase). */
    public static final int PHASE = Integer.MAX_VALUE - 100;

    private final Map<String, MessageListenerContainer> containers = new LinkedHashMap<>();
    /** The container groups by name, under the lock of {@link #containers}. */
    private final Map<String, ContainerGroup> groups = new LinkedHashMap<>();
    /**
     * The containers {@link #unregisterListenerContainer} is removing, by identity, under the lock of
     * {@link #containers}, until their stop returned: the registry starts a container only while it is registered and
     * not in here, also from a {@link #start()} that listed it before ({@link #startRegistered}); another
     * unregistration of one frees its id and leaves it to the first ({@link #unregister}), and a {@link #stop()} of
     * the registry stops those whose id was freed so too. Each with its id, taken before the lock: the registry calls
     * no container while holding it (a container's monitor may be held by its own stop, which looks the registry up).
     */
    private final Map<MessageListenerContainer, String> unregistering = new IdentityHashMap<>();
    private volatile boolean running;
    private @Nullable ApplicationContext applicationContext;
    /**
     * Set by the refresh of the registry's own context, after its start at that refresh; cleared by a {@link #stop()}
     * (as spring-kafka's is since 4.0.8).
     */
    private volatile boolean contextRefreshed;
    private volatile boolean alwaysStartAfterRefresh = true;

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
        this.applicationContext = applicationContext;
    }

    /** Notes the refresh of the registry's own context (a child context's refresh reaches it too). */
    @Override
    public void onApplicationEvent(ContextRefreshedEvent event) {
        if (event.getApplicationContext().equals(applicationContext)) {
            contextRefreshed = true;
        }
    }

    /**
     * Whether, once the context has been refreshed (and until the registry's next {@link #stop()}), a start of the
     * registry and a registration that starts a container start every container, also one whose {@code autoStartup}
     * is false (spring-kafka's {@code alwaysStartAfterRefresh}, true by default); false weighs {@code autoStartup} at
     * every start.
     */
    public void setAlwaysStartAfterRefresh(boolean alwaysStartAfterRefresh) {
        this.alwaysStartAfterRefresh = alwaysStartAfterRefresh;
    }

    /** Whether, once the context has been refreshed, every container starts (see {@link #setAlwaysStartAfterRefresh}). */
    public boolean isAlwaysStartAfterRefresh() {
        return alwaysStartAfterRefresh;
    }

    /** Whether a start of the registry, or a registration that starts, starts this container. */
    private boolean startsAtStart(MessageListenerContainer container) {
        return (contextRefreshed && alwaysStartAfterRefresh) || container.isAutoStartup();
    }

    /**
     * Adds a container.
     *
     * @param startIfRunning start it now when the registry runs (or is starting) and the container is
     *     auto-startup, or the context has been refreshed and the registry not stopped since (see
     *     {@link #setAlwaysStartAfterRefresh}); when that start
     *     fails, the container is not registered and the failure is thrown
     * @throws IllegalStateException when another container has the same id, or this one is still being unregistered
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
     * @throws IllegalStateException when another container has the same id, or this one is still being unregistered
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
            if (unregistering.containsKey(container)) {
                throw new IllegalStateException("Listener '" + id + "' is still being unregistered: register it again"
                        + " once its unregistration returned");
            }
            containers.put(id, container);
        }
        try {
            if (beforeStart != null) {
                beforeStart.accept(container);
            }
            if (startIfRunning && running && startsAtStart(container)) {
                startRegistered(container);
            }
        } catch (Throwable e) { // also a checked exception a Kotlin container throws
            // not registered after all: the id is free for a corrected container; by identity, as an equal one
            // registered under the id once this one was unregistered meanwhile is another container
            try {
                unregister(container);
            } catch (Throwable suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Removes the container with this id, stopping it first (gracefully, as {@link MessageListenerContainer#stop()}),
     * so that a listener added at runtime (a tenant's) can go for good: its id is free again, and its meters
     * (the listener's timers and dead-letter counter, its group's lag on its topics) leave the registry. As
     * spring-kafka's, two calls for one id at once remove it once: one returns the container once it stopped, the
     * other {@code null} at once, its id free then (the first call still stops the container; a {@code stop()} of
     * the registry stops it too). That other call does not wait for the first, whose stop may wait for it: a call
     * from the container's own stop or its own listener, or from a thread its stop waits for.
     *
     * @return the removed container, or {@code null} when there is none with this id, or another call removes it
     * @throws RuntimeException what the container's {@code stop()} threw: it stays registered, in its groups, in its
     *     place; unless another container was registered under its id meanwhile (after a second call freed it),
     *     which keeps it
     */
    public @Nullable MessageListenerContainer unregisterListenerContainer(String id) {
        Objects.requireNonNull(id, "id");
        MessageListenerContainer container;
        synchronized (containers) {
            container = containers.get(id);
        }
        return container != null && unregister(container) ? container : null;
    }

    /**
     * Unregisters this very container, when it is registered: takes it out of its groups and marks it before its
     * stop, then removes it; puts everything back in place when the stop fails. When another unregistration of it is
     * under way, frees its id at once and leaves the container to that one, without waiting for it (that one's stop
     * may wait for this thread).
     *
     * @return whether this call removed it
     */
    private boolean unregister(MessageListenerContainer container) {
        String id = container.getListenerId();
        List<String> earlier;
        Map<ContainerGroup, List<MessageListenerContainer>> left = new LinkedHashMap<>();
        synchronized (containers) {
            if (containers.get(id) != container) {
                return false; // removed by another call, or never registered
            }
            if (unregistering.containsKey(container)) {
                // as spring-kafka's one atomic remove: this call returns null, its id free, and the other one stops it
                containers.remove(id);
                return false;
            }
            // before the stop: a start() of the registry or of its group that listed it already must not start it
            // again after the stop, which would leave it running unregistered, stopped by nothing (and the JVM kept
            // alive)
            unregistering.put(container, id);
            earlier = containers.keySet().stream().takeWhile(k -> !k.equals(id)).toList();
            for (ContainerGroup group : groups.values()) {
                List<MessageListenerContainer> before = group.getContainers().stream()
                        .takeWhile(c -> c != container).toList();
                if (group.removeContainer(container)) {
                    left.put(group, before);
                }
            }
        }
        try {
            container.stop();
            synchronized (containers) {
                // not the meters of another container registered under its id once a second call freed it
                if (!containers.containsKey(id) || containers.get(id) == container) {
                    if (container instanceof ConcurrentMessageListenerContainer c) {
                        c.removed();
                    }
                    containers.remove(id);
                }
                unregistering.remove(container);
            }
        } catch (Throwable e) { // also a checked exception a Kotlin container throws: not left being unregistered
            synchronized (containers) { // still registered, in its groups, each in its place
                unregistering.remove(container);
                if (!containers.containsKey(id)) { // freed by a second call, and not taken since
                    putBack(id, container, earlier);
                }
                if (containers.get(id) == container) {
                    left.forEach((group, before) -> group.restoreContainer(container, before));
                }
            }
            throw e;
        }
        return true;
    }

    /** Registers a container again under its id, right after the last of {@code earlier} still registered, or first. */
    private void putBack(String id, MessageListenerContainer container, List<String> earlier) {
        List<Map.Entry<String, MessageListenerContainer>> entries = new ArrayList<>(containers.entrySet());
        int at = 0;
        for (int i = 0; i < entries.size(); i++) {
            if (earlier.contains(entries.get(i).getKey())) {
                at = i + 1;
            }
        }
        entries.add(at, Map.entry(id, container));
        containers.clear();
        entries.forEach(e -> containers.put(e.getKey(), e.getValue()));
    }

    /**
     * Starts a container unless it was unregistered (or is being), or the registry stopped (the context closes). For
     * kafko's container the check and the start are made under its own lock, on which its lifecycle methods are
     * serialized: an unregistration or a stop of the registry either comes before the check (it does not start) or
     * stops it after this start. Another container's monitor guards nothing of its lifecycle (and its start may wait
     * for a thread that takes it): its start is checked for before and after, and one unregistered or whose registry
     * stopped meanwhile, whose stop may have come while it started, is stopped again.
     */
    private void startRegistered(MessageListenerContainer container) {
        if (container instanceof ConcurrentMessageListenerContainer) {
            synchronized (container) {
                if (running && isRegistered(container)) {
                    container.start();
                }
            }
        } else if (running && isRegistered(container)) {
            container.start();
            if (!running || !isRegistered(container)) {
                container.stop();
            }
        }
    }

    /** Whether this very container is registered, and not being unregistered. */
    private boolean isRegistered(MessageListenerContainer container) {
        return isRegistered(container, container.getListenerId());
    }

    /** Whether this very container is registered under {@code id}, its id, and not being unregistered. */
    private boolean isRegistered(MessageListenerContainer container, String id) {
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
        String id = container.getListenerId();
        synchronized (containers) {
            if (!isRegistered(container, id)) {
                throw new IllegalStateException("Listener '" + id + "' is not registered: it"
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
     * Every container, as spring-kafka's {@code getAllListenerContainers()}: the registered ones in registration order,
     * then the context's beans of type {@link MessageListenerContainer} that are not registered (a container an
     * application declares as a bean; the registry neither starts nor stops such a one). Outside a context, the
     * registered ones. The beans are asked for as spring-kafka's asks for them
     * ({@code getBeansOfType(MessageListenerContainer.class, true, false)}): a prototype container bean is made anew
     * at each call, a lazy one declared by a {@code @Bean} method is made by the first, one that cannot be made fails
     * the call, and once the context is closed the call fails ({@link #getListenerContainers()} still answers).
     */
    public Collection<MessageListenerContainer> getAllListenerContainers() {
        List<MessageListenerContainer> all = new ArrayList<>(getListenerContainers());
        ApplicationContext context = applicationContext;
        if (context != null) {
            Map<MessageListenerContainer, Boolean> registered = new IdentityHashMap<>();
            for (MessageListenerContainer container : all) {
                registered.put(container, Boolean.TRUE);
            }
            for (MessageListenerContainer bean
                    : context.getBeansOfType(MessageListenerContainer.class, true, false).values()) {
                if (registered.put(bean, Boolean.TRUE) == null) {
                    all.add(bean);
                }
            }
        }
        return List.copyOf(all);
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
     * Starts every auto-startup container, or every container once the context has been refreshed and the registry
     * has not been stopped since (see {@link #setAlwaysStartAfterRefresh}). When one cannot start (its topic is missing, say), those
     * started before it are stopped again before the failure is thrown: the context is failing, and
     * they would otherwise still poll while kafko closes under them.
     */
    @Override
    public void start() {
        // running first: a container registered while this loop runs (from a listener, another thread) is started
        // by its registration, which sees the registry running; one in the loop's copy too is started once
        running = true;
        for (MessageListenerContainer container : getListenerContainers()) {
            if (startsAtStart(container)) {
                try {
                    startRegistered(container); // not one unregistered since the list was taken
                } catch (Throwable e) { // also a checked exception a Kotlin container throws
                    try {
                        stop();
                    } catch (Throwable suppressed) {
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
     * application), that listener's container is stopped on it, so the member is not waited for. One whose stop
     * throws keeps neither the others from stopping nor this from waiting for them: the first failure is thrown once
     * all stopped, the later ones suppressed in it.
     */
    @Override
    public void stop() {
        running = false;
        // a start after this one (the context's start or restart after its stop or pause, as the test context cache
        // makes) weighs autoStartup again, as the context's own start does: held-back containers stay held back
        contextRefreshed = false;
        Thread caller = Thread.currentThread();
        List<CompletableFuture<Void>> stopping = new ArrayList<>();
        List<MessageListenerContainer> here = new ArrayList<>();
        for (MessageListenerContainer container : toStop()) {
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
        // the others stop meanwhile: their shutdown timeouts run together, not one after the other; one that cannot
        // stop neither spares the others nor ends the wait for them, as the context closes kafko once this returns
        Throwable failure = null;
        for (MessageListenerContainer container : here) {
            try {
                if (container instanceof ConcurrentMessageListenerContainer c && c.isPollingThread(caller)) {
                    c.stopForShutdown();
                } else {
                    container.stop();
                }
            } catch (Throwable e) {
                failure = keep(failure, e);
            }
        }
        try {
            CompletableFuture.allOf(stopping.toArray(CompletableFuture[]::new)).join();
        } catch (CompletionException e) {
            failure = keep(failure, e);
        }
        if (failure != null) {
            throw KafkoListenerEndpointRegistry.<RuntimeException>rethrow(failure);
        }
    }

    /** The first failure, with the later ones suppressed in it. */
    private static Throwable keep(@Nullable Throwable first, Throwable next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /** Throws {@code failure} as it is, also a checked exception a Kotlin container threw. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E rethrow(Throwable failure) throws E {
        throw (E) failure;
    }

    /**
     * The registered containers, and those still stopping whose id a second unregistration freed: the context closes
     * kafko only once they stopped too.
     */
    private List<MessageListenerContainer> toStop() {
        synchronized (containers) {
            List<MessageListenerContainer> all = new ArrayList<>(containers.values());
            unregistering.forEach((container, id) -> {
                if (containers.get(id) != container) {
                    all.add(container);
                }
            });
            return all;
        }
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
