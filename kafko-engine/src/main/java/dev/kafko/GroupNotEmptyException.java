package dev.kafko;

import java.util.Objects;

/**
 * A group that cannot be deleted ({@link Kafko#deleteGroup}) because it has live members in this instance, as
 * Kafka's {@code deleteConsumerGroups} refuses a group that is not empty ({@code GROUP_NOT_EMPTY}). The message
 * names the topic, the group and the number of live members; nothing was deleted. Close the group's consumers
 * first (a consumer with fixed partitions is no member and does not count).
 */
public class GroupNotEmptyException extends KafkoException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final String group;
    private final int members;

    /**
     * @param topic the topic whose group it is
     * @param group the group that has live members
     * @param members how many live members it has
     */
    public GroupNotEmptyException(String topic, String group, int members) {
        super("group '" + Objects.requireNonNull(group, "group") + "' of topic '"
                + Objects.requireNonNull(topic, "topic") + "' cannot be deleted: it has " + members
                + " live member(s) in this instance; close them first (nothing was deleted)");
        this.topic = topic;
        this.group = group;
        this.members = members;
    }

    /** The topic whose group could not be deleted. */
    public String topic() {
        return topic;
    }

    /** The group that could not be deleted. */
    public String group() {
        return group;
    }

    /** The number of live members the group had when the deletion was refused. */
    public int members() {
        return members;
    }
}
