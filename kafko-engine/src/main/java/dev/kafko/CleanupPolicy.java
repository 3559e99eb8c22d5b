package dev.kafko;

import java.util.Locale;
import java.util.Objects;

/**
 * What a topic does with old records: Kafka's {@code cleanup.policy}.
 *
 * <ul>
 *   <li>{@link #DELETE} (default): the retention limits ({@link TopicConfig#retention()},
 *       {@link TopicConfig#retentionBytes()}) delete whole segments, oldest first.</li>
 *   <li>{@link #COMPACT}: the log keeps at least the latest record of every key. Older records of a key are
 *       removed from the segments before the active one, in the background or by {@link Topic#compact()}; a record
 *       whose value is null (a tombstone) is itself removed once it is older than
 *       {@link TopicConfig#deleteRetention()}. Offsets never change: a compacted partition has gaps, which
 *       consumers pass over. Every record sent to such a topic needs a key. The retention limits do not apply.</li>
 *   <li>{@link #COMPACT_DELETE}: both: compacted, and whole segments deleted by the retention limits.</li>
 * </ul>
 */
public enum CleanupPolicy {

    /** Segments are deleted by the retention limits. */
    DELETE,
    /** The latest record of each key is kept; older ones are removed. */
    COMPACT,
    /** Compacted, and segments deleted by the retention limits. */
    COMPACT_DELETE;

    /** Whether records of a key are removed once a later one of the same key is in a sealed segment. */
    public boolean compacts() {
        return this != DELETE;
    }

    /** Whether the retention limits delete segments. */
    public boolean deletes() {
        return this != COMPACT;
    }

    /**
     * Parses Kafka's spellings: {@code delete}, {@code compact}, and {@code compact,delete} or
     * {@code delete,compact} (spaces and case ignored), and this enum's names ({@code COMPACT_DELETE}).
     *
     * @throws InvalidConfigException naming the text when it is none of these
     */
    public static CleanupPolicy parse(String text) {
        Objects.requireNonNull(text, "cleanup policy");
        String t = text.replace(" ", "").toLowerCase(Locale.ROOT);
        switch (t) {
            case "delete":
                return DELETE;
            case "compact":
                return COMPACT;
            case "compact,delete", "delete,compact", "compact_delete":
                return COMPACT_DELETE;
            default:
                throw new InvalidConfigException("cleanup policy '" + text + "' is none of delete, compact,"
                        + " compact,delete");
        }
    }

    /** Kafka's spelling: {@code delete}, {@code compact} or {@code compact,delete}. */
    public String kafkaName() {
        return switch (this) {
            case DELETE -> "delete";
            case COMPACT -> "compact";
            case COMPACT_DELETE -> "compact,delete";
        };
    }
}
