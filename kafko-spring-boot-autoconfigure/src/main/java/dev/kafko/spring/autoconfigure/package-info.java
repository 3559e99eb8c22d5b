/**
 * Spring Boot auto-configuration of kafko and its {@code kafko.*} properties. Every class here is configuration: no runtime behaviour of its own.
 */
@NullMarked
package dev.kafko.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
