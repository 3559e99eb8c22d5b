package dev.kafko.bench.spring;

import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;

/** The baseline: {@link LogCostApp} with no log at all. */
final class NoLog implements LogUnderTest {

    @Override
    public String name() {
        return "none";
    }

    @Override
    public boolean hasLog() {
        return false;
    }

    @Override
    public List<String> excludedAutoConfigurations() {
        return List.of(KAFKA_AUTO_CONFIGURATIONS, KAFKO_AUTO_CONFIGURATIONS);
    }

    @Override
    public List<Class<?>> sources() {
        return List.of();
    }

    @Override
    public Map<String, Object> beforeContext() {
        return Map.of();
    }

    @Override
    public Sender sender(ConfigurableApplicationContext context) {
        throw new UnsupportedOperationException("the baseline has no log to send to");
    }

    @Override
    public void close() {
    }
}
