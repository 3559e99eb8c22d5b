/**
 * Internal: the storage of one partition: the frame codec, segments (memory-mapped, blocks
 * allocated ahead of the writer), offset and time indexes, recovery on open, retention and
 * compression. Starts no threads and never imports {@code dev.kafko.internal.broker}; the on-disk
 * bytes are described in {@code docs/FORMAT.md} and in {@link dev.kafko.internal.log.FrameFormat}.
 *
 * <p>The code an open, a first send and a first poll run uses named classes where a lambda or a method
 * reference would do: the first run of each lambda spins a class on the calling thread, while a named class can
 * be loaded ahead of time (the Spring starter loads them on Boot's background thread during start-up).
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.internal.log;
