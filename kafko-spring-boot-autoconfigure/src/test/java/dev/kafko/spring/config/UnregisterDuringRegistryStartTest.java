package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.UnregisterDuringStartOfOwnContainersTest.OwnContainer;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerGroup;
import java.util.List;
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

    @Test
    void aContainerUnregisteredWhileTheRegistryStartsIsNotStartedByIt() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            Kafko kafko = context.getBean(Kafko.class);
            OwnContainer slow = new OwnContainer("slow-start", true); // registered first: holds the registry's start
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
            OwnContainer slow = new OwnContainer("slow-start", true); // registered first: holds the registry's start
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
