/**
 * Helpers for the application's own tests: wait until listeners caught up with what was sent, without sleeps.
 */
@NullMarked
package dev.kafko.spring.test;

import org.jspecify.annotations.NullMarked;
