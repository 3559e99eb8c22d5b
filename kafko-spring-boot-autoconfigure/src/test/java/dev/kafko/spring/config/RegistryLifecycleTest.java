package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.ConcurrentUnregistrationTest.HeldStop;
import dev.kafko.spring.config.ConcurrentUnregistrationTest.ThrowsChecked;
import dev.kafko.spring.config.UnregisterDuringStartOfOwnContainersTest.OwnContainer;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;

/** The registry's own lifecycle: what its start, stop and destroy do to the containers it holds. */
class RegistryLifecycleTest {

    private static final long WAIT_SECONDS = 10;

    /** Its start fails (its topic is missing, say). */
    static final class CannotStart extends OwnContainer {
        CannotStart(String id) {
            super(id, false);
        }

        @Override
        public void start() {
            throw new IllegalStateException(id + " cannot start");
        }
    }

    /** Its stop fails, leaving it running. */
    static final class CannotStop extends OwnContainer {
        CannotStop(String id) {
            super(id, false);
        }

        @Override
        public void stop() {
            throw new IllegalStateException(id + " cannot stop");
        }
    }

    @Test
    void aStartThatFailsStopsTheContainersItStartedBeforeThrowing() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer first = new OwnContainer("first", false);
        registry.registerListenerContainer(first, false);
        registry.registerListenerContainer(new CannotStart("second"), false);

        assertThatThrownBy(registry::start).hasMessage("second cannot start");

        assertThat(first.isRunning()).as("started before the failure, left polling").isFalse();
        assertThat(registry.isRunning()).isFalse();
    }

    @Test
    void aStartThatFailsWithACheckedExceptionStopsTheContainersItStartedBeforeThrowing() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer first = new OwnContainer("first", false);
        registry.registerListenerContainer(first, false);
        registry.registerListenerContainer(new ThrowsChecked("second", true), false);

        assertThatThrownBy(registry::start).isInstanceOf(IOException.class).hasMessage("second cannot start");

        assertThat(first.isRunning()).as("started before the failure, left polling").isFalse();
        assertThat(registry.isRunning()).isFalse();
    }

    @Test
    void aStartThatFailsKeepsTheFailureOfTheStopsThatFollowAsSuppressed() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        registry.registerListenerContainer(new CannotStop("first"), false);
        registry.registerListenerContainer(new CannotStart("second"), false);

        assertThatThrownBy(registry::start).hasMessage("second cannot start")
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s).hasRootCauseMessage("first cannot stop")));
    }

    /** Its stop waits until every container of {@link #together} is stopping, as slow stops would overlap. */
    static final class StopsTogether extends OwnContainer {
        final CyclicBarrier together;
        final List<Throwable> failures;

        StopsTogether(String id, CyclicBarrier together, List<Throwable> failures) {
            super(id, false);
            this.together = together;
            this.failures = failures;
        }

        @Override
        public void stop() {
            try {
                together.await(WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
                failures.add(e);
            }
            super.stop();
        }
    }

    @Test
    void runningContainersAreStoppedAtOnceNotOneAfterTheOther() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        CyclicBarrier together = new CyclicBarrier(2);
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        StopsTogether first = new StopsTogether("first", together, failures);
        StopsTogether second = new StopsTogether("second", together, failures);
        registry.registerListenerContainer(first, false);
        registry.registerListenerContainer(second, false);
        registry.start();

        registry.stop();

        assertThat(failures).as("a stop that waited for the other's to begin: their timeouts would add up").isEmpty();
        assertThat(first.isRunning()).isFalse();
        assertThat(second.isRunning()).isFalse();
    }

    @Test
    void aContainerWhoseStartRunsAsTheRegistryStopsIsNotLeftRunning() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        registry.start();
        OwnContainer tenant = new OwnContainer("tenant", true); // its start held
        Thread registering = new Thread(() -> registry.registerListenerContainer(tenant, true), "register");
        registering.setDaemon(true);
        registering.start();
        assertThat(tenant.entered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

        registry.stop(); // the context closes while the registration starts it
        tenant.release.countDown();
        registering.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertThat(registering.isAlive()).isFalse();
        assertThat(tenant.isRunning()).as("started after the registry's stop stopped it: running once the context"
                + " closed, stopped by nothing").isFalse();
    }

    @Test
    void aKafkoContainerRegisteredAsTheRegistryStopsIsNotStartedAfterIt() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms")
                .run(context -> {
                    KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
                    ConcurrentMessageListenerContainer tenant = context.getBean(KafkoListenerContainerFactory.class)
                            .createListenerContainer("tenant", "tenant", List.of("tenant-orders"), (records, ack) -> {
                            });
                    Thread registering = new Thread(() -> registry.registerListenerContainer(tenant, true),
                            "register");
                    registering.setDaemon(true);
                    synchronized (tenant) { // the registration's start waits for it, the registry seen running
                        registering.start();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                        while (registering.getState() != Thread.State.BLOCKED) {
                            assertThat(System.nanoTime()).as("the registration waits").isLessThan(deadline);
                            Thread.onSpinWait();
                        }
                        registry.stop(); // the context closes meanwhile
                    }
                    registering.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

                    assertThat(registering.isAlive()).isFalse();
                    assertThat(tenant.isRunning()).as("started after the registry stopped: polling while kafko"
                            + " closes, keeping the JVM alive").isFalse();
                });
    }

    @Test
    void aStopThatOneContainerCannotMakeStillWaitsForTheOthersBeforeThrowing() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop slow = new HeldStop("slow", false); // running: stopped on a thread of its own, its stop held
        registry.registerListenerContainer(slow, false);
        registry.registerListenerContainer(new CannotStop("broken"), false); // not running: stopped on the caller's
        slow.start();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread stopping = new Thread(() -> {
            try {
                registry.stop();
            } catch (RuntimeException e) {
                thrown.set(e);
            }
        }, "stop");
        stopping.setDaemon(true);
        stopping.start();
        assertThat(slow.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (stopping.isAlive() && Arrays.stream(stopping.getStackTrace())
                .noneMatch(f -> f.getClassName().equals("java.util.concurrent.CompletableFuture")
                        && f.getMethodName().equals("join"))) {
            assertThat(System.nanoTime()).as("neither waits for the others nor returns").isLessThan(deadline);
            Thread.onSpinWait();
        }

        assertThat(stopping.isAlive()).as("returned while another container still stops: the context closes kafko"
                + " under it").isTrue();
        slow.releaseStop.countDown();
        stopping.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(stopping.isAlive()).isFalse();
        assertThat(slow.isRunning()).isFalse();
        assertThat(thrown.get()).hasMessage("broken cannot stop");
    }

    @Test
    void aStopOfTheRegistryCallsNoContainerWhileHoldingTheRegistry() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        AtomicReference<Thread> stopping = new AtomicReference<>();
        CountDownLatch stopEntered = new CountDownLatch(1);
        CountDownLatch registryStopping = new CountDownLatch(1);
        // an application's container whose methods are all synchronized, and whose stop looks the registry up
        OwnContainer tenant = new OwnContainer("tenant", false) {
            boolean stoppedOnce;

            @Override
            public synchronized String getListenerId() {
                return id;
            }

            @Override
            public synchronized void stop() {
                if (!stoppedOnce) {
                    stoppedOnce = true;
                    stopEntered.countDown();
                    try {
                        registryStopping.await(WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    // the registry's stop either waits for this monitor or for the containers it stops
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                    while (stopping.get().getState() != Thread.State.BLOCKED
                            && stopping.get().getState() != Thread.State.WAITING && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    registry.getListenerContainers();
                }
                super.stop();
            }
        };
        registry.registerListenerContainer(tenant, false);
        tenant.start();
        Thread unregistering = new Thread(() -> registry.unregisterListenerContainer("tenant"), "unregister");
        unregistering.setDaemon(true); // deadlocked for good without the fix
        unregistering.start();
        assertThat(stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        Thread registryStop = new Thread(registry::stop, "stop");
        registryStop.setDaemon(true);
        stopping.set(registryStop);
        registryStop.start();
        registryStopping.countDown();

        unregistering.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        registryStop.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertThat(unregistering.isAlive() || registryStop.isAlive()).as("deadlocked: the registry's stop holds the"
                + " registry waiting for the container's monitor, whose stop waits for the registry").isFalse();
        assertThat(registry.getListenerContainer("tenant")).isNull();
        assertThat(tenant.isRunning()).isFalse();
    }

    @Test
    void destroyStopsTheContainersThatStillRun() throws Exception {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer own = new OwnContainer("own", false);
        registry.registerListenerContainer(own, false);
        registry.start();

        registry.destroy(); // a context whose refresh failed after the registry started destroys it, never stops it

        assertThat(own.isRunning()).isFalse();
        assertThat(registry.isRunning()).isFalse();
    }

    /** "running" or "stopped": the listener's container as the lifecycle bean of phase 0 starts and stops. */
    static final List<String> SEEN_FROM_PHASE_0 = new CopyOnWriteArrayList<>();

    static class Listener {
        @KafkoListener(id = "phased", topics = "phased")
        void on(String value) {
        }
    }

    /** A lifecycle bean of phase 0 (a connection pool, a scheduler): it starts before the listeners, stops after. */
    static class PhaseZero implements SmartLifecycle {
        private final ObjectProvider<KafkoListenerEndpointRegistry> registry;
        private volatile boolean running;

        PhaseZero(ObjectProvider<KafkoListenerEndpointRegistry> registry) {
            this.registry = registry;
        }

        private void see(String when) {
            boolean listening = registry.getObject().getListenerContainer("phased").isRunning();
            SEEN_FROM_PHASE_0.add(when + ":" + (listening ? "running" : "stopped"));
        }

        @Override
        public void start() {
            see("start");
            running = true;
        }

        @Override
        public void stop() {
            see("stop");
            running = false;
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return 0;
        }
    }

    @Test
    void listenersStartAfterAndStopBeforeTheLifecycleBeansOfEarlierPhases() {
        SEEN_FROM_PHASE_0.clear();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true")
                .withBean(Listener.class)
                .withBean(PhaseZero.class)
                .run(context -> assertThat(context).hasNotFailed());

        assertThat(SEEN_FROM_PHASE_0).containsExactly("start:stopped", "stop:stopped");
    }
}
