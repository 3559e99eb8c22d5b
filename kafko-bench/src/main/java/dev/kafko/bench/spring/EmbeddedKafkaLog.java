package dev.kafko.bench.spring;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * spring-kafka with spring-kafka-test's embedded KRaft broker, set up as {@code @EmbeddedKafka}
 * does it for a test: one broker started before the context, its address passed in as
 * {@code spring.kafka.bootstrap-servers}, Boot's Kafka auto-configuration, and a
 * {@code @KafkaListener}. The consumer starts from the earliest offset, as tests set it, so that a
 * record sent before the partition is assigned still arrives.
 */
final class EmbeddedKafkaLog implements LogUnderTest {

    private @Nullable EmbeddedKafkaKraftBroker broker;

    @Override
    public String name() {
        return "embedded-kafka";
    }

    @Override
    public boolean hasLog() {
        return true;
    }

    @Override
    public List<String> excludedAutoConfigurations() {
        return List.of(KAFKO_AUTO_CONFIGURATIONS);
    }

    @Override
    public List<Class<?>> sources() {
        return List.of(Listener.class);
    }

    @Override
    public Map<String, Object> beforeContext() {
        EmbeddedKafkaKraftBroker started = new EmbeddedKafkaKraftBroker(1, 1, LogCostApp.TOPIC);
        started.afterPropertiesSet();
        broker = started;
        return Map.of(
                "spring.kafka.bootstrap-servers", started.getBrokersAsString(),
                "spring.kafka.consumer.auto-offset-reset", "earliest");
    }

    @Override
    @SuppressWarnings("unchecked")
    public Sender sender(ConfigurableApplicationContext context) {
        KafkaTemplate<Object, Object> template = context.getBean(KafkaTemplate.class);
        return value -> template.send(LogCostApp.TOPIC, value);
    }

    @Override
    public void close() {
        if (broker != null) {
            broker.destroy();
            broker = null;
        }
    }

    /** The listener: counts arrivals on the {@link Probe}. */
    @Configuration(proxyBeanMethods = false)
    static class Listener {

        @Bean
        KafkaProbeListener kafkaProbeListener(Probe probe) {
            return new KafkaProbeListener(probe);
        }
    }

    static final class KafkaProbeListener {

        private final Probe probe;

        KafkaProbeListener(Probe probe) {
            this.probe = probe;
        }

        @KafkaListener(id = "log-cost", topics = LogCostApp.TOPIC)
        void on(String value) {
            probe.received();
        }
    }
}
