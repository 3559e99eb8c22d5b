package dev.kafko;

import org.jspecify.annotations.Nullable;

/**
 * A commit the group refuses: one from a consumer with a fixed assignment
 * ({@link ConsumerOptions#withPartitions}), which is not a member of the group, while the group has live
 * members, as Kafka refuses a commit made outside the group's generation ({@code UNKNOWN_MEMBER_ID}). The
 * message names the group, the topic and the number of live members. Nothing was committed.
 */
public class CommitFailedException extends KafkoException {

    private static final long serialVersionUID = 1L;

    public CommitFailedException(String message) {
        super(message);
    }

    public CommitFailedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
