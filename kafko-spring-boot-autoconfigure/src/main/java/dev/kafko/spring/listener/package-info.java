/**
 * Listener containers: one polling thread per member, ack modes, error handling with retries and dead-letter recovery. No Spring-messaging argument resolution here; that lives in {@code listener.adapter}.
 */
@NullMarked
package dev.kafko.spring.listener;

import org.jspecify.annotations.NullMarked;
