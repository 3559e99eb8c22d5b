package dev.kafko.spring;

/** A test payload sent as JSON. */
public record Order(String id, int amount) {
}
