package dev.kafko.bench.spring;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The Boot application whose start-up every variant of {@link SpringLogCostComparison} pays: plain
 * auto-configuration, no component scan, one {@link Probe}. A log adds its own configuration class
 * (a listener) beside this one.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class LogCostApp {

    /** The topic every variant sends to and listens on. */
    static final String TOPIC = "log-cost";

    @Bean
    Probe probe() {
        return new Probe();
    }
}
