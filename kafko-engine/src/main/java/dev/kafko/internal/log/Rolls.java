package dev.kafko.internal.log;

import dev.kafko.FsyncPolicy;
import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the roll of one log's active segment: the old one's appends end and it goes to {@link Seals},
 * the next one is created, added to the log and handed to the preparer. Writer only: every method runs on
 * the log's writer, inside a writer call (an append that finds the segment full or old, or retention).
 */
final class Rolls {

    private final PartitionLog log;
    private final FileIo io;
    private final Path dir;
    private final @Nullable Executor preparer;
    private final Seals seals;
    private final PartitionDirectory directory;

    Rolls(PartitionLog log, FileIo io, Path dir, @Nullable Executor preparer, Seals seals, PartitionDirectory directory) {
        this.log = log;
        this.io = io;
        this.dir = dir;
        this.preparer = preparer;
        this.seals = seals;
        this.directory = directory;
    }

    /**
     * Seals {@code active} and starts the next segment, which it returns. The seal runs in the background when
     * the log has an executor: a writer that fsynced a whole rolled segment itself would stall for as long as
     * the disk takes to write it back (0.5-0.8 s for a 1 GiB segment here, every 1 GiB of records),
     * while beside the fsync it goes on at about its usual rate (BENCHMARKS, Session 21). Up to
     * {@link Seals#MAX_PENDING} background seals may be pending: a burst goes on at page-cache speed
     * while the disk catches up, and a writer that outruns the disk for longer waits for the oldest
     * seal here.
     */
    Segment roll(Segment active, long now) {
        // a bounded number of seals in flight: a writer that outruns the disk for long waits here
        seals.awaitRoom();
        // the first step of the seal, on the writer: no append follows, and the zeros allocated ahead are cut
        active.file().endAppends();
        active.file().truncate(active.size());
        directory.dropActiveIndexFiles(active.baseOffset());
        Segment next = LogLoader.create(dir, active.nextOffset(), log.config(), now, io);
        log.addSegment(next);
        prepare(next.file());
        seals.seal(active);
        return next;
    }

    /**
     * Hands the active segment's file to the preparer. Under any policy but {@link FsyncPolicy#NEVER}
     * the preparer fsyncs its zeros and never writes huge pieces ({@link StepsAhead#fsyncedAsAppended}):
     * the first store into a clean huge folio dirties all of it, so each fsync of a partition that
     * fsyncs often would write 2 MiB back (about 1.2 ms a round here, against 0.3 ms with 256 KiB pieces).
     */
    void prepare(SegmentFile file) {
        file.prepareWith(preparer);
        if (log.config().fsync() != FsyncPolicy.NEVER) {
            file.steps().fsyncedAsAppended();
        }
    }
}
