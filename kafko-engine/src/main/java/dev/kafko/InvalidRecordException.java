package dev.kafko;

/**
 * A record the topic cannot take as it is: a record without a key sent to a topic that is compacted
 * ({@link CleanupPolicy#COMPACT}, {@link CleanupPolicy#COMPACT_DELETE}), whose records are kept by key, as Kafka
 * refuses one. Nothing was written (no record of the batch it was part of).
 */
public class InvalidRecordException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public InvalidRecordException(String message) {
        super(message);
    }
}
