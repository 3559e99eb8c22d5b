package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the seals of one log's rolled segments. A rolled segment is sealed (fsync, then index
 * files) on the background executor, up to {@link #MAX_PENDING} at a time and in roll order, or by
 * the writer at once when the log has no executor (or it refuses the work); a log opened without
 * {@code force} writes the index files without an fsync and forces those segments at the next
 * {@link #makeDurable} or {@link #forceUnforced}.
 * Writer only: every method runs on the log's writer, inside a writer call.
 */
final class Seals {

    /**
     * Rolled segments whose seal may still run in the background; a roll beyond that waits for the
     * oldest. {@link LogLoader} looks this far back for a roll cut short.
     */
    static final int MAX_PENDING = 4;

    private final FileIo io;
    private final Path dir;
    private final @Nullable Executor background;
    /** Changed by {@link #forceFromNow}. Writer only. */
    private boolean force;
    /** Records a failure as the log's, and returns what to throw. */
    private final Function<Throwable, RuntimeException> fail;
    /** Seals the writer has not yet seen end, oldest first; at most {@link #MAX_PENDING}. */
    private final ArrayDeque<PendingSeal> pending = new ArrayDeque<>(MAX_PENDING);
    /** Segments sealed without an fsync, oldest first. */
    private final ArrayList<Segment> unforced = new ArrayList<>();

    Seals(FileIo io, Path dir, @Nullable Executor background, boolean force,
          Function<Throwable, RuntimeException> fail) {
        this.io = io;
        this.dir = dir;
        this.background = background;
        this.force = force;
        this.fail = fail;
    }

    /**
     * Whether the seals of later rolls are forced (the topic's fsync policy changed): those sealed unforced
     * before are forced at the next {@link #makeDurable}, as before. Writer only.
     */
    void forceFromNow(boolean force) {
        this.force = force;
    }

    /** Before a roll: a writer that outruns the disk waits here for the oldest seal. */
    void awaitRoom() {
        while (pending.size() >= MAX_PENDING) {
            await(pending.pollFirst());
        }
    }

    /**
     * Seals {@code rolled}, whose appends have ended: in the background when there is an executor,
     * here otherwise, and without an fsync when the log does not force its seals.
     */
    void seal(Segment rolled) {
        if (!force) {
            // no fsync to wait for: the seal costs two small files, here; a flush or close forces the data
            sealUnforced(rolled);
            unforced.add(rolled);
            return;
        }
        PendingSeal seal = new PendingSeal(rolled, io, dir, pending.peekLast(), fail::apply);
        pending.addLast(seal);
        if (background == null) {
            awaitAll();
            return;
        }
        try {
            background.execute(seal);
        } catch (RejectedExecutionException e) {
            awaitAll();
        }
    }

    /** Every rolled segment durable and indexed, oldest first: before a flush returns. */
    void makeDurable() {
        awaitAll();
        forceUnforced();
    }

    /** Waits for the seals, oldest first, until at most {@code keep} remain: before retention deletes segments. */
    void awaitUntil(int keep) {
        while (pending.size() > keep) {
            await(pending.pollFirst());
        }
    }

    /**
     * Notes that a compaction put {@code next} in place of {@code olds} (one segment rewritten, or neighbours merged):
     * the old ones sealed without an fsync are forced no more (a merge deleted the files of all but the first), and
     * {@code next}, at the first one's path, is forced in their place when any of them was to be.
     */
    void replaced(List<Segment> olds, Segment next) {
        int at = -1;
        for (Segment old : olds) {
            int i = unforced.indexOf(old);
            if (i >= 0) {
                unforced.remove(i);
                at = at < 0 ? i : Math.min(at, i);
            }
        }
        if (at >= 0) {
            unforced.add(at, next);
        }
    }

    /** Forgets the unforced segments below {@code logStart}, which retention deleted. */
    void deletedBelow(long logStart) {
        unforced.removeIf(s -> s.baseOffset() < logStart);
    }

    /**
     * Waits for every pending seal without throwing: at close, before any channel closes. A failed
     * seal failed the log when it failed, so the close leaves the log unclean.
     */
    void awaitAllQuietly() {
        for (PendingSeal seal = pending.pollFirst(); seal != null; seal = pending.pollFirst()) {
            seal.await();
        }
    }

    /** Forces the segments sealed without an fsync, oldest first. */
    void forceUnforced() {
        while (!unforced.isEmpty()) {
            SegmentFiles.force(io, unforced.get(0).path());
            unforced.remove(0);
        }
    }

    /**
     * Seals {@code rolled} like {@link PendingSeal} without any fsync: the index files are written and the
     * channel released, and the data stays in the page cache until {@link #forceUnforced}, which forces it
     * through a channel of its own. Only for a log whose directory does not outlive its use (a machine crash
     * may leave index files that describe bytes the disk never got); a crash of the process loses nothing.
     */
    private void sealUnforced(Segment rolled) {
        rolled.writeIndexFiles(io, dir, false);
        rolled.file().closeChannel();
    }

    /** Waits for every pending seal, oldest first, running each here when no thread has; throws the first failure. */
    private void awaitAll() {
        for (PendingSeal seal = pending.pollFirst(); seal != null; seal = pending.pollFirst()) {
            await(seal);
        }
    }

    private void await(PendingSeal seal) {
        Throwable failed = seal.await();
        if (failed != null) {
            throw fail.apply(failed);
        }
    }
}
