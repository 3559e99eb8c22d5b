package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.KafkoMessageListener;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.KafkoInstrumentation;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Listeners and topics a running application adds and removes (a tenant's), with containers made in code. */
class RuntimeListenersTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    @Test
    void flushSkipsATopicDeletedSinceTheTemplateSentToIt() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            Kafko kafko = context.getBean(Kafko.class);
            template.send("gone", "a").join();
            template.send("kept", "b").join();
            kafko.deleteTopic("gone");
            template.flush();
            template.flush();
            assertThat(kafko.topic("gone")).as("not created again by a flush").isEmpty();
            template.send("kept", "c");
            template.flush();
            assertThat(kafko.topic("kept").orElseThrow().partition(0).endOffset()).isEqualTo(2);
        });
    }

    @Test
    void aContainerMadeInCodeCanBeUnregisteredItsIdUsedAgainAndItsMetersGo() {
        runner.run(context -> {
            List<String> received = new CopyOnWriteArrayList<>();
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            KafkoMessageListener listener = (records, ack) -> records.forEach(r -> received.add(new String(r.value())));
            registry.registerListenerContainer(
                    factory.createListenerContainer("tenant-a", "g-a", List.of("tenant.a"), listener), true);
            template(context).send("tenant.a", "one").join();
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);
            assertThat(meters.find("kafko.listener.process").tag("listener", "tenant-a").timers()).isNotEmpty();
            assertThat(meters.find("kafko.consumer.lag").tag("group", "g-a").gauges()).isNotEmpty();

            MessageListenerContainer removed = registry.unregisterListenerContainer("tenant-a");
            assertThat(removed).isNotNull();
            assertThat(removed.isRunning()).isFalse();
            assertThat(registry.getListenerContainer("tenant-a")).isNull();
            assertThat(meters.find("kafko.listener.process").tag("listener", "tenant-a").timers()).isEmpty();
            assertThat(meters.find("kafko.consumer.lag").tag("group", "g-a").gauges()).isEmpty();
            assertThat(registry.unregisterListenerContainer("tenant-a")).isNull();
            assertThatThrownBy(() -> registry.unregisterListenerContainer(null)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("id");

            // the tenant comes back under its id
            registry.registerListenerContainer(
                    factory.createListenerContainer("tenant-a", "g-a", List.of("tenant.a"), listener), true);
            template(context).send("tenant.a", "two").join();
            await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("two"));
            assertThat(received).containsExactly("one", "two");
        });
    }

    @Test
    void aContainerThatCannotStartIsNotLeftRegisteredAndBadNamesAreRefusedAtCreation() {
        runner.withPropertyValues("kafko.auto-create-topics=false").run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            KafkoMessageListener listener = (records, ack) -> { };
            assertThatThrownBy(() -> factory.createListenerContainer("x", "bad group", List.of("t"), listener))
                    .isInstanceOf(InvalidNameException.class);
            assertThatThrownBy(() -> factory.createListenerContainer("x", "g", List.of("bad topic"), listener))
                    .isInstanceOf(InvalidNameException.class);
            ConcurrentMessageListenerContainer missing =
                    factory.createListenerContainer("tenant-b", "g-b", List.of("not.there"), listener);
            assertThatThrownBy(() -> registry.registerListenerContainer(missing, true))
                    .isInstanceOf(UnknownTopicException.class);
            assertThat(registry.getListenerContainer("tenant-b")).isNull();
            context.getBean(Kafko.class).createTopic("not.there");
            registry.registerListenerContainer(
                    factory.createListenerContainer("tenant-b", "g-b", List.of("not.there"), listener), true);
            assertThat(registry.getListenerContainer("tenant-b").isRunning()).isTrue();
        });
    }

    @Test
    void aContainerRegisteredWhileTheRegistryStartsIsStarted() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true")
                .withBean("booting", BootListener.class)
                .withBean(KafkoInstrumentation.class, () -> new KafkoInstrumentation() { })
                .withBean(RegisteringInstrumentation.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    MessageListenerContainer late = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("late");
                    assertThat(late).as("registered during the start").isNotNull();
                    assertThat(late.isRunning()).isTrue();
                });
    }

    /** A listener whose container's start registers another container, as a tenant loader started by it would. */
    static class BootListener {
        @dev.kafko.spring.annotation.KafkoListener(id = "boot", topics = "boot")
        void on(String value) {
        }
    }

    /** Registers the container "late" when "boot" starts (called on the thread that starts the registry). */
    static class RegisteringInstrumentation {
        RegisteringInstrumentation(ObjectProvider<KafkoListenerEndpointRegistry> registry,
                                   ObjectProvider<KafkoListenerContainerFactory> factory,
                                   KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            kafkoListenerContainerFactory.setInstrumentation(new KafkoInstrumentation() {
                @Override
                public void listenerStarting(String listenerId, String groupId, String topic) {
                    if (listenerId.equals("boot")) {
                        registry.getObject().registerListenerContainer(factory.getObject().createListenerContainer(
                                "late", "late", List.of("late"), (records, ack) -> { }), true);
                    }
                }
            });
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
