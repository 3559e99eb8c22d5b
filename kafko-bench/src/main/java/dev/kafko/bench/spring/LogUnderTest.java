package dev.kafko.bench.spring;

import java.util.List;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One variant of the application in {@link SpringLogCostComparison}: which log it adds to
 * {@link LogCostApp} and how to send to it. Used by one thread.
 */
interface LogUnderTest extends AutoCloseable {

    /** Package prefix of Boot's Kafka auto-configurations. */
    String KAFKA_AUTO_CONFIGURATIONS = "org.springframework.boot.kafka.";

    /** Package prefix of the kafko starter's auto-configurations. */
    String KAFKO_AUTO_CONFIGURATIONS = "dev.kafko.spring.";

    /** Sends one record without waiting for it. */
    interface Sender {
        void send(String value);
    }

    /** The name on the command line and in the results. */
    String name();

    /** Whether this variant has a log at all (the baseline has none). */
    boolean hasLog();

    /** Prefixes of auto-configuration classes that must stay off because they belong to another log. */
    List<String> excludedAutoConfigurations();

    /** Configuration classes added to {@link LogCostApp}: the listener. */
    List<Class<?>> sources();

    /**
     * Work a test does before its context refreshes, and the properties it then passes to it
     * (spring-kafka-test starts its broker here and publishes the broker's address).
     */
    Map<String, Object> beforeContext();

    Sender sender(ConfigurableApplicationContext context);

    /** Stops what {@link #beforeContext} started, after the context closed. */
    @Override
    void close();
}
