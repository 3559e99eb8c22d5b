package dev.kafko;

import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A position or offset outside the log: a consumer's position below the log start (after retention) or
 * beyond its end when the reset policy is {@code FAIL}, a read of an offset retention deleted, or a
 * negative offset given to {@code seek} or {@code commit}. When it is about one partition of a consumer,
 * {@link #partition()} and {@link #offset()} say which, so that a {@code FAIL} consumer can move that
 * partition alone ({@code seek(e.partition().getAsInt(), topic.partition(p).logStartOffset())}) rather
 * than every partition with {@code seekToBeginning()}.
 */
public class OffsetOutOfRangeException extends KafkoException {

    private static final long serialVersionUID = 1L;

    private final int partition;
    private final long offset;

    public OffsetOutOfRangeException(String message) {
        this(message, -1, -1);
    }

    public OffsetOutOfRangeException(String message, @Nullable Throwable cause) {
        super(message, cause);
        this.partition = -1;
        this.offset = -1;
    }

    /**
     * @param partition the partition whose position or offset is out of range
     * @param offset that position or offset
     */
    public OffsetOutOfRangeException(String message, int partition, long offset) {
        super(message);
        this.partition = partition;
        this.offset = offset;
    }

    /** The partition this is about, when it is about one of a consumer's partitions. */
    public OptionalInt partition() {
        return partition < 0 ? OptionalInt.empty() : OptionalInt.of(partition);
    }

    /** The position or offset that is out of range, with {@link #partition()}. */
    public OptionalLong offset() {
        return partition < 0 ? OptionalLong.empty() : OptionalLong.of(offset);
    }
}
