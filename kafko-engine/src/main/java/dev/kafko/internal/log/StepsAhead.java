package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Internal: the steps of zeros and page touches one {@link SegmentFile}'s preparer takes ahead of its writer:
 * {@link #run} on the {@code kafko-preparer} thread the file's writer handed a step to, every other method on
 * that writer. A step writes the pieces of zeros towards its end, then takes the page faults just ahead of the
 * writer, each piece under the file's growth lock; a failure there is logged, and left to the writer, which
 * meets it when it needs the space. The writer, at each request for a step, chooses whether its zeros come in
 * huge pieces ({@link #asked(long, long)}); its own allocations write the same pieces ({@link #hugePieces()},
 * {@link #syncsZeros()}). What the writer stores, and where, stays in {@link SegmentFile}.
 */
final class StepsAhead {

    private static final int PAGE = 4096;
    /** The preparer touches pages in runs of this many bytes, taking the lock for each. */
    private static final int TOUCH_RUN = 16 * 1024;
    /** An atomic add of zero to an int of a mapped page: a store as far as the page fault goes, never a change. */
    private static final VarHandle PAGE_TOUCH = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    /** Logs as {@link SegmentFile}, whose lines these were (a logging configuration may name it). */
    private static final System.Logger LOG = System.getLogger(SegmentFile.class.getName());

    private final SegmentFile file;
    private final Path path;
    /** The file's lock for growing the file and the mapping. */
    private final ReentrantLock growth;
    /** Where the file's writer stored last (see {@link SegmentFile}). */
    private final AtomicLong writerAt;
    /** Set by the file's writer when it hands a step to the preparer, cleared as the step ends. */
    private final AtomicBoolean queued;
    private final long allocationLimit;
    /** The preparer's fdatasyncs of its zeros, through a channel of their own; closed with the file's channel. */
    private final SideChannel zeroSync;
    /** Pages below this were touched by the preparer (or lie behind the writer); under {@link #growth}. */
    private long touched;
    /**
     * Whether zeros are written in aligned {@link ZeroSteps#HUGE_PIECE}s: the writer filled the file at
     * {@link ZeroSteps#HUGE_PIECES_MIN_RATE} or more between its last two requests for a step. Written by the
     * writer, read by the preparer.
     */
    private volatile boolean hugePieces;
    /** {@link ZeroSteps#HUGE_PIECES_MIN_RATE}, or infinite for a log that fsyncs on appends. Writer only. */
    private double hugePiecesMinRate = ZeroSteps.HUGE_PIECES_MIN_RATE;
    /** Whether, when and where the writer last asked for a step. Writer only. */
    private boolean asked;
    private long askedAtNanos;
    private long askedAtEnd;
    /** Whether the preparer fdatasyncs each piece of zeros it writes (see {@link #fsyncedAsAppended}). */
    private boolean syncsZeros;

    StepsAhead(SegmentFile file, FileIo io, Path path, ReentrantLock growth, AtomicLong writerAt, AtomicBoolean queued,
            long allocationLimit) {
        this.file = file;
        this.path = path;
        this.growth = growth;
        this.writerAt = writerAt;
        this.queued = queued;
        this.allocationLimit = allocationLimit;
        this.zeroSync = new SideChannel(io, path);
    }

    /** Writes zeros in huge pieces for a writer that fills the file at {@code bytesPerSecond} or more. Writer only. */
    void hugePiecesFrom(double bytesPerSecond) {
        this.hugePiecesMinRate = bytesPerSecond;
    }

    /**
     * For a log that fsyncs as it appends (any policy but {@code NEVER}); before the first request for a
     * step. Zeros are written one page per {@code pwrite} ({@link ZeroSteps#ZEROS_PER_WRITE_FSYNCED}: a
     * store dirties one small folio), and the preparer writes them in pieces of
     * {@value ZeroSteps#ZEROS_PER_WRITE} bytes and fdatasyncs each one, so that the writer's fsyncs find
     * the blocks ahead allocated and their pages clean, and write back only what it stored (otherwise the
     * first fsync after a step of up to {@value ZeroSteps#ALLOCATION_STEP_MAX} bytes wrote all of its
     * zeros: 16 senders under {@code EVERY_BATCH} saw their fdatasync's p99 halve without it). Never huge
     * pieces: the first store into a clean huge folio dirties all of it. Writer only.
     */
    void fsyncedAsAppended() {
        hugePiecesMinRate = Double.POSITIVE_INFINITY;
        syncsZeros = true;
    }

    /** The rate from which zeros come in huge pieces (infinite: never). Writer only. */
    double hugePiecesFrom() {
        return hugePiecesMinRate;
    }

    /** Whether zeros are written in huge pieces now. */
    boolean hugePieces() {
        return hugePieces;
    }

    /** Whether the preparer fdatasyncs each piece of zeros it writes, and zeros are written a page at a time. */
    boolean syncsZeros() {
        return syncsZeros;
    }

    /**
     * The writer asks for a step, having stored up to {@code end} with {@code allocated} bytes allocated: the
     * step's zeros come in huge pieces only for a writer that fills the file fast. Writer only, before it
     * hands the step to the preparer.
     */
    void asked(long end, long allocated) {
        // huge pieces only for a writer that fills the file fast: one piece is a single system call of
        // a millisecond or more that the preparer cannot yield inside, which a consumer woken on its CPU
        // would wait out (a p99 of 0.1-0.6 ms instead of 0.06-0.1 ms for a listener at 50 K records/s)
        // the rate of the bytes written between two requests (not of the allocation, which doubles
        // early on); none before a first request of this file's writer
        long now = System.nanoTime();
        double bytesPerSecond = (end - askedAtEnd) * 1e9 / Math.max(1, now - askedAtNanos);
        hugePieces = asked && allocated >= ZeroSteps.HUGE_PIECE && bytesPerSecond >= hugePiecesMinRate;
        asked = true;
        askedAtNanos = now;
        askedAtEnd = end;
    }

    /**
     * One step ahead of the writer, on the preparer's thread: first the zeros (cheap, and the writer may
     * store below the file's allocated end as soon as they are published), then the page faults ahead of the
     * writer (about 6 us a page on a VM: a writer that catches up takes the faults of the pages it
     * reaches itself instead of waiting, and the touching jumps ahead of it again). Both in pieces,
     * with the lock released between them, and the CPU offered to other threads after each piece: a
     * step of 8 MiB is some 12 ms of faults, and the scheduler would let it run for milliseconds while a
     * consumer woken on the same CPU waits to deliver a record.
     */
    void run() {
        try {
            step();
        } catch (RuntimeException e) {
            // the writer meets the same error when it needs the space, and fails as it should
            LOG.log(System.Logger.Level.DEBUG, "preparing " + path + " ahead failed: " + e);
        } catch (Error e) {
            // work ahead of the writer, which allocates what it needs itself: not the preparer thread's end
            LOG.log(System.Logger.Level.WARNING, "preparing " + path + " ahead failed: " + e, e);
        } finally {
            queued.set(false);
        }
    }

    private void step() {
        long goal = ZeroSteps.grownTarget(file.allocated(), file.allocated() + 1, allocationLimit);
        while (growStep(goal)) {
            if (syncsZeros) {
                zeroSync.forceQuietly();
            }
            Thread.yield();
        }
        while (true) {
            growth.lock();
            try {
                // the page after the one the writer stores into: the pages behind it are faulted already
                long p = Math.max(touched, (writerAt.get() / PAGE + 1) * PAGE);
                long to = Math.min(file.allocated(), p + TOUCH_RUN);
                if (file.appendsEnded() || p >= to || file.storesThroughChannel()) {
                    return;
                }
                touch(p, to);
            } finally {
                growth.unlock();
            }
            Thread.yield();
        }
    }

    /** Allocates the next piece of zeros towards {@code goal}; false once there is nothing (more) to do. */
    private boolean growStep(long goal) {
        growth.lock();
        try {
            long from = file.allocated();
            if (file.appendsEnded() || from >= goal || from >= allocationLimit) {
                return false;
            }
            // to the next aligned boundary: after a short piece (the writer's), the pieces are whole again
            int piece = hugePieces ? ZeroSteps.HUGE_PIECE : syncsZeros ? ZeroSteps.ZEROS_PER_WRITE : ZeroSteps.PREPARE_PIECE;
            file.allocateTo(Math.min(goal, from - from % piece + piece));
            return true;
        } finally {
            growth.unlock();
        }
    }

    /**
     * Takes the page fault of every page in {@code [from, to)} (page multiples below the file's allocated
     * end), so that the writer's stores there cost none. The writer may be storing into the same pages at
     * the same time: an atomic add of zero writes back exactly the value it read, atomically, so it
     * never changes a byte the writer stored, before or after. Under {@link #growth}, which keeps a
     * truncation (and so a page past the end of the file, which would fault with {@code SIGBUS}) away.
     */
    private void touch(long from, long to) {
        MappedByteBuffer[] w = file.windows();
        for (long p = from; p < to; p += PAGE) {
            PAGE_TOUCH.getAndAdd((ByteBuffer) w[(int) (p / SegmentFile.WINDOW_SIZE)], (int) (p % SegmentFile.WINDOW_SIZE), 0);
        }
        touched = Math.max(touched, to);
    }

    /** The file was cut to {@code size} bytes: no page past it is touched again. Under {@link #growth}. */
    void truncated(long size) {
        touched = Math.min(touched, size);
    }

    /** Closes the preparer's channel, with the file's. */
    void close() {
        zeroSync.close();
    }
}
