/**
 * What a log costs a Spring Boot test: {@link dev.kafko.bench.spring.SpringLogCostComparison}
 * starts the same Boot application with no log, with spring-kafka against spring-kafka-test's
 * embedded KRaft broker, and with the kafko starter, each in a fresh JVM; and JMH benchmarks of
 * {@code KafkoTemplate} to {@code @KafkoListener} throughput and latency.
 */
@NullMarked
package dev.kafko.bench.spring;

import org.jspecify.annotations.NullMarked;
