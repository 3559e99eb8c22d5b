package dev.kafko.internal.broker;

import dev.kafko.CorruptLogException;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.internal.log.PartitionLog;
import dev.kafko.internal.log.ReadResult;
import dev.kafko.internal.log.VerifiedFrame;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Internal: where one consumer stands in each partition of its topic, and the reads that move it
 * there, with the consumer's {@link OffsetResetPolicy} applied to a position outside the log. Used
 * by the consumer's thread only (see {@link ConsumerImpl}).
 */
final class PartitionPositions {

    /** About the most bytes one read of one partition returns. */
    static final int MAX_READ_BYTES = 16 << 20;

    private static final System.Logger LOG = System.getLogger(PartitionPositions.class.getName());

    private final String topic;
    /** Who reads, for the log: {@code group 'g'} or {@code an anonymous consumer}. */
    private final String reader;
    private final OffsetResetPolicy reset;
    private long[] positions = new long[0];
    /** Per partition, the frame this consumer's reads checked last (see {@link VerifiedFrame}). */
    private VerifiedFrame[] verified = new VerifiedFrame[0];

    PartitionPositions(String topic, @Nullable String group, OffsetResetPolicy reset) {
        this.topic = topic;
        this.reader = group == null ? "an anonymous consumer" : "group '" + group + "'";
        this.reset = reset;
    }

    /** The policy this consumer starts a partition by where it has no position of its own. */
    OffsetResetPolicy reset() {
        return reset;
    }

    /** Makes room for {@code partitions} partitions; a new one stands at offset 0. */
    void grow(int partitions) {
        if (positions.length < partitions) {
            positions = Arrays.copyOf(positions, partitions);
        }
    }

    long get(int partition) {
        return positions[partition];
    }

    void set(int partition, long offset) {
        positions[partition] = offset;
    }

    /** Sets {@code partition}'s position to {@code offset} as {@link #settled} makes it. */
    void settle(int partition, long offset, PartitionActor actor) {
        positions[partition] = settled(offset, actor);
    }

    /**
     * {@code offset}, or the readable end when it lies above the log's end and the policy moves it there
     * (the readable end: under {@code EVERY_BATCH} the records appended and not yet fsynced are read, not
     * skipped). This happens when the position is set, not at a later read: by then records may have been
     * appended from the end up to {@code offset}, and moving to the end as it is then would skip them. Under
     * {@code FAIL} the offset is kept, and the read throws if it is still above the end.
     */
    long settled(long offset, PartitionActor actor) {
        if (reset == OffsetResetPolicy.FAIL || offset <= actor.log().endOffset()) {
            return offset;
        }
        return actor.readableEnd();
    }

    /**
     * Where a partition taken starts: at the group's commit {@code committed} as {@link #settled} makes it (below
     * the log start it is checked against the log before each read), or, without one ({@code -1}), at the log
     * start, or at the readable end under {@code LATEST} (under {@code EVERY_BATCH}, records appended and not yet
     * fsynced are read, not skipped).
     */
    long start(long committed, PartitionActor actor) {
        if (committed >= 0) {
            return settled(committed, actor);
        }
        return reset == OffsetResetPolicy.LATEST ? actor.readableEnd() : actor.log().logStartOffset();
    }

    /**
     * Reads at most {@code max} records of open partition {@code p} from its position, up to its
     * readable end, and moves the position past them. A position outside the log is reset first.
     */
    List<KafkoRecord> read(int p, PartitionActor actor, int max) {
        PartitionLog log = actor.log();
        long pos = positions[p];
        while (true) {
            long startOffset = log.logStartOffset();
            long end = log.endOffset();
            if (pos < startOffset || pos > end) {
                long from = pos;
                pos = resetPosition(p, pos, startOffset, end, actor.readableEnd());
                positions[p] = pos;
                if (from < startOffset) {
                    logSkipped(p, from, startOffset, pos);
                }
            }
            long readable = actor.readableEnd();
            if (pos >= readable) {
                return List.of();
            }
            try {
                ReadResult r = log.read(pos, max, MAX_READ_BYTES, verifiedFrame(p));
                List<KafkoRecord> records = r.records();
                int n = records.size();
                if (n == 0 && max > 0 && r.nextOffset() > pos) {
                    // only offsets whose records compaction removed: on past them, and read again
                    pos = Math.min(r.nextOffset(), readable);
                    positions[p] = pos;
                    continue;
                }
                if (n == 0 && max > 0) {
                    // a read below the readable end always returns a record; none means data the log
                    // cannot find, and a poll would otherwise read nothing again until its timeout
                    throw new CorruptLogException("partition " + topic + "-" + p + " holds no readable"
                            + " record at offset " + pos + " below its end " + readable + "; seek past it to go on");
                }
                if (n > 0 && records.get(n - 1).offset() >= readable) {
                    // the log may hand out records past what the partition has made readable (not yet
                    // published, or not yet fsynced under EVERY_BATCH); keep to the readable end read
                    // above, so that the position never passes it
                    records = trimTo(records, readable);
                    positions[p] = records.isEmpty() ? pos : records.get(records.size() - 1).offset() + 1;
                } else {
                    positions[p] = r.nextOffset();
                }
                return records;
            } catch (OffsetOutOfRangeException e) {
                // retention moved the log start past the position between the check and the read: the next
                // turn resets the position, as often as that happens (a few tries were not always enough for
                // a reader whose thread a busy machine kept waiting while retention deleted segment after
                // segment); a start still at or below the position means the read's own error
                if (log.logStartOffset() <= pos) {
                    throw e;
                }
            }
        }
    }

    /**
     * Retention deleted records at and past the position before they were read: as Kafka's consumer does, it says
     * so, at WARNING (at INFO for a position at offset 0, a reader starting from the very beginning, which loses
     * nothing it had).
     */
    private void logSkipped(int p, long from, long startOffset, long to) {
        System.Logger.Level level = from == 0 ? System.Logger.Level.INFO : System.Logger.Level.WARNING;
        try {
            if (LOG.isLoggable(level)) {
                LOG.log(level, "topic '" + topic + "' partition " + p + ": position " + from + " of " + reader
                        + " is below the log start " + startOffset + " (retention deleted offsets " + from + " to "
                        + (startOffset - 1) + " before they were read); reset to " + to + " under " + reset);
            }
        } catch (RuntimeException e) {
            // a log handler that fails must not fail the poll: the position was reset already
        }
    }

    private VerifiedFrame verifiedFrame(int p) {
        if (p >= verified.length) {
            verified = Arrays.copyOf(verified, p + 1);
        }
        VerifiedFrame v = verified[p];
        if (v == null) {
            v = new VerifiedFrame();
            verified[p] = v;
        }
        return v;
    }

    private static List<KafkoRecord> trimTo(List<KafkoRecord> records, long end) {
        int keep = 0;
        while (keep < records.size() && records.get(keep).offset() < end) {
            keep++;
        }
        return records.subList(0, keep);
    }

    /**
     * Where a position outside the log [{@code startOffset}, {@code end}] goes; a reset to the end goes to the
     * readable end (under {@code EVERY_BATCH}, records appended and not yet fsynced are read, not skipped).
     */
    private long resetPosition(int p, long pos, long startOffset, long end, long readable) {
        long readableEnd = Math.max(startOffset, Math.min(readable, end));
        return switch (reset) {
            case EARLIEST -> pos < startOffset ? startOffset : readableEnd;
            case LATEST -> readableEnd;
            case FAIL -> throw new OffsetOutOfRangeException("topic '" + topic + "' partition " + p
                    + ": position " + pos + " is outside the log [" + startOffset + ", " + end
                    + "] and the offset reset policy is FAIL", p, pos);
        };
    }
}
