/**
 * The read side: the in-memory order model, rebuilt from the topics at start-up and kept up to
 * date by listeners, and the endpoints that read it ({@code GET /orders/{id}}, {@code GET /stats}).
 */
@NullMarked
package dev.kafko.sample.model;

import org.jspecify.annotations.NullMarked;
