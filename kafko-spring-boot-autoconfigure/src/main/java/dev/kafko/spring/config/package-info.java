/**
 * The endpoint registry (a {@code SmartLifecycle} that owns every listener container), the endpoint description and the container factory.
 */
@NullMarked
package dev.kafko.spring.config;

import org.jspecify.annotations.NullMarked;
