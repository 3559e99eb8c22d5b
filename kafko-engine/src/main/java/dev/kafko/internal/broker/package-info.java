/**
 * Internal: the broker layer of the engine: {@link dev.kafko.internal.broker.Broker} (the
 * {@link dev.kafko.Kafko} implementation), the directory lock, topics and their config files,
 * partition actors, routing, producers, consumers, consumer groups and their offset files.
 *
 * <p>Nothing here is public API. This package reaches storage only through
 * {@link dev.kafko.internal.log.PartitionLog} and files only through {@link dev.kafko.internal.io}.
 *
 * <p>The code an open, a first send and a first poll run uses named classes where a lambda or a method
 * reference would do: the first run of each lambda spins a class on the calling thread, while a named class can
 * be loaded ahead of time (the Spring starter loads them on Boot's background thread during start-up).
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.internal.broker;
