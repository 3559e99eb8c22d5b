/**
 * Internal: the file-I/O seam ({@link dev.kafko.internal.io.FileIo}), every file name
 * ({@link dev.kafko.internal.io.FileNames}), atomic small-file writes and the one place that turns
 * an {@code IOException} into a {@link dev.kafko.KafkoStorageException}. Nothing here knows about
 * records, segments or partitions.
 *
 * <p>The code an open, a first send and a first poll run uses named classes where a lambda or a method
 * reference would do: the first run of each lambda spins a class on the calling thread, while a named class can
 * be loaded ahead of time (the Spring starter loads them on Boot's background thread during start-up).
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.internal.io;
