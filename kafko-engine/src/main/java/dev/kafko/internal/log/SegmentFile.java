package dev.kafko.internal.log;

import dev.kafko.KafkoClosedException;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the bytes of one segment file, memory-mapped in fixed windows. Writer methods
 * ({@link #write}, {@link #force}, {@link #seal}, {@link #close}) are called by the log's writer only;
 * {@link #read} may be called from any thread for bytes the writer has already published.
 *
 * <p>Why the blocks are allocated ahead: storing into a mapped page beyond the real end of a file
 * (a sparse hole the disk cannot back) raises {@code SIGBUS}, which the JVM turns into an
 * {@link InternalError} rather than an {@link IOException}. So the writer never stores into a page
 * it has not first filled with real zeros through {@link FileChannel#write} (which reports a full
 * disk as an {@code IOException}). Zeros are not enough on a nearly full file system, where the
 * writer stores nothing through the mapping at all (see {@link SpaceWatch}). The steps grow with the
 * file: the first is
 * {@value ZeroSteps#ALLOCATION_STEP_MIN} bytes, then each one doubles the file, in steps of at most
 * {@value ZeroSteps#ALLOCATION_STEP_MAX} bytes; so a partition that holds little costs little page cache, and a
 * busy one few allocation calls; a writer that catches up with its preparer writes only a step of
 * {@value ZeroSteps#ALLOCATION_STEP_MIN} bytes itself, or, while its zeros come in huge pieces (see
 * {@link ZeroSteps#HUGE_PIECE}), to the end of the piece it reached. Nothing is allocated when a segment is created or
 * opened, only when the first append needs it. The zeros also leave the pages resident in the page
 * cache; the preparer then takes each page's mapping fault just ahead of the writer (see
 * {@link StepsAhead}), so that the writer's own stores rarely fault.
 *
 * <p>Large frames are written with {@code pwrite} (from {@link StagingBuffers}, in pieces of at most
 * {@link StagingBuffers#SIZE} bytes) and need no zeros first: a {@code pwrite} past the end of the
 * file allocates its blocks itself and reports a full disk as an {@code IOException}.
 * Readers see them through the mapping, which the writer extends a whole window at a time with
 * {@link FileChannel#map}. Mapping past the end of the file grows it with a hole (the JDK calls
 * {@code ftruncate}), which takes no block and reads as zeros; nothing is ever stored into it
 * through the mapping before it was filled with zeros by {@link FileChannel#write}. So the bytes
 * after the last frame read as zeros in every case, and a crash leaves at most a zero tail that
 * recovery cuts.
 *
 * <p>A mapping stays valid after the file is deleted (it is released when no reader holds it
 * any more), so deleting a segment under a concurrent reader never faults; the file is only ever
 * truncated past the last published byte, which no reader touches.
 *
 * <p>Every window counts against the process-wide {@link MappingBudget} (see its rules), so that kafko
 * never takes the process to the kernel's limit of mappings. A sealed file opened from disk is not mapped
 * when it is opened: {@link #read} copies its bytes with positional reads ({@link UnmappedReads}) until a
 * {@link #view} maps it, once (under {@link #growth}, so two readers map it once), when the budget has
 * room for all its windows; without room, {@link #view} returns a heap copy instead, whose bytes never
 * change either, and a later view tries the budget again. A file sealed while the budget is over its
 * limit drops its writer's windows the same way. {@link #closeChannel} of a sealed file releases it: its
 * windows go back to the budget (the mapping itself stays valid for readers that hold it, and is unmapped
 * by the garbage collector), and its unmapped reads end.
 */
final class SegmentFile {

    /** Each window maps this many bytes of the file (the last one may be shorter). */
    static final int WINDOW_SIZE = 1 << 24;
    /** Writes at least this long go through the channel instead of the mapping. */
    static final int CHANNEL_WRITE_MIN = 32 * 1024;
    /** The windows of a sealed file that is not mapped: its reads go through {@link #unmapped}. */
    static final MappedByteBuffer[] UNMAPPED = new MappedByteBuffer[0];
    /**
     * The windows of a file whose log closed ({@link #closeWithLog}): none, and never any again; a read of it
     * fails with {@link KafkoClosedException}.
     */
    private static final MappedByteBuffer[] CLOSED = new MappedByteBuffer[0];

    private final FileIo io;
    private final Path path;
    private final long allocationLimit;
    /** Guards growing the file and the mapping, by the writer or the preparer. */
    private final ReentrantLock growth = new ReentrantLock();
    private final AtomicBoolean prepareQueued = new AtomicBoolean();
    private @Nullable FileChannel channel;
    /** The mapped windows, or {@link #UNMAPPED}; replaced under {@link #growth}. */
    private volatile MappedByteBuffer[] windows;
    /**
     * Bytes of the file that are backed by blocks written with data or zeros, and whose pages are
     * mapped: the writer stores below it without a lock; it only grows under {@link #growth}.
     */
    private volatile long allocated;
    /** Bytes of the file the windows map (at least the published end); under {@link #growth}. */
    private long mapped;
    /**
     * Where the writer stored last, for the preparer to touch pages ahead of it: written by the
     * writer with release semantics (a plain store on x86), read by the preparer.
     */
    private final AtomicLong writerAt = new AtomicLong();
    /** Where steps of zeros are prepared ahead of the writer, or null; writer only. */
    private @Nullable Executor preparer;
    /**
     * Whether the writer's last write went through the channel: the preparer then writes zeros ahead (a
     * {@code pwrite} over resident pages is several times faster than one that allocates them) but
     * takes no page fault of the mapping, which such writes do not need. Written by the writer.
     */
    private volatile boolean writingThroughChannel;
    /** Whether the file system is nearly full, so that nothing may be stored through the mapping. */
    private final SpaceWatch space;
    /** Set once no append follows (sealing, closing): the preparer must not grow the file again. */
    private volatile boolean appendsEnded;
    /** Reads of the fresh tail, through a channel of their own; closed with {@link #channel}. */
    private final TailReads tailReads;
    /** What the preparer does ahead of the writer, and the pieces of zeros it writes in. */
    private final StepsAhead steps;
    /** Reads of this file while it is {@link #UNMAPPED}; ended when the file is released. */
    private final UnmappedReads unmapped;
    /** This file's windows in the {@link MappingBudget}. */
    private final MappingBudget.Share share;
    /** Set once the file is released: it is never mapped again; under {@link #growth}. */
    private boolean released;
    /** Whether {@link #read} copies with {@code pread} though the file is mapped: see {@link #readPositionally}. */
    private volatile boolean positionalReads;

    SegmentFile(FileIo io, Path path, @Nullable FileChannel channel, MappedByteBuffer[] windows, long allocated,
            long allocationLimit) {
        this.io = io;
        this.path = path;
        this.space = new SpaceWatch(io, path);
        this.channel = channel;
        this.windows = windows;
        this.allocated = allocated;
        this.mapped = windows.length == 0 ? 0 : allocated;
        this.allocationLimit = allocationLimit;
        this.tailReads = new TailReads(io, path);
        this.steps = new StepsAhead(this, io, path, growth, writerAt, prepareQueued, allocationLimit);
        this.unmapped = new UnmappedReads(io, path);
        this.share = MappingBudget.register(this, unmapped);
        share.take(windows.length);
    }

    /** Keeps {@code ch}, the channel a sealed file was opened with, for its first reads ({@link SegmentFiles#open}). */
    void keepForReads(FileChannel ch) {
        unmapped.keep(ch);
    }

    Path path() {
        return path;
    }

    /** The size of the file on disk (including zeros allocated ahead). */
    long fileSize() {
        FileChannel ch = channel;
        try {
            return ch != null ? ch.size() : allocated;
        } catch (IOException e) {
            throw StorageErrors.wrap("size of segment", path, e);
        }
    }

    /**
     * Stores {@code src[off, off + len)} at {@code pos}, allocating blocks first. Small writes are
     * stores into the mapping (no syscall); writes of at least {@value #CHANNEL_WRITE_MIN} bytes
     * go through the channel, because the first store into each mapped page costs a page fault
     * that a {@code pwrite} over the same (already allocated, resident) pages does not. Both land
     * in the same page cache. Writer only.
     */
    void write(long pos, byte[] src, int off, int len) {
        long end = pos + len;
        if (len >= CHANNEL_WRITE_MIN || space.low()) {
            if (!writingThroughChannel) {
                writingThroughChannel = true;
            }
            if (end <= allocated) {
                // prepared ahead: the pwrite only overwrites resident pages
                pwrite(pos, src, off, len);
            } else {
                growth.lock();
                try {
                    // no zeros first: the pwrite allocates what it writes; the mapping lets readers see it
                    ensureMapped(end);
                    pwrite(pos, src, off, len);
                    allocated = Math.max(allocated, end);
                } finally {
                    growth.unlock();
                }
            }
            prepareAheadIfLow(end);
            return;
        }
        if (writingThroughChannel) {
            writingThroughChannel = false;
        }
        if (end > allocated) {
            growth.lock();
            try {
                ensureAllocated(end);
            } finally {
                growth.unlock();
            }
        }
        store(pos, src, off, len);
        writerAt.lazySet(end);
        prepareAheadIfLow(end);
    }

    /**
     * Writes {@code src[off, off + len)} at {@code pos} through a {@link StagingBuffers} buffer, in
     * pieces of at most its size: a crash between them leaves a torn frame, which recovery cuts like
     * any torn tail, and readers see none of it before the writer publishes the frame.
     */
    private void pwrite(long pos, byte[] src, int off, int len) {
        FileChannel ch = writableChannel();
        ByteBuffer b = StagingBuffers.take();
        try {
            for (int done = 0; done < len; ) {
                int n = Math.min(len - done, b.capacity());
                b.clear();
                b.put(src, off + done, n).flip();
                while (b.hasRemaining()) {
                    ch.write(b, pos + done + b.position());
                }
                done += n;
            }
        } catch (IOException e) {
            throw StorageErrors.wrap("write " + len + " bytes at position " + pos + " of segment", path, e);
        } finally {
            StagingBuffers.give(b);
        }
    }

    /** What the preparer does ahead of the writer, and the pieces of zeros it writes in. */
    StepsAhead steps() {
        return steps;
    }

    /**
     * Lets {@code executor} prepare steps of zeros (blocks and mapped pages) ahead of the writer, so
     * that the writer's stores land on resident, mapped pages and cost no page fault. Writer only.
     */
    void prepareWith(@Nullable Executor executor) {
        this.preparer = executor;
    }

    /**
     * Asks the preparer for the next step once the writer has used half of what is allocated (at most
     * half a maximal step remains): the file stays at most about twice what it holds, plus one step.
     */
    private void prepareAheadIfLow(long end) {
        Executor ex = preparer;
        long a = allocated;
        if (ex == null || a - end >= Math.min(a / 2, ZeroSteps.ALLOCATION_STEP_MAX / 2) || a >= allocationLimit
                || prepareQueued.get() || !prepareQueued.compareAndSet(false, true)) {
            return;
        }
        steps.asked(end, a);
        try {
            ex.execute(steps::run);
        } catch (RejectedExecutionException e) {
            // the preparer is shut down: this writer allocates its own steps, doubling, from now on
            preparer = null;
            prepareQueued.set(false);
        } catch (RuntimeException | Error e) {
            // no thread could be started for it (no native thread, or no heap for one): the step is work ahead of
            // a writer that allocates what it needs itself, so the frame this follows stays written, and the next
            // write asks again (left queued, the flag would keep this segment from being prepared ever again)
            prepareQueued.set(false);
        }
    }

    /** Ends the preparation ahead: no append follows. Writer only, before a seal or a close. */
    void endAppends() {
        growth.lock();
        try {
            appendsEnded = true;
        } finally {
            growth.unlock();
        }
    }

    /** Bytes allocated and mapped: the writer stores below it without a lock (see the field). Any thread. */
    long allocated() {
        return allocated;
    }

    /** Whether no append follows (sealed, or closed): nothing may grow the file again. Under {@link #growth}. */
    boolean appendsEnded() {
        return appendsEnded || channel == null;
    }

    /** Whether the writer's stores go through the channel, so that no page of the mapping needs a fault. */
    boolean storesThroughChannel() {
        return writingThroughChannel || space.low();
    }

    /** The mapped windows (see {@link MappedWindows}). */
    MappedByteBuffer[] windows() {
        return windows;
    }

    private void store(long pos, byte[] src, int off, int len) {
        MappedWindows.store(windows, pos, src, off, len);
    }

    /**
     * Copies {@code len} published bytes at {@code pos} into {@code dst}: from the mapping, or with a
     * positional read when the file is not mapped (never mapping it: the loader's checks of every sealed
     * segment on open read through here). Any thread.
     */
    void read(long pos, byte[] dst, int off, int len) {
        MappedByteBuffer[] w = windows;
        if (w == UNMAPPED || positionalReads) {
            unmapped.read(pos, dst, off, len);
        } else {
            MappedWindows.read(readable(w), path, pos, dst, off, len);
        }
    }

    /**
     * Has {@link #read} copy with positional reads ({@code pread}) while {@code on}, though the file is mapped; off
     * again, the channel those reads used is closed, so the file keeps the descriptors it had. For the loader, while
     * it recovers an active file that was not closed cleanly: its scan reads past the last frame, where the mapping
     * the writer grew ahead for readers can leave a hole (on a file system under 512 MiB free every frame is a
     * {@code pwrite}, and one torn by a full disk reaches into it). On tmpfs a read of a hole through a shared mapping
     * allocates a page, so on a full tmpfs it faulted, and the JVM's {@link InternalError} escaped {@code Kafko.open};
     * a {@code pread} reads a hole as zeros without allocating anything.
     */
    void readPositionally(boolean on) {
        positionalReads = on;
        if (!on && windows != UNMAPPED) {
            unmapped.dropCached();
        }
    }

    /**
     * {@link MappedWindows#view} of published bytes from {@code pos}. A sealed file not mapped yet is
     * mapped now when the {@link MappingBudget} has room for it; otherwise the result is a heap copy of
     * exactly {@code len} bytes, which nothing ever writes. Any thread.
     */
    ByteBuffer view(long pos, int len) {
        MappedByteBuffer[] w = windows;
        if (w == UNMAPPED && (w = mapForReads()) == UNMAPPED) {
            return unmapped.copy(pos, len);
        }
        return MappedWindows.view(readable(w), path, pos, len);
    }

    /** {@code w}, unless the log closed and the file dropped its windows ({@link #closeWithLog}). */
    private MappedByteBuffer[] readable(MappedByteBuffer[] w) {
        if (w == CLOSED) {
            throw new KafkoClosedException("segment " + path + " is closed (its log was closed, or its topic deleted)");
        }
        return w;
    }

    /**
     * Maps a sealed, unmapped file read-only, if the budget has room for all its windows and it was not
     * released; returns the windows, or {@link #UNMAPPED}. Once per file: under {@link #growth}.
     */
    private MappedByteBuffer[] mapForReads() {
        int n = (int) ((allocated + WINDOW_SIZE - 1) / WINDOW_SIZE);
        growth.lock();
        try {
            MappedByteBuffer[] w = windows;
            if (w != UNMAPPED || released || !share.tryTake(n)) {
                return w;
            }
            w = MappedWindows.mapReadOnly(io, path, allocated);
            if (w == null) {
                share.giveBack();
                return UNMAPPED;
            }
            windows = w;
            return w;
        } finally {
            growth.unlock();
        }
    }

    /** Whether the file's bytes are mapped (else its reads are positional reads); for tests. */
    boolean isMapped() {
        MappedByteBuffer[] w = windows;
        return w != UNMAPPED && w != CLOSED;
    }

    /** Windows this file holds in the {@link MappingBudget}; for tests. */
    int budgetWindows() {
        return share.windows();
    }

    /** Looks at the file system's usable space if it is time to, before a write at {@code now}. Writer only. */
    void checkSpace(long now) {
        space.checkAt(now);
    }

    /**
     * Writes zeros from {@link #allocated} to at least {@code end}, maps them, then publishes the new
     * {@link #allocated}. A writer that has a preparer and caught up with it writes only a short step
     * ({@value ZeroSteps#ALLOCATION_STEP_MIN} bytes, or to the end of the huge piece it reached, see
     * {@link ZeroSteps#caughtUpTarget}), and leaves the next large one to the preparer, beside it: a send never
     * waits for a whole step of zeros (during writeback a step takes tens of milliseconds).
     * Under {@link #growth}.
     */
    private void ensureAllocated(long end) {
        if (end > allocated) {
            allocateTo(preparer == null ? ZeroSteps.grownTarget(allocated, end, allocationLimit)
                    : ZeroSteps.caughtUpTarget(allocated, end, allocationLimit, steps.hugePieces()));
        }
    }

    /** {@link #ensureAllocated} to exactly {@code target}, a page multiple above {@link #allocated}. */
    void allocateTo(long target) {
        long from = allocated;
        FileChannel ch = writableChannel();
        // a writer of large frames writes them with pwrite, which needs no mapped page and waits for the
        // file's lock that every pwrite holds: short pieces of zeros keep those waits short
        boolean huge = steps.hugePieces() && !writingThroughChannel;
        space.look();
        try {
            // real zeros, not setLength: a sparse hole would turn a full disk into SIGBUS on store
            ZeroSteps.write(ch, from, target, huge,
                    steps.syncsZeros() ? ZeroSteps.ZEROS_PER_WRITE_FSYNCED : ZeroSteps.ZEROS_PER_WRITE);
        } catch (IOException e) {
            throw StorageErrors.wrap("allocate " + (target - from) + " bytes of segment", path, e);
        }
        ensureMapped(target);
        allocated = target;
    }

    /**
     * Extends the mapping over at least {@code [0, end)}, growing the file when it is shorter. It maps
     * to the end of the window that holds {@code end} (at most to the segment size, unless the frame
     * itself is larger), so that a window is mapped once, not again at every allocation step: every
     * remap costs an {@code mmap} and fresh page faults on the pages already written. The file grows
     * with a hole there (no block is taken), which nothing stores into before it is filled with zeros.
     */
    private void ensureMapped(long end) {
        if (end <= mapped) {
            return;
        }
        long windowEnd = ((end - 1) / WINDOW_SIZE + 1) * WINDOW_SIZE;
        long target = ZeroSteps.roundUp(Math.max(end, Math.min(windowEnd, allocationLimit)));
        try {
            MappedByteBuffer[] old = windows;
            MappedByteBuffer[] w = MappedWindows.map(writableChannel(), old, mapped, target, true);
            // the writer's windows count, and are never refused (see MappingBudget)
            share.take(w.length - old.length);
            windows = w;
            mapped = target;
        } catch (IOException e) {
            throw StorageErrors.wrap("map " + target + " bytes of segment", path, e);
        }
    }

    /** fdatasync of the file. Writer only. */
    void force() {
        FileChannel ch = channel;
        if (ch == null) {
            return;
        }
        try {
            ch.force(false);
        } catch (IOException e) {
            throw StorageErrors.wrap("fsync", path, e);
        }
    }

    /** Cuts the file to {@code size} bytes (dropping zeros allocated ahead) and forces it. Writer only. */
    void truncateAndForce(long size) {
        truncate(size);
        forceWithMetadata();
    }

    /** Cuts the file to {@code size} bytes (dropping zeros allocated ahead), without an fsync. Writer only. */
    void truncate(long size) {
        growth.lock();
        try {
            FileChannel ch = writableChannel();
            if (ch.size() > size) {
                ch.truncate(size);
            }
            allocated = Math.min(allocated, size);
            steps.truncated(size);
            // pages of the old mapping past the new end must never be touched again: remap first
            mapped = Math.min(mapped, size);
        } catch (IOException e) {
            throw StorageErrors.wrap("truncate to " + size + " bytes", path, e);
        } finally {
            growth.unlock();
        }
    }

    /** fsync of the file, its size included. Any one thread while the file is open. */
    void forceWithMetadata() {
        try {
            writableChannel().force(true);
        } catch (IOException e) {
            throw StorageErrors.wrap("fsync", path, e);
        }
    }

    /**
     * A copy of {@code len} published bytes at {@code pos}, read with {@code pread} (see
     * {@link TailReads}), or null when the file is no longer written or the read failed: the caller
     * then reads the mapping. Any thread.
     */
    @Nullable ByteBuffer readCopy(long pos, int len) {
        return isWritable() ? tailReads.copy(pos, len) : null;
    }

    /**
     * Releases the channel; the mapped windows remain readable. For a file being written (a seal, or its
     * log's close): it keeps its windows while the {@link MappingBudget} is within its limit, else drops
     * them, and its reads then go as those of a sealed file opened from disk. For a sealed file (it is
     * deleted, or closed with its log): the file is released, its windows go back to the budget (a
     * reader that holds them reads on) and it is never mapped again. Writer only.
     */
    void closeChannel() {
        growth.lock();
        FileChannel ch;
        try {
            appendsEnded = true;
            ch = channel;
            channel = null;
            if (ch == null) {
                released = true;
                share.release();
            } else if (MappingBudget.overLimit()) {
                windows = UNMAPPED;
                mapped = 0;
                share.giveBack();
            }
        } finally {
            growth.unlock();
        }
        tailReads.close();
        steps.close();
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                throw StorageErrors.wrap("close", path, e);
            }
        }
    }

    /**
     * After {@link #closeChannel}, when the file's log closes (a close of the instance, or its topic's deletion):
     * the file lets go of its windows for good, and its budget share with them. Whatever still reaches this
     * file (a handle an application keeps to the deleted topic or the closed instance, a consumer's
     * {@link VerifiedFrame}) then keeps no mapping, nor the blocks of a deleted file, past the next collection.
     * Nothing is unmapped by force: a reader that took the windows before reads on (the mapping stays valid
     * while it holds them, as records that slice it do), and a read that comes after fails with
     * {@link KafkoClosedException}, as a read of the closed log does. The preparer touches no page past
     * {@link #appendsEnded}. Writer only; idempotent.
     */
    void closeWithLog() {
        growth.lock();
        try {
            appendsEnded = true;
            released = true;
            windows = CLOSED;
            mapped = 0;
        } finally {
            growth.unlock();
        }
        share.release();
    }

    boolean isWritable() {
        return channel != null;
    }

    private FileChannel writableChannel() {
        FileChannel ch = channel;
        if (ch == null) {
            throw new IllegalStateException(path + " is sealed");
        }
        return ch;
    }
}
