package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.UnregisterDuringStartOfOwnContainersTest.OwnContainer;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
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
 * spring-kafka's, one call removes the container and the other returns {@code null}; the container is stopped once,
 * its id is free once either call returned, and a failed unregistration leaves the registry and the groups as they
 * were.
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
    private static final class Call {
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
            }, name);
            thread.setDaemon(true); // one that waits for good must not keep the test JVM
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
        second.start();
        second.awaitParkedOrDone(); // in the first's stop still: the second came while it ran
        assertThat(second.thread.isAlive()).as("returned while the container still held its id").isTrue();
        assertThat(registry.getListenerContainer("tenant")).isSameAs(tenant);
        tenant.releaseStop.countDown();

        assertThat(first.finish()).isSameAs(tenant);
        assertThat(second.finish()).as("spring-kafka's: the container removed once, the other call gets null")
                .isEqualTo("null");
        assertThat(tenant.stops).as("stopped by each call").hasValue(1);
        assertThat(tenant.isRunning()).isFalse();
        assertThat(registry.getListenerContainer("tenant")).isNull();
        assertThat(group.contains(tenant)).isFalse();
        registry.registerListenerContainer(new OwnContainer("tenant", false), false); // its id is free
    }

    @Test
    void anUnregistrationThatMeetsAFailedOneAtOnceRemovesTheContainerAndLeavesNoGroupHoldingIt()
            throws InterruptedException {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        HeldStop tenant = new HeldStop("tenant", true);
        registry.registerListenerContainer(tenant, false);
        ContainerGroup group = registry.addToGroup("tenants", tenant);
        tenant.start();

        Call first = new Call("first", registry, "tenant");
        Call second = new Call("second", registry, "tenant");
        first.start();
        assertThat(tenant.stopEntered.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
        second.start();
        second.awaitParkedOrDone();
        tenant.releaseStop.countDown();

        assertThat(first.finish()).isInstanceOf(IllegalStateException.class)
                .hasFieldOrPropertyWithValue("message", "tenant cannot stop");
        assertThat(second.finish()).as("the second unregisters it once the first failed").isSameAs(tenant);
        assertThat(registry.getListenerContainer("tenant")).isNull();
        assertThat(group.contains(tenant)).as("put back in its group by the failed first, unregistered by the second:"
                + " its group's start would run it, registered nowhere").isFalse();
        group.start();
        assertThat(tenant.isRunning()).isFalse();
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
}
