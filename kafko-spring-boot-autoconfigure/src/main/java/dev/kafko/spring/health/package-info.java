/**
 * The actuator health indicator for kafko; loaded only when spring-boot-health is on the classpath.
 */
@NullMarked
package dev.kafko.spring.health;

import org.jspecify.annotations.NullMarked;
