package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;

/**
 * Internal: whether the file system that holds one segment file is nearly full, for its
 * {@link SegmentFile}, which then stores nothing through the mapping: every write goes through the
 * channel, and the preparer touches no page. On a nearly full ext4 a store into a mapped page that
 * was filled with zeros can still fault with {@code SIGBUS} (seen in about one run in 25 that filled a
 * small file system with single sends): the page fault itself can fail for want of space. The JVM
 * skips the faulting store and throws an {@link InternalError} later, wherever the thread then is, so a
 * frame could be acknowledged with bytes missing. A {@code pwrite} reports the same condition as an
 * {@code IOException} before anything is acknowledged.
 *
 * <p>Looked at ({@code statvfs}) before each step of zeros, by the writer or the preparer, and by the
 * writer at least every {@link #CHECK_MILLIS} of the log's clock.
 */
final class SpaceWatch {

    /** Below this many bytes of usable space on the file system, nothing is stored through the mapping. */
    static final long MIN_FREE_FOR_MAPPED_STORES = 512L << 20;
    /** The writer looks at the usable space at least this often (milliseconds of the log's clock). */
    private static final long CHECK_MILLIS = 1000;

    private final FileIo io;
    private final Path path;
    /** Whether the file system was nearly full when last looked at; written by the writer and the preparer. */
    private volatile boolean low;
    /** When the writer looks next (the log's clock). Writer only. */
    private long nextCheck;

    SpaceWatch(FileIo io, Path path) {
        this.io = io;
        this.path = path;
    }

    /** Whether the file system was nearly full when last looked at. Any thread. */
    boolean low() {
        return low;
    }

    /** Looks again when {@link #CHECK_MILLIS} passed since the last look (or the clock went back). Writer only. */
    void checkAt(long now) {
        if (now >= nextCheck || now + CHECK_MILLIS < nextCheck) {
            nextCheck = now + CHECK_MILLIS;
            look();
        }
    }

    /** Looks at the usable space now. Any thread. */
    void look() {
        low = io.usableSpace(path) < MIN_FREE_FOR_MAPPED_STORES;
    }
}
