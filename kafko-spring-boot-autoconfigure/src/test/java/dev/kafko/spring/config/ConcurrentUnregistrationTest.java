package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.UnregisterDuringStartOfOwnContainersTest.OwnContainer;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Two unregistrations of one container at once, and what a container's groups hold while it is unregistered: as
 * spring-kafka's, one call removes the container and the other returns {@code null} at once, without waiting for the
 * first (whose stop may wait for it); the container is stopped once, its id is free once either call returned, and a
 * failed unregistration leaves the registry and the groups as they were, unless the id freed was taken meanwhile.
 */
class ConcurrentUnregistrationTest {

    private static final long WAIT_SECONDS = 30;

    /** Its first stop is held until released, and fails when {@link #failFirstStop} is set; counts its stops. */
    static final class HeldStop extends OwnContainer {
        final CountDownLatch stopEntered = new CountDownLatch(1);
        final CountDownLatch releaseStop = new CountDownLatch(1);
        final AtomicInteger stops = new AtomicInteger();
        final boolean failFirstStop;

        HeldStop(String id, boolean failFirstStop) {
            super(id, false);
            this.failFirstStop = failFirstStop;
        }

        @Override
        public void stop() {
            if (stops.incrementAndGet() == 1) {
                stopEntered.countDown();
                await(releaseStop);
                if (failFirstStop) {
                    throw new IllegalStateException(id + " cannot stop");
                }
            }
            super.stop();
        }
    }

    /** An unregistration made on a thread of its own, and what it returned ({@code "null"} for null) or threw. */
    private static class Call {
        final AtomicReference<Object> outcome = new AtomicReference<>();
        final Thread thread;

        Call(String name, KafkoListenerEndpointRegistry registry, String id) {
            thread = new Thread(() -> {
                try {
                    MessageListenerContainer removed = registry.unregisterListenerContainer(id);
                    outcome.set(removed == null ? "null" : removed);
                } catch (RuntimeException e) {
                    outcome.set(e);
                }
                afterCall();
            }, name);
            thread.setDaemon(true); // one that waits for good must not keep the test JVM
        }

        /** Runs on its thread once the call returned or threw. */
        void afterCall() {
        }

        void start() {
            thread.start();
        }

        /** Waits until the call waits for something (a lock, a latch) or has returned. */
        void awaitParkedOrDone() {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (thread.getState() == Thread.State.NEW || thread.getState() == Thread.State.RUNNABLE) {
                assertThat(System.nanoTime()).as(thread.getName() + " neither waits nor returns").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }

        Object finish() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            assertThat(thread.isAlive()).as(thread.getName() + " still runs").isFalse();
            return outcome.get();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void twoUnregistrationsAtOnceStopTheContainerOnceAndOneOfThemReturnsIt() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop tenant = new HeldStop("tenant", false);
        registry.registerListenerContainer(tenant, false);
        ContainerGroup group = registry.addToGroup("tenants", tenant);
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        Call second = new Call("second", registry, "tenant");
        first.start();
        assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.getListenerContainer("tenant")).as("registered while one call stops it").isSameAs(tenant);
        second.start();
        assertThat(second.finish()).as("spring-kafka's: the container removed once, the other call gets null at once")
                .isEqualTo("null");
        assertThat(registry.getListenerContainer("tenant")).as("its id free once the second returned").isNull();
        assertThat(first.thread.isAlive()).as("the first still stops it").isTrue();
        tenant.releaseStop.countDown();

        assertThat(first.finish()).isSameAs(tenant);
        assertThat(tenant.stops).as("stopped by each call").hasValue(1);
        assertThat(tenant.isRunning()).isFalse();
        assertThat(registry.getListenerContainer("tenant")).isNull();
        assertThat(group.contains(tenant)).isFalse();
        registry.registerListenerContainer(new OwnContainer("tenant", false), false); // its id is free
    }

    @Test
    void aFailedUnregistrationWhoseIdAnotherCallFreedPutsItBackInItsPlaceInTheRegistryAndItsGroup()
            throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer before = new OwnContainer("before", false);
        HeldStop tenant = new HeldStop("tenant", true);
        OwnContainer after = new OwnContainer("after", false);
        for (OwnContainer container : new OwnContainer[] {before, tenant, after}) {
            registry.registerListenerContainer(container, false);
            registry.addToGroup("tenants", container);
        }
        ContainerGroup group = registry.getContainerGroup("tenants");
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        Call second = new Call("second", registry, "tenant");
        first.start();
        assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        second.start();
        assertThat(second.finish()).isEqualTo("null");
        tenant.releaseStop.countDown();

        assertThat(first.finish()).isInstanceOf(IllegalStateException.class)
                .hasFieldOrPropertyWithValue("message", "tenant cannot stop");
        assertThat(registry.getListenerContainer("tenant")).as("its stop failed: registered as before").isSameAs(tenant);
        assertThat(registry.getListenerContainerIds()).containsExactlyInAnyOrder("before", "tenant", "after");
        assertThat(registry.getListenerContainers()).as("in its place").containsExactly(before, tenant, after);
        assertThat(group.getContainers()).containsExactly(before, tenant, after);
        assertThat(registry.unregisterListenerContainer("tenant")).as("a later call removes it").isSameAs(tenant);
        assertThat(group.contains(tenant)).isFalse();
    }

    @Test
    void aFailedUnregistrationLeavesTheIdToTheContainerRegisteredUnderItOnceAnotherCallFreedIt()
            throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop tenant = new HeldStop("tenant", true);
        registry.registerListenerContainer(tenant, false);
        ContainerGroup group = registry.addToGroup("tenants", tenant);
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        first.start();
        assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.unregisterListenerContainer("tenant")).isNull();
        OwnContainer replacement = new OwnContainer("tenant", false);
        registry.registerListenerContainer(replacement, false); // as the free id allows
        registry.addToGroup("tenants", replacement);
        tenant.releaseStop.countDown();

        assertThat(first.finish()).isInstanceOf(IllegalStateException.class);
        assertThat(registry.getListenerContainer("tenant")).as("the id's new holder keeps it").isSameAs(replacement);
        assertThat(group.getContainers()).as("not put back in its group, registered nowhere: the group's start would"
                + " run it").containsExactly(replacement);
    }

    @Test
    void aFailedUnregistrationWhoseIdAnotherContainerTookLeavesNothingOfItBeingUnregistered()
            throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop tenant = new HeldStop("tenant", true);
        registry.registerListenerContainer(tenant, false);
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        first.start();
        assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.unregisterListenerContainer("tenant")).isNull();
        OwnContainer replacement = new OwnContainer("tenant", false);
        registry.registerListenerContainer(replacement, false);
        tenant.releaseStop.countDown();
        assertThat(first.finish()).isInstanceOf(IllegalStateException.class);

        registry.stop(); // the context closes
        assertThat(tenant.stops).as("still held as being unregistered, which the registry's stop stops too")
                .hasValue(1);
        assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(replacement);
        registry.registerListenerContainer(tenant, false); // not refused as still being unregistered
        assertThat(registry.getListenerContainer("tenant")).isSameAs(tenant);
    }

    @Test
    void anUnregistrationWhoseStopWaitsForAnotherUnregistrationOfTheSameIdDoesNotHang() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        AtomicReference<Call> inner = new AtomicReference<>();
        AtomicReference<Object> registeredAgain = new AtomicReference<>();
        OwnContainer replacement = new OwnContainer("tenant", false);
        AtomicInteger stops = new AtomicInteger();
        OwnContainer tenant = new OwnContainer("tenant", false) {
            @Override
            public void stop() {
                stops.incrementAndGet();
                // an application's container whose stop joins a thread of its own that unregisters it too, then
                // registers another under its id
                Call call = new Call("its-own", registry, "tenant") {
                    @Override
                    void afterCall() {
                        try {
                            registry.registerListenerContainer(replacement, false);
                            registeredAgain.set(replacement);
                        } catch (RuntimeException e) {
                            registeredAgain.set(e);
                        }
                    }
                };
                inner.set(call);
                call.start();
                try {
                    call.thread.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.stop();
            }
        };
        registry.registerListenerContainer(tenant, false);
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        first.start();
        assertThat(first.finish()).isSameAs(tenant);
        assertThat(inner.get().thread.isAlive()).as("waits for the unregistration whose stop waits for it").isFalse();
        assertThat(inner.get().outcome.get()).isEqualTo("null");
        assertThat(registeredAgain.get()).as("its id free once that call returned").isSameAs(replacement);
        assertThat(registry.getListenerContainer("tenant")).isSameAs(replacement);
        assertThat(stops).hasValue(1);
        assertThat(tenant.isRunning()).isFalse();
    }

    @Test
    void theContainerOfAnUnregistrationWhoseIdAnotherCallFreedCannotBeRegisteredAgainBeforeItsStopReturned()
            throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop tenant = new HeldStop("tenant", false);
        registry.registerListenerContainer(tenant, false);
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        first.start();
        try {
            assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(registry.unregisterListenerContainer("tenant")).isNull();
            assertThatThrownBy(() -> registry.registerListenerContainer(tenant, true))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'tenant' is still being unregistered");
        } finally {
            tenant.releaseStop.countDown();
        }
        assertThat(first.finish()).isSameAs(tenant);
        assertThat(registry.getListenerContainer("tenant")).isNull();
        registry.registerListenerContainer(tenant, false); // once its unregistration returned
        assertThat(registry.getListenerContainer("tenant")).isSameAs(tenant);
    }

    @Test
    void aStopOfTheRegistryStopsAContainerWhoseIdASecondUnregistrationFreed() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop tenant = new HeldStop("tenant", false);
        registry.registerListenerContainer(tenant, false);
        registry.start();
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        first.start();
        try {
            assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThat(registry.unregisterListenerContainer("tenant")).isNull();
            registry.stop(); // the context closes
            assertThat(tenant.stops).as("stopped by the registry's stop too, which the context closes kafko after")
                    .hasValue(2);
            assertThat(tenant.isRunning()).isFalse();
        } finally {
            tenant.releaseStop.countDown();
        }
        assertThat(first.finish()).isSameAs(tenant);
    }

    @Test
    void aCallThatFoundTheContainerJustBeforeAnotherRemovedItReturnsNull() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        CountDownLatch looked = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        OwnContainer tenant = new OwnContainer("tenant", false) {
            @Override
            public String getListenerId() {
                if (Thread.currentThread().getName().equals("late")) {
                    looked.countDown(); // found under the id: held between that look-up and its removal
                    await(goOn);
                }
                return super.getListenerId();
            }
        };
        registry.registerListenerContainer(tenant, false);
        tenant.start();

        Call late = new Call("late", registry, "tenant");
        late.start();
        assertThat(looked.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(tenant);
        goOn.countDown();

        assertThat(late.finish()).as("removed once: one call returns it").isEqualTo("null");
    }

    @Test
    void aContainerWhoseStopUnregistersItAgainIsRemovedOnce() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        AtomicReference<MessageListenerContainer> fromItsStop = new AtomicReference<>();
        OwnContainer tenant = new OwnContainer("tenant", false) {
            @Override
            public void stop() {
                // on the thread of the unregistration that stops it, which must not wait for itself
                fromItsStop.set(registry.unregisterListenerContainer("tenant"));
                super.stop();
            }
        };
        registry.registerListenerContainer(tenant, false);
        tenant.start();

        assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(tenant);
        assertThat(fromItsStop.get()).isNull();
        assertThat(registry.getListenerContainer("tenant")).isNull();
    }

    @Test
    void aListenerThatUnregistersItsOwnContainerWhileAnotherThreadDoesIsNotMadeToWaitForThatOne() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                // longer than the test waits: a listener waiting for the unregistration that waits for it would hold
                // both up to the shutdown timeout
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms",
                        "kafko.listener.shutdown-timeout=120s")
                .run(context -> {
                    KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
                    CountDownLatch inListener = new CountDownLatch(1);
                    CountDownLatch unregisterToo = new CountDownLatch(1);
                    AtomicReference<Object> fromListener = new AtomicReference<>();
                    ConcurrentMessageListenerContainer tenant = context.getBean(KafkoListenerContainerFactory.class)
                            .createListenerContainer("tenant", "tenant", List.of("tenant-orders"), (records, ack) -> {
                                inListener.countDown();
                                await(unregisterToo);
                                MessageListenerContainer removed = registry.unregisterListenerContainer("tenant");
                                fromListener.set(removed == null ? "null" : removed);
                            });
                    registry.registerListenerContainer(tenant, true);
                    RuntimeListenersTest.template(context).send("tenant-orders", "k", "v").join();
                    assertThat(inListener.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

                    Call outside = new Call("outside", registry, "tenant");
                    outside.start();
                    outside.awaitParkedOrDone(); // its stop waits for the member, whose listener runs
                    unregisterToo.countDown();

                    assertThat(outside.finish()).as("waited for the listener, which waited for it").isSameAs(tenant);
                    assertThat(fromListener.get()).isEqualTo("null");
                    assertThat(tenant.isRunning()).isFalse();
                    assertThat(registry.getListenerContainer("tenant")).isNull();
                });
    }

    @Test
    void aContainerWhoseUnregistrationFailsKeepsItsPlaceInItsGroup() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer first = new OwnContainer("first", false);
        HeldStop tenant = new HeldStop("tenant", true);
        OwnContainer last = new OwnContainer("last", false);
        OwnContainer later = new OwnContainer("later", false);
        for (OwnContainer container : new OwnContainer[] {first, tenant, last, later}) {
            registry.registerListenerContainer(container, false);
        }
        ContainerGroup group = registry.addToGroup("tenants", first);
        registry.addToGroup("tenants", tenant);
        registry.addToGroup("tenants", last);

        Call unregistering = new Call("unregister", registry, "tenant");
        unregistering.start();
        assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        registry.addToGroup("tenants", later); // joins while the tenant's stop runs
        tenant.releaseStop.countDown();

        assertThat(unregistering.finish()).isInstanceOf(IllegalStateException.class);
        assertThat(registry.getListenerContainer("tenant")).isSameAs(tenant);
        assertThat(group.getListenerIds()).as("the registry as it was: the failed one where it stood")
                .containsExactly("first", "tenant", "last", "later");
    }

    @Test
    void aContainerBeingUnregisteredCannotJoinAGroup() throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop tenant = new HeldStop("tenant", false);
        registry.registerListenerContainer(tenant, false);

        Call unregistering = new Call("unregister", registry, "tenant");
        unregistering.start();
        try {
            assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> registry.addToGroup("tenants", tenant))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'tenant' is not registered");
        } finally {
            tenant.releaseStop.countDown();
        }

        assertThat(unregistering.finish()).isSameAs(tenant);
        ContainerGroup group = registry.getContainerGroup("tenants");
        assertThat(group == null || !group.contains(tenant)).as("left in a group once unregistered, for the"
                + " group's start to run it registered nowhere").isTrue();
    }

    /**
     * An application's container written in Kotlin, say (no checked exceptions there), whose first stop throws an
     * {@link IOException}, or, when {@code failStart}, whose start does instead.
     */
    static class ThrowsChecked extends OwnContainer {
        final AtomicInteger stops = new AtomicInteger();
        final boolean failStart;

        ThrowsChecked(String id, boolean failStart) {
            super(id, false);
            this.failStart = failStart;
        }

        @Override
        public void start() {
            if (failStart) {
                sneakyThrow(new IOException(id + " cannot start"));
            }
            super.start();
        }

        @Override
        public void stop() {
            if (stops.incrementAndGet() == 1 && !failStart) {
                sneakyThrow(new IOException(id + " cannot stop"));
            }
            super.stop();
        }
    }

    @SuppressWarnings("unchecked")
    static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
        throw (E) t;
    }

    @Test
    void anUnregistrationWhoseStopThrowsACheckedExceptionLeavesItRegisteredInItsGroupForALaterCall() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        ThrowsChecked tenant = new ThrowsChecked("tenant", false);
        registry.registerListenerContainer(tenant, false);
        ContainerGroup group = registry.addToGroup("tenants", tenant);
        tenant.start();

        assertThatThrownBy(() -> registry.unregisterListenerContainer("tenant")).isInstanceOf(IOException.class)
                .hasMessage("tenant cannot stop");

        assertThat(registry.getListenerContainer("tenant")).isSameAs(tenant);
        assertThat(group.getContainers()).as("back in its group").containsExactly(tenant);
        assertThat(registry.unregisterListenerContainer("tenant")).as("a later call removes it, not taken for a"
                + " second call of an unregistration still under way (which frees the id and returns null)")
                .isSameAs(tenant);
        assertThat(tenant.isRunning()).isFalse();
        registry.registerListenerContainer(tenant, false); // not refused as still being unregistered
    }

    @Test
    void aRegistrationWhoseStartThrowsACheckedExceptionLeavesTheContainerUnregistered() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        registry.start();
        ThrowsChecked tenant = new ThrowsChecked("tenant", true);

        assertThatThrownBy(() -> registry.registerListenerContainer(tenant, true,
                c -> registry.addToGroup("tenants", c))).isInstanceOf(IOException.class).hasMessage("tenant cannot start");

        assertThat(registry.getListenerContainer("tenant")).as("registered, never started: the id taken").isNull();
        assertThat(registry.getContainerGroup("tenants").getContainers()).isEmpty();
    }
}
