package org.springframework.kafka.core;

/**
 * Stands in for spring-kafka's template on the test class path, for the start-up check that warns about
 * {@code spring.kafka.*} properties only when spring-kafka is absent; tests hide it with a
 * {@code FilteredClassLoader} to see the warning.
 */
public final class KafkaTemplate {

    private KafkaTemplate() {
    }
}
