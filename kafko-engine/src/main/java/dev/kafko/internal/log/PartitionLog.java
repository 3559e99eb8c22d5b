package dev.kafko.internal.log;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoStorageException;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionFailedException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import java.io.Closeable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the durable log of one partition: its segments, indexes and recovery.
 *
 * <p>Threading: one writer. {@link #append}, {@link #flush}, {@link #applyRetention} and
 * {@link #close} are called by the partition's current owner only, one at a time. {@link #read},
 * {@link #offsetForTimestamp} and the size getters may be called from any thread at any time,
 * concurrently with the writer; they see every append that returned before they started.
 * The single-writer rule is checked: a writer call made while another is inside fails with
 * {@link IllegalStateException} (a check without a fence, which two calls entering at the same instant
 * can pass; the caller's ownership of the partition is what keeps writers apart).
 *
 * <p>Durability: when {@link #append} returns, the frame is in the page cache (stored into a
 * shared memory mapping of the segment), so it survives a crash of the JVM; {@link #flush} makes
 * it survive a crash of the machine (fdatasync). Rolled segments and {@link #close} are fsynced
 * (a log opened without {@code forceSeals} forces its rolled segments at the next flush or close
 * instead of at the roll).
 * A log opened with a background {@link Executor} has the steps of zeros of its active segment
 * written and page-touched ahead of the writer on that executor (see {@link SegmentFile}), so that the
 * writer's stores land on mapped, resident pages; and it seals every rolled segment there too (the
 * fsync of the whole segment, then its index files), while the writer goes on in the next one (see
 * {@link Rolls}). The log waits for that seal wherever it matters: a
 * {@link #flush} (so a flushed record never follows a segment that is not durable), {@link #close},
 * the next roll, retention. Until the seal has written the rolled segment's {@code .index} file, the
 * loader treats a hole in it as a roll that a crash cut short: it cuts the segment there and deletes
 * the newer one, which then held nothing flushed.
 *
 * <p>Failure policy: fail fast. An I/O error in a writer call (for example a full disk while
 * allocating blocks ahead of the writer, or a failed fsync) is thrown once as the
 * {@link dev.kafko.KafkoStorageException} naming the file; from then on every call except
 * {@link #close} and the getters throws {@link PartitionFailedException} with that exception as
 * its cause, and {@link #failure()} returns it. Nothing acknowledged is lost: a failed append
 * never published its frame, and the next {@link #open} recovers the log to its last complete
 * frame (a failed log closes without the clean-shutdown marker, so reopening always CRC-scans).
 * An fsync that failed cannot be retried safely (the kernel may have dropped the dirty pages),
 * which is why the log does not try to carry on in place.
 */
public final class PartitionLog implements Closeable {

    private static final VarHandle SIZE_BYTES;

    static {
        try {
            SIZE_BYTES = MethodHandles.lookup().findVarHandle(PartitionLog.class, "sizeBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String topic;
    private final int partition;
    private final String name;
    private final Path dir;
    private final FileIo io;
    /** Replaced by {@link #reconfigure}. Writer only (outside readers ask the topic). */
    private TopicConfig config;
    private final Clock clock;
    /** Replaced by {@link #reconfigure} when the codec or the largest record changes. Writer only. */
    private FrameEncoder encoder;
    /** Writer only. */
    private long segmentAgeMillis;
    /** The seals of rolled segments, pending or unforced. Writer only. */
    private final Seals seals;
    /** The rolls of the active segment. Writer only. */
    private final Rolls rolls;
    /** The deletions of retention. Writer only. */
    private final Retention retention;
    /**
     * The thread in a writer call, or null: a check of the single-writer rule, which the caller (the
     * partition's owner flag) enforces. Plain reads and writes, no fence: every writer takes that flag
     * first, whose release and acquire make the last writer's {@code null} visible to the next, and a
     * thread that calls in while another is inside finds it there unless both enter within a few
     * instructions of each other. Cleared with a plain write on exit (never a call, which a thread out of
     * stack could fail: the log would then refuse every later writer).
     */
    private @Nullable Thread writer;
    /** Oldest first; replaced as a whole (copy on write) by the writer on roll and retention. */
    private volatile Segment[] segments;
    private volatile long endOffset;
    private volatile long sizeBytes;
    private volatile @Nullable Throwable failure;
    private volatile boolean closed;
    /** The clean-shutdown marker, the clean close and the directory fsyncs. Writer only. */
    private final PartitionDirectory directory;
    /** The compactions of this log: prepared on any thread, applied by the writer. */
    private final Compaction compaction;
    /**
     * Held by a compaction from the release of a segment's old file to the publication of the segment that replaces
     * it ({@link Compaction#apply}); a reader that found its segment released takes it to see that one.
     */
    final Object swapLock = new Object();

    private PartitionLog(String topic, int partition, Path dir, TopicConfig config, Clock clock, FileIo io,
            @Nullable Executor preparer, boolean forceSeals, LogLoader.Loaded loaded) {
        this.topic = topic;
        this.partition = partition;
        this.name = topic + "-" + partition;
        this.dir = dir;
        this.io = io;
        this.config = config;
        this.clock = clock;
        this.seals = new Seals(io, dir, preparer, forceSeals, new Function<>() {
            @Override
            public RuntimeException apply(Throwable e) {
                return fail(e);
            }
        });
        this.segments = loaded.segments().toArray(new Segment[0]);
        Segment last = segments[segments.length - 1];
        this.directory = new PartitionDirectory(io, dir, loaded.markerKept(), loaded.directorySyncPending(),
                last.baseOffset());
        this.rolls = new Rolls(this, io, dir, preparer, seals, directory);
        this.retention = new Retention(this, io, dir, clock, seals, directory, rolls);
        this.compaction = new Compaction(this, io, dir, name);
        this.endOffset = last.nextOffset();
        long bytes = 0;
        for (Segment s : segments) {
            bytes += s.size();
        }
        this.sizeBytes = bytes;
        this.encoder = new FrameEncoder(name, config.compression(), config.maxRecordBytes());
        rolls.prepare(last.file());
        this.segmentAgeMillis = config.segmentAge().toMillis();
    }

    /**
     * Opens (creating if needed) the log in {@code dir}, recovering it when it was not closed cleanly.
     * The writer allocates and maps the segment's pages itself.
     */
    public static PartitionLog open(String topic, int partition, Path dir, TopicConfig config, Clock clock, FileIo io) {
        return open(topic, partition, dir, config, clock, io, null);
    }

    /**
     * Opens the log like {@link #open(String, int, Path, TopicConfig, Clock, FileIo)}; with a
     * {@code preparer}, the next step of zeros of the active segment is written and page-touched on
     * the preparer's thread while the writer stores into the step before (see the class comment).
     */
    public static PartitionLog open(String topic, int partition, Path dir, TopicConfig config, Clock clock, FileIo io,
            @Nullable Executor preparer) {
        return open(topic, partition, dir, config, clock, io, preparer, true);
    }

    /**
     * Opens the log like {@link #open(String, int, Path, TopicConfig, Clock, FileIo, Executor)};
     * {@code forceSeals} false seals a rolled segment without an fsync (its index files are written,
     * its data stays in the page cache) and forces it only at the next {@link #flush} or at
     * {@link #close}, so that a writer never waits for a whole segment's writeback at a roll. Only
     * for a directory that does not outlive its use, and for a topic whose policy is
     * {@link dev.kafko.FsyncPolicy#NEVER}: a machine crash may then leave index files that describe
     * bytes the disk never got. A crash of the process loses nothing either way.
     */
    public static PartitionLog open(String topic, int partition, Path dir, TopicConfig config, Clock clock, FileIo io,
            @Nullable Executor preparer, boolean forceSeals) {
        String name = topic + "-" + partition;
        LogLoader.Loaded loaded = LogLoader.load(name, dir, config, clock.millis(), io);
        try {
            return new PartitionLog(topic, partition, dir, config, clock, io, preparer, forceSeals, loaded);
        } catch (RuntimeException | Error e) {
            SegmentFiles.closeAllAfter(loaded.segments().toArray(new Segment[0]), e);
            throw e;
        }
    }

    /** Appends the records as one frame; returns the offset of the first. Owner thread only. */
    public long append(List<OutgoingRecord> records) {
        enterWriter();
        try {
            checkUsable();
            long base = endOffset;
            long now = clock.millis();
            int length;
            try {
                length = encoder.encode(records, base, now);
            } catch (StackOverflowError e) {
                throw outOfStack(e);
            }
            return store(base, records.size(), length, now);
        } finally {
            try {
                encoder.trim();
            } finally {
                writer = null;
            }
        }
    }

    /** Appends one record as one frame; returns its offset. Owner thread only. */
    public long append(OutgoingRecord record) {
        enterWriter();
        try {
            checkUsable();
            long base = endOffset;
            long now = clock.millis();
            int length;
            try {
                length = encoder.encode(record, base, now);
            } catch (StackOverflowError e) {
                throw outOfStack(e);
            }
            return store(base, 1, length, now);
        } finally {
            try {
                encoder.trim();
            } finally {
                writer = null;
            }
        }
    }

    private long store(long base, int count, int length, long now) {
        Segment active;
        boolean rolled = false;
        try {
            if (directory.markerOnDisk()) {
                directory.dropCleanMarker();
            }
            active = segments[segments.length - 1];
            // the index keeps offsets relative to the segment's base in 32 bits: a compressed segment of tiny
            // records can hold more (2^25 empty records take 8 MiB with zstd), so it rolls first, as Kafka's do
            if (!active.isEmpty() && ((long) active.size() + length > config.segmentBytes()
                    || now - active.ageBase() > segmentAgeMillis
                    || base + count - 1 - active.baseOffset() > Integer.MAX_VALUE)) {
                active = rolls.roll(active, now);
            }
            rolled = true;
            active.write(encoder.buffer(), length, now);
        } catch (StackOverflowError e) {
            if (rolled) {
                // the deepest calls of an append, where a thread short of stack runs out; past the published end
                throw outOfStack(e);
            }
            // a roll half done: recorded without a call, which a thread out of stack could fail
            if (failure == null) {
                failure = e;
            }
            throw e;
        } catch (OutOfMemoryError e) {
            if (rolled) {
                // the heap or the direct memory (a staging buffer of a large frame) ran out storing past the
                // published end, as a stack may: nothing anyone sees changed, and the next write stores over it
                throw outOfMemory(e);
            }
            if (failure == null) {
                failure = e; // a roll half done
            }
            throw e;
        } catch (RuntimeException e) {
            // a write or a roll that failed in any way may have left the files half changed
            throw fail(e);
        } catch (Error e) {
            // recorded without a call, which a thread out of stack could fail
            if (failure == null) {
                failure = e;
            }
            throw e;
        }
        try {
            active.publish(length, base, count, encoder.maxTimestamp(), now);
            // publish to readers: the segment's size was published first, so every offset below is readable
            SIZE_BYTES.setRelease(this, sizeBytes + length);
            endOffset = base + count;
        } catch (Error e) {
            // half published (a thread out of stack between two of these writes): the next append would
            // reuse offsets that a frame already holds. Recorded without a call, which could fail too
            if (failure == null) {
                failure = e;
            }
            throw e;
        }
        return base;
    }

    /** Adds {@code next}, the segment a roll created, after the active one. Owner thread only, in a roll ({@link Rolls}). */
    void addSegment(Segment next) {
        // in the log at once: whatever fails after this, the log's close closes the file it holds
        Segment[] s = Arrays.copyOf(segments, segments.length + 1);
        s[s.length - 1] = next;
        segments = s;
        // the new file's name (and the index files') become durable with the next flush or close
        directory.segmentCreated();
        // its header counts, as it does for the segments a reopen finds and those retention deletes
        sizeBytes += next.size();
    }

    /**
     * Replaces the segments with {@code replacement} and changes the size by {@code sizeChange}: the
     * segments first. Owner thread only, in a retention ({@link Retention}) or a compaction ({@link Compaction}).
     */
    void replaceSegments(Segment[] replacement, long sizeChange) {
        segments = replacement;
        sizeBytes += sizeChange;
    }

    /** The topic config this log writes by. Writer only ({@link Rolls} and {@link Retention} inside its calls). */
    TopicConfig config() {
        return config;
    }

    /**
     * Writes by {@code next} from now on (the topic's config was changed): the codec and the largest record from
     * the next append, the segment size and age from the next roll's check, the index interval and how zeros are
     * written ahead from the next segment, the retention limits from the next retention run, and with
     * {@code forceSeals} whether later seals are forced. The partition count is not the log's business. A closed
     * log only takes note. Owner thread only.
     */
    public void reconfigure(TopicConfig next, boolean forceSeals) {
        enterWriter();
        try {
            if (!closed && (next.compression() != config.compression() || next.maxRecordBytes() != config.maxRecordBytes())) {
                FrameEncoder previous = encoder;
                encoder = new FrameEncoder(name, next.compression(), next.maxRecordBytes());
                previous.close();
            }
            config = next;
            segmentAgeMillis = next.segmentAge().toMillis();
            seals.forceFromNow(forceSeals);
        } finally {
            writer = null;
        }
    }

    /** Forces every appended byte to disk (fdatasync). Owner thread only. */
    public void flush() {
        enterWriter();
        try {
            checkUsable();
            try {
                // the rolled segment durable and indexed first, then the directory makes its index
                // files' names durable: a flushed record never follows a segment that is not
                seals.makeDurable();
                // a flushed record must not sit in a file whose directory entry a power loss forgets
                directory.syncIfPending();
                segments[segments.length - 1].flush();
            } catch (RuntimeException e) {
                throw fail(e);
            }
        } finally {
            writer = null;
        }
    }

    /**
     * Records from {@code offset} on, at most {@code maxRecords} and about {@code maxBytes} (at
     * least one record when there is one). Any thread.
     *
     * @throws OffsetOutOfRangeException when {@code offset} is below {@link #logStartOffset()} or
     *     above {@link #endOffset()}; a read at the end returns no records
     * @throws dev.kafko.CorruptLogException when a frame fails its checks (names the file and
     *     position), when {@code offset} belongs to a segment whose header is damaged, or when it
     *     belongs to a segment but no frame holds it (a damaged sealed segment lost it; names the file
     *     and the missing offsets). The records returned start exactly at {@code offset}, or, in a
     *     compacted segment, at the first record kept after it (its gap frames stand for the offsets whose
     *     records were removed): lost offsets are never skipped silently. A consumer gets this exception from
     *     {@code poll}; it may seek past the missing offsets. The result's next offset is past the gap frames read,
     *     so a read that passed only those returns no record and a next offset above {@code offset}.
     */
    public ReadResult read(long offset, int maxRecords, int maxBytes) {
        return read(offset, maxRecords, maxBytes, null);
    }

    /**
     * {@link #read(long, int, int)} for a reader that keeps {@code verified} from one read to the next:
     * a read that starts inside the frame the previous one checked does not check its CRC again.
     */
    public ReadResult read(long offset, int maxRecords, int maxBytes, @Nullable VerifiedFrame verified) {
        checkUsable();
        return LogReads.read(this, offset, maxRecords, maxBytes, verified);
    }

    /**
     * The segments once a compaction's swap in progress has ended ({@link Compaction#apply}, under {@link #swapLock}):
     * for a reader that found its segment released, which waits for the segment put in its place. Any thread.
     */
    Segment[] swappedSegments() {
        synchronized (swapLock) {
            return segments;
        }
    }

    /** The first offset whose record has a timestamp at or after {@code epochMillis}, or {@link #endOffset()}. */
    public long offsetForTimestamp(long epochMillis) {
        checkUsable();
        return TimestampLookup.offsetFor(this, epochMillis);
    }

    /** {@link #applyRetention(int)} of every segment the retention limits delete. Owner thread only. */
    public int applyRetention() {
        return applyRetention(Integer.MAX_VALUE);
    }

    /**
     * Deletes the segments {@link RetentionRule} says the retention limits delete, the oldest
     * {@code maxSegments} of them at most (each deletion is a file-system call the log's appends wait for); when
     * that is every segment, the active one included, the log first rolls, and continues, empty, at its end
     * offset. Returns how many segments were deleted. Owner thread only.
     */
    public int applyRetention(int maxSegments) {
        enterWriter();
        try {
            checkUsable();
            return retention.apply(maxSegments);
        } finally {
            writer = null;
        }
    }

    /** The compactions of this log: whether one is due, and its preparation off the writer ({@link Compaction}). */
    public Compaction compaction() {
        return compaction;
    }

    /**
     * Puts the segments of {@code plan} in place (see {@link Compaction#apply}); returns the records removed by those
     * it put in place (fewer than the plan's when retention deleted some of its segments meanwhile). Owner thread only.
     * A plan made before the log failed or closed is discarded; so is one made before the topic's cleanup policy
     * stopped compacting ({@link #reconfigure}), which puts none in place.
     */
    public long applyCompaction(CompactionPlan plan, boolean force) {
        enterWriter();
        try {
            if (failure != null || closed) {
                plan.discard(io);
                checkUsable();
            }
            return compaction.apply(plan, config, seals, directory, force);
        } finally {
            writer = null;
        }
    }

    public long logStartOffset() {
        return segments[0].baseOffset();
    }

    public long endOffset() {
        return endOffset;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public int segmentCount() {
        return segments.length;
    }

    /** The I/O error that failed this log, or {@code null} while it works. Any thread. */
    public @Nullable Throwable failure() {
        return failure;
    }

    /** Whether an earlier I/O error failed this log (see the failure policy above). Any thread. */
    public boolean isFailed() {
        return failure != null;
    }

    /** The current segments, oldest first; for tests and introspection. */
    Segment[] segments() {
        return segments;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    public Path directory() {
        return dir;
    }

    /**
     * Makes every append durable, writes the index files and the clean-shutdown marker and releases
     * every file; costs two fsyncs (the active segment, then the directory), or none when nothing
     * was appended since a clean open (the marker on disk still describes the files). Owner thread only.
     */
    @Override
    public void close() {
        close(true);
    }

    /**
     * {@link #close()}, or with {@code durable} false, for a directory deleted right after: every file released
     * with nothing forced and nothing written for a later open, which would recover the log as after a crash of
     * the process. Owner thread only.
     */
    public void close(boolean durable) {
        enterWriter();
        try {
            if (closed) {
                return;
            }
            closed = true;
            encoder.close();
            // before any channel closes. A failed seal failed the log when it failed (fail(), as
            // any I/O error of the writer would): the close below then leaves it unclean
            seals.awaitAllQuietly();
            try {
                directory.close(segments, seals, durable && failure == null);
            } catch (RuntimeException e) {
                throw fail(e);
            } catch (Error e) {
                if (failure == null) {
                    failure = e;
                }
                throw e;
            }
        } finally {
            writer = null;
        }
    }

    /**
     * The failure of an append whose thread ran out of stack before anything of it was published (it
     * encoded, or stored past the published end): the log is as it was, and goes on.
     */
    private KafkoException outOfStack(StackOverflowError e) {
        return new KafkoException("the thread appending to " + name + " ran out of stack; nothing of the append"
                + " was written (the sending thread was deep in a recursion of its own: send from a loop, or through an"
                + " executor)", e);
    }

    /**
     * Fails this log for a fault the JVM reported late: a store into a mapped page of a segment faulted ({@code
     * SIGBUS}: a file system that went read-only under the writer, an aborted journal, no space for the page) and
     * the JVM threw the {@link InternalError} where the writer then was, after the append had returned. A frame
     * published since may be torn, so the log refuses further work and closes unclean: the next open CRC-scans it
     * and cuts the torn frame. Any thread.
     */
    public void failLate(InternalError e) {
        fail(new KafkoStorageException(name + ": a store into a mapped segment file faulted (the JVM reported it"
                + " after the append had returned: " + e + "); the log may hold a torn frame and refuses further work"
                + " until reopened", e));
    }

    /**
     * The failure of an append that ran out of memory while it stored its frame past the published end: the log
     * is as it was, and goes on (a smaller frame, or the same once memory is back, may be written).
     */
    private KafkoException outOfMemory(OutOfMemoryError e) {
        return new KafkoException("the append to " + name + " ran out of memory (" + e.getMessage()
                + "); nothing of it was written", e);
    }

    /** Records the first failure (any thread: a seal may fail in the background) and returns it to throw. */
    RuntimeException fail(Throwable e) {
        if (failure == null) {
            failure = e;
        }
        if (e instanceof RuntimeException r) {
            return r;
        }
        return new PartitionFailedException(name + " failed: " + e, e);
    }

    /** Throws when the log failed or closed. Any thread. */
    void checkUsable() {
        Throwable f = failure;
        if (f != null) {
            throw new PartitionFailedException(name + " failed earlier and refuses further work: " + f.getMessage(), f);
        }
        if (closed) {
            throw new KafkoClosedException(name + " is closed");
        }
    }

    private void enterWriter() {
        Thread current = Thread.currentThread();
        Thread other = writer;
        if (other == null) {
            writer = current;
        } else {
            throw new IllegalStateException("single-writer rule broken on " + name + ": " + current.getName()
                    + " called a writer method while " + other.getName() + " is in one");
        }
    }
}
