/**
 * The events listener containers publish to the application context: a member started or stopped, paused or
 * resumed, went idle or received records again.
 */
@NullMarked
package dev.kafko.spring.event;

import org.jspecify.annotations.NullMarked;
