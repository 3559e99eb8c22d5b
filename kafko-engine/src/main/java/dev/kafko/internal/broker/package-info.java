/**
 * Internal: the broker layer of the engine: {@link dev.kafko.internal.broker.Broker} (the
 * {@link dev.kafko.Kafko} implementation), the directory lock, topics and their config files,
 * partition actors, routing, producers, consumers, consumer groups and their offset files.
 *
 * <p>Nothing here is public API. This package reaches storage only through
 * {@link dev.kafko.internal.log.PartitionLog} and files only through {@link dev.kafko.internal.io}.
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.internal.broker;
