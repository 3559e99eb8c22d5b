/**
 * kafko and Apache Kafka given the same operations, with the results compared: one embedded KRaft broker
 * (spring-kafka-test) for the whole run, a kafko instance per test class. Runs only in the profile
 * {@code kafka-conformance}: {@code ./mvnw -B verify -Pkafka-conformance -pl kafko-bench -am}. Where
 * kafko differs from Kafka by design, the test asserts the difference and names the README sentence
 * that documents it; any other difference fails. One class compares with spring-kafka's own code instead of a broker:
 * its retry topics' back-offs and names ({@code RetryBackOffConformanceTest}).
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.conformance;
