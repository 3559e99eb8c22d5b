/**
 * Micrometer meters for kafko; loaded only when Micrometer is on the classpath and a {@code MeterRegistry} bean exists.
 */
@NullMarked
package dev.kafko.spring.metrics;

import org.jspecify.annotations.NullMarked;
