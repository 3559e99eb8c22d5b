package dev.kafko.bench.spring;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.core.KafkoTemplate;
import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The kafko starter as a test uses it: {@code kafko.ephemeral=true} (a fresh temp directory, deleted
 * on close), the starter's auto-configuration, and a {@code @KafkoListener}. Nothing runs before the
 * context: the log opens inside it.
 */
final class KafkoLog implements LogUnderTest {

    static final String NAME = "kafko";
    /** kafko with its background pre-initializer switched off. */
    static final String COLD = "kafko-cold";
    /** The system property that switches the pre-initializer off (read before the context starts). */
    static final String PREINITIALIZER_IGNORE = "kafko.backgroundpreinitializer.ignore";

    private final String name;

    KafkoLog(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean hasLog() {
        return true;
    }

    @Override
    public List<String> excludedAutoConfigurations() {
        return List.of(KAFKA_AUTO_CONFIGURATIONS);
    }

    @Override
    public List<Class<?>> sources() {
        return List.of(Listener.class);
    }

    @Override
    public Map<String, Object> beforeContext() {
        return Map.of("kafko.ephemeral", "true");
    }

    @Override
    @SuppressWarnings("unchecked")
    public Sender sender(ConfigurableApplicationContext context) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        return value -> template.send(LogCostApp.TOPIC, value);
    }

    @Override
    public void close() {
    }

    /** The listener: counts arrivals on the {@link Probe}. */
    @Configuration(proxyBeanMethods = false)
    static class Listener {

        @Bean
        KafkoProbeListener kafkoProbeListener(Probe probe) {
            return new KafkoProbeListener(probe);
        }
    }

    static final class KafkoProbeListener {

        private final Probe probe;

        KafkoProbeListener(Probe probe) {
            this.probe = probe;
        }

        @KafkoListener(id = "log-cost", topics = LogCostApp.TOPIC)
        void on(String value) {
            probe.received();
        }
    }
}
