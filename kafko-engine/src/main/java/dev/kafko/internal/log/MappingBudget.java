package dev.kafko.internal.log;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the process-wide budget of memory-mapped windows ({@value SegmentFile#WINDOW_SIZE} bytes of a
 * segment each, one kernel mapping each). Any thread. Each mapping counts against the kernel's
 * {@code vm.max_map_count} (65530 by default on Linux), and a JVM that reaches it aborts ("Native memory
 * allocation (mmap) failed"), it does not throw: so kafko keeps its own mappings under a limit of its own.
 *
 * <p>The limit: half of {@code /proc/sys/vm/max_map_count} (read once; 65530 when the file cannot be
 * read, so 32765), leaving the other half to the rest of the process (its libraries, thread stacks,
 * {@code malloc} arenas). The system property {@value #LIMIT_PROPERTY} sets a lower limit (a higher one is
 * cut to half of {@code max_map_count}; raise the kernel's limit instead).
 *
 * <p>The rule. Every window a {@link SegmentFile} holds counts, the writer's included: the kernel counts
 * them all, and a process with many busy partitions must not abort because its active segments were left
 * out. But only read-only windows are ever refused:
 * <ul>
 *   <li>the writer maps its active segment as it grows ({@link Share#take}, once per window, never per
 *       append) and is never refused, since it stores through that mapping: its windows may push the count
 *       over the limit;</li>
 *   <li>a sealed segment opened from disk is mapped on its first {@link SegmentFile#view} only when all its
 *       windows fit under the limit ({@link Share#tryTake}); otherwise its reads are positional reads
 *       ({@link UnmappedReads}), and a later read tries again;</li>
 *   <li>a segment being sealed keeps the windows its writer mapped while the count is within the limit;
 *       over it, it drops them and reads like a sealed segment opened from disk.</li>
 * </ul>
 * So the windows of sealed segments never take the count over the limit, and the count exceeds it by at
 * most the windows of the segments being written.
 *
 * <p>Release. A segment's windows go back to the budget when its file is released: deleted (retention,
 * a topic deleted) or closed with its log ({@link SegmentFile#closeChannel} of a sealed file). A file
 * dropped without that call (a log closes only its active segment's channel; a sealed one kept in the
 * budget) returns them once the garbage collector finds it unreachable: every {@link SegmentFile} is
 * watched by a phantom reference, and the collected ones are returned whenever the budget refuses
 * windows and whenever {@link #used} is read (no thread of its own). In both cases only the count goes
 * back: the kernel mapping itself is released by the garbage collector when its {@code MappedByteBuffer}
 * is unreachable, which a record that slices it may delay (a mapping is never unmapped by force: a
 * reader or a record may still hold it). The count is therefore of the windows live segments hold.
 */
final class MappingBudget {

    /** The system property that lowers the limit (a number of windows). */
    static final String LIMIT_PROPERTY = "kafko.maxMappedWindows";
    /** Linux's default {@code vm.max_map_count}, assumed when {@code /proc/sys/vm/max_map_count} cannot be read. */
    static final int DEFAULT_MAX_MAP_COUNT = 65530;
    private static final Path MAX_MAP_COUNT = Path.of("/proc/sys/vm/max_map_count");
    private static final System.Logger LOG = PlainNumbersLogger.of(MappingBudget.class);

    /** Half of the kernel's limit: the most the budget ever allows. */
    private static final int CEILING = readMaxMapCount() / 2;
    private static final AtomicInteger USED = new AtomicInteger();
    private static volatile int limit = configuredLimit(System.getProperty(LIMIT_PROPERTY));
    /** Shares whose segment file was collected without being released. */
    private static final ReferenceQueue<SegmentFile> COLLECTED = new ReferenceQueue<>();
    /** Every share not yet released: a phantom reference must stay reachable to be enqueued. */
    private static final Set<Share> LIVE = ConcurrentHashMap.newKeySet();

    private MappingBudget() {
    }

    /** The windows one segment file holds, and the file's unmapped reads, released with it. */
    static final class Share extends PhantomReference<SegmentFile> {

        private final AtomicInteger windows = new AtomicInteger();
        private final UnmappedReads reads;

        private Share(SegmentFile file, UnmappedReads reads) {
            super(file, COLLECTED);
            this.reads = reads;
        }

        /** Counts {@code n} windows the writer mapped; never refused. */
        void take(int n) {
            if (n > 0) {
                windows.addAndGet(n);
                USED.addAndGet(n);
            }
        }

        /** Counts {@code n} read-only windows if they fit under the limit; false (nothing counted) when not. */
        boolean tryTake(int n) {
            if (tryAdd(n) || (reclaim() && tryAdd(n))) {
                windows.addAndGet(n);
                return true;
            }
            return false;
        }

        /** The windows this file holds. */
        int windows() {
            return windows.get();
        }

        /** Returns every window this file holds to the budget (it dropped its mapping). */
        void giveBack() {
            int n = windows.getAndSet(0);
            if (n > 0) {
                USED.addAndGet(-n);
            }
        }

        /** The file is released: its windows go back, its unmapped reads end. Idempotent. */
        void release() {
            clear();
            LIVE.remove(this);
            giveBack();
            reads.close();
        }
    }

    /** Watches {@code file}: its windows are counted in the returned share. */
    static Share register(SegmentFile file, UnmappedReads reads) {
        reclaim();
        Share s = new Share(file, reads);
        LIVE.add(s);
        return s;
    }

    /** Windows held by live segment files (after returning those of files the GC collected). */
    static int used() {
        reclaim();
        return USED.get();
    }

    static int limit() {
        return limit;
    }

    /** Whether the windows held take the count over the limit (a segment being sealed then drops its own). */
    static boolean overLimit() {
        return USED.get() > limit;
    }

    /**
     * For tests that count from zero: every window counted so far is forgotten (the files keep their
     * mappings, and their later release gives nothing back), so that files of earlier tests, released or
     * collected while a test runs, do not move its count.
     */
    static void forgetForTests() {
        reclaim();
        for (Share s : LIVE) {
            s.windows.set(0);
        }
        USED.set(0);
    }

    /** Sets the limit, for tests (no ceiling); a negative value restores the configured one. */
    static void setLimit(int windows) {
        limit = windows < 0 ? configuredLimit(System.getProperty(LIMIT_PROPERTY)) : windows;
    }

    /** The limit that {@code property} asks for, within half of the kernel's limit. */
    static int configuredLimit(@Nullable String property) {
        if (property == null) {
            return CEILING;
        }
        try {
            int asked = Integer.parseInt(property.trim());
            if (asked >= 0) {
                return Math.min(asked, CEILING);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        LOG.log(System.Logger.Level.WARNING, "ignoring {0}={1}: not a number of windows; using {2}", LIMIT_PROPERTY,
                property, CEILING);
        return CEILING;
    }

    private static boolean tryAdd(int n) {
        for (;;) {
            int u = USED.get();
            if (u + n > limit) {
                return false;
            }
            if (USED.compareAndSet(u, u + n)) {
                return true;
            }
        }
    }

    /** Releases the shares of collected files; whether there was any. */
    private static boolean reclaim() {
        boolean any = false;
        for (Reference<? extends SegmentFile> r; (r = COLLECTED.poll()) != null; ) {
            ((Share) r).release();
            any = true;
        }
        return any;
    }

    private static int readMaxMapCount() {
        // read to its end, not Files.readString: Java 17's reads the size the file states, which proc files state
        // as 0, and returned "6" of "65530"; bytes, not a reader: no decoder to set up at a log's first open
        byte[] text = new byte[32];
        int length = 0;
        try (InputStream in = new FileInputStream(MAX_MAP_COUNT.toFile())) {
            for (int r; length < text.length && (r = in.read(text, length, text.length - length)) > 0; ) {
                length += r;
            }
            String line = new String(text, 0, length, StandardCharsets.US_ASCII).trim();
            long n = line.isEmpty() ? DEFAULT_MAX_MAP_COUNT : Long.parseLong(line);
            return (int) Math.max(2, Math.min(n, Integer.MAX_VALUE));
        } catch (IOException | RuntimeException e) {
            return DEFAULT_MAX_MAP_COUNT;
        }
    }

    /** Half of the kernel's limit: the most the budget allows. */
    static int ceiling() {
        return CEILING;
    }
}
