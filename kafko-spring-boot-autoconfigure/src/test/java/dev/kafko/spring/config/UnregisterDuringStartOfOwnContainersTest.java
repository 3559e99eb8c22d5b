package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An application's own {@link MessageListenerContainer}s (not kafko's) under the registry's guard against starting a
 * container that was unregistered meanwhile (B249): the guard holds for them too, through a registry start and a
 * {@link ContainerGroup} start, and never holds their monitor while calling into them.
 */
class UnregisterDuringStartOfOwnContainersTest {

    private static final long WAIT_SECONDS = 30;

    /** A container of the application's own; its start can be held until released, its lifecycle is not synchronized. */
    static class OwnContainer implements MessageListenerContainer {
        final String id;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release;
        volatile boolean running;

        OwnContainer(String id, boolean holdsItsStart) {
            this.id = id;
            this.release = new CountDownLatch(holdsItsStart ? 1 : 0);
        }

        @Override
        public String getListenerId() {
            return id;
        }

        @Override
        public String getGroupId() {
            return id;
        }

        @Override
        public List<String> getTopics() {
            return List.of();
        }

        @Override
        public void start() {
            entered.countDown();
            try {
                release.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            running = true;
        }

        @Override
        public void stop() {
            running = false;
        }

        @Override
        public void pause() {
        }

        @Override
        public void resume() {
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public boolean isPauseRequested() {
            return false;
        }

        @Override
        public boolean isPaused() {
            return false;
        }

        @Override
        public boolean isAutoStartup() {
            return true;
        }

        @Override
        public boolean isInExpectedState() {
            return true;
        }
    }

    /** Equal to any container of its id, as a value class (a record, a generated equals) is. */
    static class EqualById extends OwnContainer {
        EqualById(String id) {
            this(id, false);
        }

        EqualById(String id, boolean holdsItsStart) {
            super(id, holdsItsStart);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof EqualById e && e.id.equals(id);
        }

        @Override
        public int hashCode() {
            return Objects.hash(id);
        }
    }

    /** Its start is held until released, then fails (its topic is missing, say). */
    static final class FailsToStart extends EqualById {
        FailsToStart(String id) {
            super(id, true);
        }

        @Override
        public void start() {
            entered.countDown();
            try {
                release.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException(id + " cannot start");
        }
    }

    /** Its start runs on a thread of its own, which takes its monitor, and returns once that thread did. */
    static final class StartsOnItsOwnThread extends OwnContainer {
        StartsOnItsOwnThread(String id) {
            super(id, false);
        }

        @Override
        public void start() {
            Thread worker = new Thread(this::markRunning, id + "-worker");
            worker.setDaemon(true);
            worker.start();
            try {
                worker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private synchronized void markRunning() {
            running = true;
        }
    }

    private static Thread startOn(String name, Runnable start) {
        Thread thread = new Thread(start, name);
        thread.setDaemon(true); // a registry start that hangs must not keep the test JVM
        thread.start();
        return thread;
    }

    /**
     * Runs {@code start} on a thread of its own and {@code meanwhile} once that start is held in {@code held}'s start;
     * then lets {@code held}'s start go on and checks that the thread ended.
     */
    private static void whileHeldInItsStart(OwnContainer held, String name, Runnable start, Runnable meanwhile)
            throws InterruptedException {
        Thread starting = startOn(name, start);
        try {
            assertThat(held.entered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            meanwhile.run();
        } finally {
            held.release.countDown();
            starting.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        }
        assertThat(starting.isAlive()).as(name + " ended").isFalse();
    }

    @Test
    void aContainerWhoseStartWaitsForItsOwnMonitorStartsWithTheRegistry() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        StartsOnItsOwnThread own = new StartsOnItsOwnThread("own");
        registry.registerListenerContainer(own, false);

        Thread starting = startOn("registry-start", registry::start);
        starting.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertThat(starting.isAlive()).as("the registry's start waits for good: it holds the container's monitor,"
                + " which the container's own start waits for").isFalse();
        assertThat(own.isRunning()).isTrue();
    }

    @Test
    void aContainerUnregisteredWhileTheRegistryStartsItIsStoppedAfterThatStart() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer own = new OwnContainer("own", true);
        registry.registerListenerContainer(own, false);

        whileHeldInItsStart(own, "registry-start", registry::start, () -> {
            // its stop, not serialized with its start, comes while the registry's start is in it
            assertThat(registry.unregisterListenerContainer("own")).isSameAs(own);
        });

        assertThat(registry.getListenerContainer("own")).isNull();
        assertThat(own.isRunning()).as("left running by the registry's start, registered nowhere").isFalse();
    }

    @Test
    void anEqualContainerRegisteredUnderTheSameIdLetsNoEarlierStartRunTheOneUnregistered()
            throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer slow = new OwnContainer("slow", true);
        EqualById first = new EqualById("tenant");
        registry.registerListenerContainer(slow, false);
        registry.registerListenerContainer(first, false);

        EqualById second = new EqualById("tenant");
        whileHeldInItsStart(slow, "registry-start", registry::start, () -> {
            // the registry's start listed the first tenant container and waits in the one before it
            assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(first);
            registry.registerListenerContainer(second, false); // equal to the first, not the same
        });

        assertThat(registry.getListenerContainer("tenant")).isSameAs(second);
        assertThat(first.isRunning()).as("the unregistered container, started by the registry's start").isFalse();
    }

    @Test
    void aContainerWhoseStartWaitsForItsOwnMonitorStartsWithItsGroup() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        StartsOnItsOwnThread own = new StartsOnItsOwnThread("own");
        registry.registerListenerContainer(own, false);
        ContainerGroup group = registry.addToGroup("tenants", own);

        Thread starting = startOn("group-start", group::start);
        starting.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertThat(starting.isAlive()).as("the group's start waits for good: it holds the container's monitor,"
                + " which the container's own start waits for").isFalse();
        assertThat(own.isRunning()).isTrue();
        assertThat(group.isRunning()).isTrue();
    }

    @Test
    void aContainerUnregisteredWhileItsGroupStartsItIsStoppedAfterThatStart() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer own = new OwnContainer("own", true);
        registry.registerListenerContainer(own, false);
        ContainerGroup group = registry.addToGroup("tenants", own);

        whileHeldInItsStart(own, "group-start", group::start, () -> {
            // its stop, not serialized with its start, comes while the group's start is in it
            assertThat(registry.unregisterListenerContainer("own")).isSameAs(own);
        });

        assertThat(group.contains(own)).isFalse();
        assertThat(own.isRunning()).as("left running by its group's start, registered nowhere").isFalse();
    }

    @Test
    void anEqualContainerJoiningTheGroupLetsNoEarlierGroupStartRunTheOneUnregistered() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer slow = new OwnContainer("slow", true);
        EqualById first = new EqualById("tenant");
        registry.registerListenerContainer(slow, false);
        registry.registerListenerContainer(first, false);
        ContainerGroup group = registry.addToGroup("tenants", slow);
        registry.addToGroup("tenants", first);

        EqualById second = new EqualById("tenant");
        whileHeldInItsStart(slow, "group-start", group::start, () -> {
            // the group's start listed the first tenant container and waits in the one before it
            assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(first);
            registry.registerListenerContainer(second, false); // equal to the first, not the same
            registry.addToGroup("tenants", second);
        });

        assertThat(first.isRunning()).as("the unregistered container, started by its group's start").isFalse();
        assertThat(group.contains(first)).as("the group holds an equal container, not this one").isFalse();
        assertThat(group.getContainers()).containsExactly(slow, second);
        assertThat(second.isRunning()).as("joined after the group's start listed its containers").isFalse();
    }

    @Test
    void anEqualContainerRegisteredWhileTheFirstFailsToStartStaysRegistered() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        registry.start(); // running: a registration starts the container
        FailsToStart first = new FailsToStart("tenant");
        EqualById second = new EqualById("tenant");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        whileHeldInItsStart(first, "register", () -> {
            try {
                registry.registerListenerContainer(first, true);
            } catch (IllegalStateException e) {
                failure.set(e);
            }
        }, () -> {
            // the first is registered while its start runs: it is unregistered, and an equal one takes its id
            assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(first);
            registry.registerListenerContainer(second, false);
        });

        assertThat(failure.get()).hasMessage("tenant cannot start");
        assertThat(registry.getListenerContainer("tenant")).as("removed by the first's failed registration")
                .isSameAs(second);
        registry.stop();
    }

    @Test
    void aContainerUnregisteredWhileItsGroupStartsIsNotStartedByTheGroup() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer slow = new OwnContainer("slow", true);
        OwnContainer tenant = new OwnContainer("tenant", false);
        registry.registerListenerContainer(slow, false);
        registry.registerListenerContainer(tenant, false);
        ContainerGroup group = registry.addToGroup("tenants", slow);
        registry.addToGroup("tenants", tenant);

        whileHeldInItsStart(slow, "group-start", group::start, () -> {
            // the group's start listed the tenant's container and waits in the one before it
            assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(tenant);
        });

        assertThat(group.contains(tenant)).isFalse();
        assertThat(slow.isRunning()).isTrue();
        assertThat(tenant.isRunning()).as("started by its group's start after it was unregistered").isFalse();
    }
}
