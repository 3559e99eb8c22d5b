package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A container unregistered while the registry starts (a cached test context resumed, an application restarting its
 * listeners) stays stopped: the registry's start, which listed it before, started it again after the unregistration's
 * stop, leaving it running and registered nowhere, so that nothing stopped it at shutdown, its keep-alive held the
 * JVM, and its topic, deleted after the unregistration as the README says to, was created again by it (B249).
 */
class UnregisterDuringRegistryStartTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    /** Registered first: its start holds the registry's start until released. */
    static final class SlowStart implements MessageListenerContainer {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean running;

        @Override
        public String getListenerId() {
            return "slow-start";
        }

        @Override
        public String getGroupId() {
            return "slow-start";
        }

        @Override
        public List<String> getTopics() {
            return List.of();
        }

        @Override
        public void start() {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
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

    @Test
    void aContainerUnregisteredWhileTheRegistryStartsIsNotStartedByIt() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            Kafko kafko = context.getBean(Kafko.class);
            SlowStart slow = new SlowStart();
            registry.registerListenerContainer(slow, false);
            ConcurrentMessageListenerContainer tenant = context.getBean(KafkoListenerContainerFactory.class)
                    .createListenerContainer("tenant", "tenant", List.of("tenant-orders"), (records, ack) -> { });
            registry.registerListenerContainer(tenant, true);
            assertThat(tenant.isRunning()).isTrue();
            registry.stop();
            assertThat(tenant.isRunning()).isFalse();

            Thread starting = new Thread(registry::start, "registry-start");
            starting.start();
            try {
                assertThat(slow.entered.await(30, TimeUnit.SECONDS)).isTrue();
                // the registry's start listed the tenant's container and waits in the one before it
                assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(tenant);
                kafko.deleteTopic("tenant-orders");
            } finally {
                slow.release.countDown();
                starting.join(30_000);
            }
            assertThat(starting.isAlive()).isFalse();
            assertThat(slow.isRunning()).isTrue();
            try {
                assertThat(registry.getListenerContainer("tenant")).isNull();
                assertThat(tenant.isRunning()).as("started by the registry after it was unregistered").isFalse();
                assertThat(kafko.topic("tenant-orders")).as("created again by the unregistered container").isEmpty();
            } finally {
                tenant.stop();
            }
        });
    }

    @Test
    void aContainerUnregisteredWhileItsGroupStartsIsNotStartedByIt() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            Kafko kafko = context.getBean(Kafko.class);
            SlowStart slow = new SlowStart();
            registry.registerListenerContainer(slow, false);
            ConcurrentMessageListenerContainer tenant = context.getBean(KafkoListenerContainerFactory.class)
                    .createListenerContainer("tenant", "tenant", List.of("tenant-orders"), (records, ack) -> { });
            registry.registerListenerContainer(tenant, false);
            ContainerGroup group = registry.addToGroup("tenants", slow);
            registry.addToGroup("tenants", tenant);
            tenant.start(); // ran before, and was stopped with its group
            tenant.stop();

            Thread starting = new Thread(group::start, "group-start");
            starting.start();
            try {
                assertThat(slow.entered.await(30, TimeUnit.SECONDS)).isTrue();
                // the group's start listed the tenant's container and waits in the one before it
                assertThat(registry.unregisterListenerContainer("tenant")).isSameAs(tenant);
                kafko.deleteTopic("tenant-orders");
            } finally {
                slow.release.countDown();
                starting.join(30_000);
            }
            assertThat(starting.isAlive()).isFalse();
            try {
                assertThat(group.contains(tenant)).isFalse();
                assertThat(tenant.isRunning()).as("started by its group after it was unregistered").isFalse();
                assertThat(kafko.topic("tenant-orders")).as("created again by the unregistered container").isEmpty();
            } finally {
                tenant.stop();
            }
        });
    }
}
