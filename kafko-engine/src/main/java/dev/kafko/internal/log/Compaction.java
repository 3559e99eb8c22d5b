package dev.kafko.internal.log;

import static dev.kafko.internal.log.FrameFormat.BASE_OFFSET_OFFSET;
import static dev.kafko.internal.log.FrameFormat.FIRST_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.HEADER_SIZE;
import static dev.kafko.internal.log.FrameFormat.MAX_TIMESTAMP_OFFSET;
import static dev.kafko.internal.log.FrameFormat.RECORD_COUNT_OFFSET;
import static dev.kafko.internal.log.FrameFormat.SEGMENT_HEADER_SIZE;

import dev.kafko.CorruptLogException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.io.StorageErrors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;

/**
 * Internal: the compaction of one log (Kafka's log cleaner, for one partition): the records of a key older than
 * its latest are removed from the segments before the active one, and a latest record that is a tombstone once it
 * is older than the topic's {@code deleteRetention}. Records without a key are kept.
 *
 * <p>Two halves. {@link #prepare} runs on any thread but the writer's (it reads only sealed segments, which never
 * change): it finds the latest offset of every key in the cleanable segments (those before the active one, up to the
 * first holding a record younger than {@code minCompactionLag}), then writes each segment that loses records anew,
 * beside the old one ({@code <base>.log.tmp}): the kept records in frames of the topic's codec, each run of removed
 * offsets as one gap frame ({@link FrameFormat}), so that the new file covers exactly the offsets of the old one. The
 * new file is fsynced (unless the log does not force its seals) and CRC-scanned from disk before it is offered.
 * {@link #apply}, on the writer, puts each new file in place of its old one: the old file released (so that no read
 * of the old segment opens the path the new file is renamed to), the old index files deleted, the new file renamed
 * over the old one (atomic: a crash leaves one or the other, and an open rebuilds the missing index), the new segment
 * in the log, then a directory fsync. Readers that hold the old segment keep reading its mapping, or, not mapped,
 * wait for the new one and read again from it ({@link PartitionLog#read}). A plan is not applied once the topic's
 * cleanup policy stopped compacting.
 *
 * <p>Neighbouring cleanable segments whose sizes add up to at most the topic's {@code segmentBytes} are merged into
 * one new file at the first one's base offset (Kafka's cleaner groups them so), whether or not they lose a record:
 * what one compaction shrank, the next merges. A merged file goes in place through its swap name (see
 * {@link #apply}), and an open finishes a merge a crash cut short ({@link SegmentLayoutRepairs#finishMerges}).
 */
public final class Compaction {

    /** The most bytes of records (before compression) a frame of a rewritten segment holds. */
    static final int FRAME_BYTES = 1 << 20;
    /** The most records a frame of a rewritten segment holds. */
    static final int FRAME_RECORDS = 1 << 16;

    private final PartitionLog log;
    private final FileIo io;
    private final Path dir;
    private final String name;
    /** The offset up to which the segments were compacted since the log opened (the log start before any). */
    private volatile long compactedTo;
    /**
     * Where the next pass begins to look at keys: the end of the last pass, applied whole, whose keys did not all fit;
     * -1: at the log's start. The records before it are one per key (the passes before removed the others).
     */
    private volatile long passFrom = -1;
    /** The longest a segment's rewrite may be (a segment file's largest size; tests set less). */
    private long rewriteLimit = TopicConfig.MAX_SEGMENT_BYTES;

    Compaction(PartitionLog log, FileIo io, Path dir, String name) {
        this.log = log;
        this.io = io;
        this.dir = dir;
        this.name = name;
        this.compactedTo = log.logStartOffset();
    }

    /**
     * Whether a compaction under {@code config} is due at {@code now}: the sealed segments it may look at hold a
     * segment not compacted since the log opened, and those hold at least {@code minCleanableDirtyRatio} of the
     * bytes of the sealed ones it may look at. Any thread.
     */
    public boolean due(TopicConfig config, long now) {
        Segment[] segs = log.segments();
        int n = cleanableCount(segs, config, now);
        long dirty = 0;
        long total = 0;
        long from = compactedTo;
        for (int i = 0; i < n; i++) {
            total += segs[i].size();
            if (segs[i].nextOffset() > from) {
                dirty += segs[i].size();
            }
        }
        return dirty > 0 && dirty >= config.minCleanableDirtyRatio() * total;
    }

    /**
     * Notes that the records before {@code plan}'s end were looked at by a compaction pass (its plan applied, or
     * empty): they are not dirty again until a later record is; if the pass was {@linkplain CompactionPlan#partial()
     * partial} and {@code whole} (none of its rewrites was dropped), the next pass goes on from its end, else from the
     * log's start. Any thread; compactions of one log run one at a time.
     */
    public void noteCompacted(CompactionPlan plan, boolean whole) {
        long end = plan.cleanableEnd();
        passFrom = plan.partial() && whole ? end : -1;
        if (end > compactedTo) {
            compactedTo = end;
        }
    }

    /** Sets the longest a segment's rewrite may be (tests: a rewrite too long without writing 2 GiB). */
    void limitRewrites(long bytes) {
        rewriteLimit = bytes;
    }

    /**
     * Whether the last pass stopped where its keys filled its buffer and was applied whole, so that a next pass goes
     * on from there. Any thread.
     */
    public boolean passesLeft() {
        return passFrom >= 0;
    }

    /**
     * The sealed segments compaction may look at now: from the first, up to the first younger than the lag; without a
     * lag every sealed one, as Kafka's cleaner looks at timestamps only for a {@code min.compaction.lag.ms} above 0 (a
     * record stamped ahead of the clock would otherwise stop the compaction of the partition until that time).
     */
    static int cleanableCount(Segment[] segs, TopicConfig config, long now) {
        long lag = config.minCompactionLag().toMillis();
        if (lag == 0) {
            return Math.max(segs.length - 1, 0);
        }
        long limit = lag > now ? Long.MIN_VALUE : now - lag;
        int n = 0;
        while (n < segs.length - 1 && segs[n].maxTimestamp() <= limit) {
            n++;
        }
        return n;
    }

    /** {@link #prepare(TopicConfig, long, boolean, long, BooleanSupplier)} with the default key budget. */
    public CompactionPlan prepare(TopicConfig config, long now, boolean force, BooleanSupplier cancelled) {
        return prepare(config, now, force, KafkoOptions.DEFAULTS.compactionBufferBytes(), cancelled);
    }

    /**
     * Prepares a compaction pass of the cleanable segments by {@code config} at {@code now}, remembering the keys it
     * looks at in at most about {@code bufferBytes} ({@link KeyOffsetMap}); {@code force} fsyncs the new files.
     * Returns an empty plan when no segment loses a record. A plan cancelled half way deletes its files and throws
     * {@link CancellationException}. Any thread but the writer's; one at a time per log (the caller's rule).
     *
     * <p>A pass looks at the keys from the offset where the last pass whose keys did not all fit stopped (once that
     * pass was applied whole), else from the log's start, up to the end of the cleanable segments or the first key
     * that does not fit ({@link CompactionPlan#partial()}: a next pass goes on from there; with no cleanable segment,
     * no pass is left). It rewrites the segments
     * before that end: the records before its first offset, which the passes before left one per key, lose those
     * whose key it saw later, and a tombstone it did not see goes once past its retention.
     *
     * @throws CorruptLogException when a cleanable segment fails its checks (nothing is rewritten)
     * @throws dev.kafko.KafkoStorageException when a new file cannot be written, or a segment's rewrite would be
     *     longer than a segment file can be (nothing is rewritten)
     * @throws dev.kafko.PartitionFailedException when the log failed ({@link dev.kafko.KafkoClosedException}: closed)
     */
    public CompactionPlan prepare(TopicConfig config, long now, boolean force, long bufferBytes,
            BooleanSupplier cancelled) {
        log.checkUsable();
        Segment[] segs = log.segments();
        int n = cleanableCount(segs, config, now);
        if (n == 0) {
            // nothing to look at (a retention deleted the segments a last pass stopped in): the passes end here
            passFrom = -1;
            return new CompactionPlan(List.of(), -1, false);
        }
        long retention = config.deleteRetention().toMillis();
        PassKeys keys = new PassKeys(new KeyOffsetMap(bufferBytes), retention >= now ? Long.MIN_VALUE : now - retention,
                passFrom > segs[0].baseOffset() && passFrom < segs[n].baseOffset() ? passFrom : segs[0].baseOffset(),
                segs[n].baseOffset());
        boolean[] losing = new boolean[n];
        // one pass finds the latest record of every key from keys.from on, and which segments lose a record: a key's
        // record that a later one replaces, a latest one that is a tombstone past its retention
        for (int i = 0; i < n && segs[i].baseOffset() < keys.end; i++) {
            if (segs[i].nextOffset() <= keys.from) {
                continue;
            }
            int segment = i;
            frames(segs[i], cancelled, (h, records) -> {
                for (KafkoRecord r : records) {
                    byte[] key = r.key();
                    if (key == null || r.offset() < keys.from || r.offset() >= keys.end) {
                        continue;
                    }
                    int previous = keys.map.put(key, r.offset(), segment, keys.expired(r));
                    if (previous == KeyOffsetMap.FULL) {
                        keys.end = r.offset(); // the next pass goes on from here
                    } else if (previous >= 0) {
                        losing[previous] = true;
                    }
                }
            });
        }
        keys.map.markExpired(losing);
        // the records before keys.from, one per key: those whose key the pass saw later, and expired tombstones, go
        for (int i = 0; i < n && segs[i].baseOffset() < keys.from; i++) {
            int segment = i;
            frames(segs[i], cancelled, (h, records) -> {
                for (KafkoRecord r : records) {
                    if (r.offset() < keys.from && !keys.kept(r)) {
                        losing[segment] = true;
                    }
                }
            });
        }
        int m = 0; // the segments the pass rewrites: those before its end
        while (m < n && segs[m].baseOffset() < keys.end) {
            m++;
        }
        List<CompactionPlan.Rewrite> rewrites = new ArrayList<>();
        try {
            // neighbours merged while their bytes add up to a segment's at most and their offsets fit an index entry's
            // relative offset (Kafka's cleaner groups them so): what a compaction shrank, the next one merges
            for (int from = 0, to; from < m; from = to) {
                long bytes = segs[from].size();
                for (to = from + 1; to < m && bytes + segs[to].size() <= config.segmentBytes()
                        && segs[to].nextOffset() - segs[from].baseOffset() <= Integer.MAX_VALUE; to++) {
                    bytes += segs[to].size();
                }
                while (true) {
                    boolean loses = false;
                    for (int k = from; k < to; k++) {
                        loses |= losing[k];
                    }
                    if (to - from == 1 && !loses) {
                        break;
                    }
                    try {
                        rewrites.add(rewrite(List.of(segs).subList(from, to), config, keys, force, cancelled,
                                to - from > 1 ? Math.min(config.segmentBytes(), rewriteLimit) : rewriteLimit));
                        break;
                    } catch (CompactionWriter.TooLarge e) {
                        if (to - from == 1) {
                            throw e;
                        }
                        // merged, they would be longer than a segment (wider timestamp deltas, a weaker codec, small
                        // records between gaps): fewer are merged, those that the writer had taken before it overflowed
                        to = from + Math.max(1, Math.min(e.fitting, to - from - 1));
                    }
                }
            }
        } catch (CompactionWriter.TooLarge e) {
            discard(rewrites);
            throw new KafkoStorageException(name + ": cannot compact: " + e.getMessage() + " (its kept records are"
                    + " smaller than the frames that would hold them, or the topic's codec compresses less than the"
                    + " one they were written with); nothing was rewritten");
        } catch (RuntimeException | Error e) {
            discard(rewrites);
            throw e;
        }
        return new CompactionPlan(rewrites, keys.end, keys.end < segs[n].baseOffset());
    }

    /** What {@link #frames} hands on: the header of each frame, and its records (none for a gap frame). */
    private interface FrameSink {
        void frame(byte[] header, List<KafkoRecord> records);
    }

    /**
     * Reads every frame of the sealed segment {@code seg} in order, each one CRC-checked, and checks that they cover
     * its offsets without a hole. Throws {@link CancellationException} once {@code cancelled}.
     */
    private void frames(Segment seg, BooleanSupplier cancelled, FrameSink sink) {
        seg.checkHeader();
        int end = seg.size();
        byte[] h = new byte[HEADER_SIZE];
        CRC32C crc = new CRC32C();
        ArrayList<KafkoRecord> records = new ArrayList<>();
        long expected = seg.baseOffset();
        try {
            for (int pos = SEGMENT_HEADER_SIZE; pos < end; ) {
                if (cancelled.getAsBoolean()) {
                    throw new CancellationException(name + ": compaction cancelled");
                }
                int len = seg.readHeader(pos, end, h);
                long base = FrameFormat.getLong(h, BASE_OFFSET_OFFSET);
                if (base != expected) {
                    throw seg.corrupt(pos, "a frame of offset " + base + " where offset " + expected
                            + " was expected; the segment is not compacted", null);
                }
                ByteBuffer frame = seg.bytes(pos, len, len);
                seg.verifyCrc(crc, frame.duplicate(), frame.getInt(FrameFormat.CRC_OFFSET), 0, len, pos);
                records.clear();
                if (!FrameFormat.isGap(h)) {
                    try {
                        FrameDecoder.decode(frame, 0, len, Long.MIN_VALUE, Integer.MAX_VALUE, log.topic(),
                                log.partition(), records);
                    } catch (IllegalArgumentException e) {
                        throw seg.corrupt(pos, e.getMessage(), e);
                    }
                }
                sink.frame(h, records);
                expected = base + FrameFormat.getInt(h, RECORD_COUNT_OFFSET);
                pos += len;
            }
        } catch (InternalError e) {
            throw seg.cutUnder(expected, e);
        }
        if (expected != seg.nextOffset()) {
            throw new CorruptLogException(seg.path() + ": its frames end at offset " + expected + ", but the next"
                    + " segment begins at offset " + seg.nextOffset() + "; the partition is not compacted");
        }
    }

    /** Writes the kept records of {@code olds}, neighbours, to one new file beside the first, and checks it. */
    private CompactionPlan.Rewrite rewrite(List<Segment> olds, TopicConfig config, PassKeys keys, boolean force,
            BooleanSupplier cancelled, long limit) {
        long base = olds.get(0).baseOffset();
        long next = olds.get(olds.size() - 1).nextOffset();
        Path tmp = FileNames.segmentFile(dir, base).resolveSibling(
                FileNames.segmentFile(dir, base).getFileName() + FileNames.TMP_SUFFIX);
        int size;
        long[] removed = {0};
        try (FileChannel ch = io.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
                FrameEncoder encoder = new FrameEncoder(name, config.compression(), TopicConfig.MAX_RECORD_BYTES_LIMIT)) {
            CompactionWriter out = new CompactionWriter(ch, encoder, base, limit);
            for (int j = 0; j < olds.size(); j++) {
                out.fitting = j;
                frames(olds.get(j), cancelled, (h, records) -> {
                    if (FrameFormat.isGap(h)) {
                        out.gap(FrameFormat.getLong(h, BASE_OFFSET_OFFSET), FrameFormat.getInt(h, RECORD_COUNT_OFFSET),
                                FrameFormat.getLong(h, FIRST_TIMESTAMP_OFFSET),
                                FrameFormat.getLong(h, MAX_TIMESTAMP_OFFSET));
                        return;
                    }
                    if (FrameFormat.hasHoles(h)) {
                        out.frameRead(FrameFormat.getLong(h, MAX_TIMESTAMP_OFFSET));
                    }
                    for (KafkoRecord r : records) {
                        if (keys.kept(r)) {
                            out.keep(r);
                        } else {
                            out.gap(r.offset(), 1, r.timestamp(), r.timestamp());
                            removed[0]++;
                        }
                    }
                });
            }
            // written even when it is not smaller (a gap frame per run of small records removed one by one): a
            // removed tombstone must go, and the next compaction merges neighbouring gaps
            size = out.finish();
            if (force) {
                ch.force(true);
            }
        } catch (IOException e) {
            deleteQuietly(tmp);
            throw StorageErrors.wrap("write compacted segment", tmp, e);
        } catch (UncheckedIOException e) {
            deleteQuietly(tmp);
            throw StorageErrors.wrap("write compacted segment", tmp, e.getCause());
        } catch (RuntimeException | Error e) {
            deleteQuietly(tmp);
            throw e;
        }
        // the file as the disk holds it, checked as an open checks a segment: every frame intact, every offset covered
        SegmentFile file = SegmentFiles.open(io, tmp, false, config.segmentBytes());
        try {
            LogLoader.Scan scan = LogLoader.scan(file, base, size, config.indexIntervalBytes());
            if (scan.stopReason() != null || scan.validEnd() != size || scan.nextOffset() != next) {
                throw new CorruptLogException(tmp + ": the compacted segment written does not read back whole ("
                        + (scan.stopReason() == null ? "it ends at offset " + scan.nextOffset() + ", position "
                        + scan.validEnd() : scan.stopReason()) + "); nothing was replaced");
            }
            return new CompactionPlan.Rewrite(olds, tmp, scan.index(), size, scan.maxTimestamp(), removed[0]);
        } catch (RuntimeException | Error e) {
            deleteQuietly(tmp);
            throw e;
        } finally {
            file.closeChannel();
        }
    }

    /**
     * Puts the new files of {@code plan} in place of the segments they rewrite, each whose segments are all still in
     * the log (a retention may have deleted some meanwhile; their files are deleted), unless {@code config} (the
     * log's now) no longer compacts; notes the segments looked at as compacted. Returns the records removed by those
     * put in place. Writer only, inside {@link PartitionLog#applyCompaction}; a failure is recorded as the log's and
     * thrown, except a failed rename before any old file was touched, after which the log holds its old files.
     */
    long apply(CompactionPlan plan, TopicConfig config, Seals seals, PartitionDirectory directory, boolean force) {
        passFrom = -1; // until the plan is applied whole
        if (!config.cleanupPolicy().compacts()) {
            // altered to DELETE while the plan was prepared: the records it would remove are kept
            plan.discard(io);
            return 0;
        }
        Segment[] segs = log.segments();
        int last = -1;
        for (CompactionPlan.Rewrite r : plan.rewrites()) {
            last = Math.max(last, indexOf(segs, r.last()));
        }
        if (last < 0) {
            // every segment it rewrites deleted: those left before its end lost nothing to it
            plan.discard(io);
            noteCompacted(plan, true);
            return 0;
        }
        // a record removed here is removed for a later one of its key, which may be in a segment after the last one
        // rewritten: that segment is made durable (sealed) first, or a power loss could keep the removal and lose both
        int read = last;
        while (read + 1 < segs.length - 1 && segs[read + 1].baseOffset() < plan.cleanableEnd()) {
            read++;
        }
        try {
            // a seal still writing the index files of a segment replaced here would write them for the old file:
            // the pending seals are those of the last rolled segments
            seals.awaitUntil(segs.length - 2 - read);
        } catch (RuntimeException e) {
            plan.discard(io);
            throw log.fail(e);
        }
        long removed = 0;
        boolean whole = true;
        List<CompactionPlan.Rewrite> rewrites = plan.rewrites();
        for (int k = 0; k < rewrites.size(); k++) {
            CompactionPlan.Rewrite r = rewrites.get(k);
            Segment[] now = log.segments();
            int i = indexOf(now, r.first());
            if (i < 0 || i + r.olds().size() > now.length || now[i + r.olds().size() - 1] != r.last()) {
                discard(rewrites.subList(k, k + 1));
                // a retention deleted some of its segments: those left keep records a next pass must look at again
                whole &= indexOf(now, r.last()) < 0;
                continue;
            }
            List<CompactionPlan.Rewrite> after = rewrites.subList(k + 1, rewrites.size());
            Segment next = r.olds().size() == 1 ? replace(r, now, i, config, after) : merge(r, now, i, config,
                    directory, after);
            removed += r.removedRecords();
            seals.replaced(r.olds(), next);
            try {
                next.writeIndexFiles(io, dir, force);
                // this rename durable before the next one is made: a power loss never keeps a later segment's
                // removals (a tombstone gone) without an earlier one's (the value it deleted gone too), whatever
                // order the file system would persist two renames in
                directory.fsync("fsync directory after compacting a segment");
            } catch (RuntimeException | Error e) {
                discard(after);
                throw log.fail(e);
            }
        }
        noteCompacted(plan, whole);
        return removed;
    }

    /**
     * Renames the new file of {@code r}, one segment's, over its old file ({@code now[i]}) and puts its segment in the
     * log. A rename that fails leaves the old file, which goes back in the log, opened again.
     */
    private Segment replace(CompactionPlan.Rewrite r, Segment[] now, int i, TopicConfig config,
            List<CompactionPlan.Rewrite> after) {
        Segment old = r.first();
        long base = old.baseOffset();
        Path path = FileNames.segmentFile(dir, base);
        synchronized (log.swapLock) {
            try {
                // the old file released first: a read of it now fails, and waits for this swap to end
                // (PartitionLog#read), instead of opening its path, which the rename gives to the new file (a
                // reader that mapped the old one reads on there)
                old.file().closeChannel();
                // no index file that describes the old file may be left beside the new one
                IndexFiles.delete(io, dir, base);
                io.atomicMove(r.tmp(), path);
            } catch (IOException | RuntimeException e) {
                // nothing was replaced (a rename is all or nothing): the old file goes back in the log, opened
                // again, and an open rebuilds the index files deleted above
                discard(List.of(r));
                discard(after);
                RuntimeException thrown = e instanceof IOException x
                        ? StorageErrors.wrap("replace compacted segment", path, x) : (RuntimeException) e;
                try {
                    log.replaceSegments(with(now, i, 1, new Segment(base, SegmentFiles.open(io, path, false,
                            config.segmentBytes()), old.index(), config.indexIntervalBytes(), old.size(),
                            old.nextOffset(), old.maxTimestamp(), Long.MIN_VALUE, 0)), 0);
                } catch (RuntimeException | Error again) {
                    thrown.addSuppressed(again);
                    throw log.fail(thrown);
                }
                throw thrown;
            }
            try {
                return publish(r, now, i, config);
            } catch (RuntimeException | Error e) {
                discard(after);
                throw log.fail(e);
            }
        }
    }

    /**
     * Puts the new file of {@code r}, neighbouring segments merged, in place of their files ({@code now[i]} on): first
     * renamed to its {@linkplain FileNames#swapFile swap name} and that made durable, so that once any old file is
     * gone an open finishes the merge ({@link SegmentLayoutRepairs#finishMerges}); then the old files released, the
     * later ones deleted, and the swap file renamed over the first. Past the swap file, a failure fails the log.
     */
    private Segment merge(CompactionPlan.Rewrite r, Segment[] now, int i, TopicConfig config,
            PartitionDirectory directory, List<CompactionPlan.Rewrite> after) {
        long base = r.first().baseOffset();
        Path swap = FileNames.swapFile(dir, base);
        try {
            io.atomicMove(r.tmp(), swap);
        } catch (IOException | RuntimeException e) {
            // nothing was replaced: the old segments stay as they are
            discard(List.of(r));
            discard(after);
            throw e instanceof IOException x ? StorageErrors.wrap("merge compacted segments", swap, x)
                    : (RuntimeException) e;
        }
        try {
            directory.fsync("fsync directory before merging compacted segments");
            synchronized (log.swapLock) {
                for (Segment old : r.olds()) {
                    old.file().closeChannel(); // as in replace: a read of it waits for the merged segment
                    IndexFiles.delete(io, dir, old.baseOffset());
                }
                for (int m = r.olds().size() - 1; m > 0; m--) {
                    io.deleteIfExists(FileNames.segmentFile(dir, r.olds().get(m).baseOffset()));
                }
                io.atomicMove(swap, FileNames.segmentFile(dir, base));
                return publish(r, now, i, config);
            }
        } catch (IOException e) {
            discard(after);
            throw log.fail(StorageErrors.wrap("merge compacted segments", swap, e));
        } catch (RuntimeException | Error e) {
            discard(after);
            throw log.fail(e);
        }
    }

    /** Opens the file of {@code r}, renamed into place, and puts its segment in the log for its old ones. */
    private Segment publish(CompactionPlan.Rewrite r, Segment[] now, int i, TopicConfig config) {
        long base = r.first().baseOffset();
        SegmentFile file = SegmentFiles.open(io, FileNames.segmentFile(dir, base), false, config.segmentBytes());
        Segment next = new Segment(base, file, r.index(), config.indexIntervalBytes(), r.size(), r.last().nextOffset(),
                r.maxTimestamp(), Long.MIN_VALUE, 0);
        log.replaceSegments(with(now, i, r.olds().size(), next), r.size() - r.oldSize());
        return next;
    }

    private void discard(List<CompactionPlan.Rewrite> rewrites) {
        new CompactionPlan(rewrites, -1, false).discard(io);
    }

    /** {@code segs} with {@code s} in place of the {@code count} at {@code i}. */
    private static Segment[] with(Segment[] segs, int i, int count, Segment s) {
        Segment[] out = new Segment[segs.length - count + 1];
        System.arraycopy(segs, 0, out, 0, i);
        out[i] = s;
        System.arraycopy(segs, i + count, out, i + 1, segs.length - i - count);
        return out;
    }

    private static int indexOf(Segment[] segs, Segment s) {
        for (int i = 0; i < segs.length; i++) {
            if (segs[i] == s) {
                return i;
            }
        }
        return -1;
    }

    private void deleteQuietly(Path tmp) {
        try {
            io.deleteIfExists(tmp);
        } catch (IOException | RuntimeException e) {
            // the failure reported is the caller's; the next open deletes the file
        }
    }
}
