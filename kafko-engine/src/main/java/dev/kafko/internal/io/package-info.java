/**
 * Internal: the file-I/O seam ({@link dev.kafko.internal.io.FileIo}), every file name
 * ({@link dev.kafko.internal.io.FileNames}), atomic small-file writes and the one place that turns
 * an {@code IOException} into a {@link dev.kafko.KafkoStorageException}. Nothing here knows about
 * records, segments or partitions.
 */
@org.jspecify.annotations.NullMarked
package dev.kafko.internal.io;
