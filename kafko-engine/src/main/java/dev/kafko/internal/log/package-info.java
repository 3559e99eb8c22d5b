/**
 * Internal: the storage of one partition: the frame codec, segments (memory-mapped, blocks
 * allocated ahead of the writer), offset and time indexes, recovery on open, retention and
 * compression. Starts no threads and never imports {@code dev.kafko.internal.broker}; the on-disk
 * bytes are described in {@code docs/FORMAT.md} and in {@link dev.kafko.internal.log.FrameFormat}.
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.internal.log;
