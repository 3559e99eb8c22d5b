/**
 * The engine's public API: {@link dev.kafko.Kafko} and the producers, consumers, topics, records, options and
 * exceptions it hands out. Everything else of the engine lives in {@code dev.kafko.internal} and is not API.
 *
 * <p>Types are non-null unless marked {@link org.jspecify.annotations.Nullable}: a record's key and value (a keyless
 * record, a tombstone), a header's value, {@link dev.kafko.Headers#lastHeader} of an absent key, a topic config's
 * {@code retention} (records kept forever), a partition's {@code failure}. Kotlin reads them as its own nullable and
 * non-null types.
 */
@org.jspecify.annotations.NullMarked
package dev.kafko;
