package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.TopicConfig;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The engine guards its observer: an exception a {@link KafkoObserver} throws is logged and ignored. The starter
 * composes every {@code KafkoObserver} bean into that one observer, the metrics and the topic-creation watch among
 * them: an application's observer that throws must not keep kafko's own observers from being told.
 */
class ObserverIsolationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    /** An application's observer with a bug: it throws on every event. */
    static class Throwing implements KafkoObserver {
        @Override
        public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
            throw new IllegalStateException("audit store unavailable");
        }

        @Override
        public void onCommit(String topic, String group) {
            throw new IllegalStateException("audit store unavailable");
        }

        @Override
        public void onTopicCreated(String topic) {
            throw new IllegalStateException("audit store unavailable");
        }

        @Override
        public void onGroupDeleted(String topic, String group) {
            throw new IllegalStateException("audit store unavailable");
        }

        @Override
        public void onTopicDeleted(String topic) {
            throw new IllegalStateException("audit store unavailable");
        }
    }

    @Test
    void aThrowingApplicationObserverDoesNotLeaveADeletedTopicsGaugesReadingNaN() {
        runner.withBean("auditObserver", KafkoObserver.class, Throwing::new).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            kafko.createTopic("scratch", TopicConfig.builder().partitions(2).build());
            kafko.producer("scratch").send(null, "x".getBytes()).join();
            assertThat(registry.find("kafko.log.size").tag("topic", "scratch").gauges()).hasSize(2);
            kafko.deleteTopic("scratch");
            assertThat(registry.find("kafko.log.size").gauges()).as("no series left reading NaN")
                    .allSatisfy(g -> assertThat(g.value()).isNotNaN());
            assertThat(registry.find("kafko.log.end.offset").tag("topic", "scratch").meters()).isEmpty();
        });
    }

    @Test
    void aThrowingApplicationObserverDoesNotHideAPlainConsumersGroupLag() {
        runner.withBean("auditObserver", KafkoObserver.class, Throwing::new).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("orders");
            for (int i = 0; i < 3; i++) {
                kafko.producer("orders").send(null, "x".getBytes()).join();
            }
            try (var consumer = kafko.groupConsumer("orders", "billing")) {
                consumer.poll(Duration.ofSeconds(1));
                consumer.commit(java.util.Map.of(0, 1L));
            }
            assertThat(context.getBean(MeterRegistry.class).find("kafko.consumer.lag").tag("topic", "orders")
                    .tag("group", "billing").gauges()).singleElement()
                    .satisfies(g -> assertThat(g.value()).isEqualTo(2));
        });
    }

    /** The composite observer tells the metrics of a group's deletion too, whatever the observer before them does. */
    @Test
    void aThrowingApplicationObserverDoesNotKeepADeletedGroupsLagGauge() {
        runner.withBean("auditObserver", KafkoObserver.class, Throwing::new).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("orders");
            kafko.producer("orders").send(null, "x".getBytes()).join();
            try (var consumer = kafko.groupConsumer("orders", "billing")) {
                consumer.poll(Duration.ofSeconds(1));
                consumer.commit(java.util.Map.of(0, 1L));
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("kafko.consumer.lag").tag("group", "billing").gauges()).hasSize(1);
            assertThat(kafko.deleteGroup("orders", "billing")).isTrue();
            assertThat(registry.find("kafko.consumer.lag").tag("group", "billing").meters()).isEmpty();
        });
    }

    @Test
    void aThrowingApplicationObserverDoesNotKeepAPatternListenerFromANewTopic() {
        runner.withBean("auditObserver", KafkoObserver.class, Throwing::new).withBean(Tenants.class).run(context -> {
            ConcurrentMessageListenerContainer container = (ConcurrentMessageListenerContainer) context
                    .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("tenants");
            await().atMost(Duration.ofSeconds(10)).until(container::isRunning);
            context.getBean(Kafko.class).createTopic("tenant-1");
            assertThat(container.getTopics()).as("read from the moment it is created").containsExactly("tenant-1");
        });
    }

    static class Tenants {
        @KafkoListener(id = "tenants", topicPattern = "tenant-.*")
        void on(String value) {
        }
    }
}
