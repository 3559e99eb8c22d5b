/**
 * The write side of the pipeline: the REST endpoint that publishes orders, the events on the
 * {@code orders} and {@code payments} topics, and the listener that validates orders and
 * captures their payments.
 */
@NullMarked
package dev.kafko.sample.order;

import org.jspecify.annotations.NullMarked;
