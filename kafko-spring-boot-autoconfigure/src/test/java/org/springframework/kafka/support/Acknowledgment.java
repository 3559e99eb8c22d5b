package org.springframework.kafka.support;

/**
 * Stands in for spring-kafka's acknowledgment on the test class path: a listener method a migration left with
 * this import must fail start-up ({@code SpringKafkaLeftoversTest}).
 */
public interface Acknowledgment {

    void acknowledge();
}
