/** The HTTP endpoints: {@code POST /orders}, {@code GET /orders/{id}} and {@code GET /stats}. */
@NullMarked
package dev.kafko.sample.web;

import org.jspecify.annotations.NullMarked;
