package dev.kafko.spring.listener;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The pauses asked of a container, and what its members made of them: of the whole container
 * ({@link MessageListenerContainer#pause()}), which each member takes into effect and members made meanwhile start
 * with, and of single partitions ({@link PartitionPauses}), which whichever member reads the partition takes into
 * effect. Read from any thread; a pause or a resume of the whole container under the container's lock. As a
 * {@link BooleanSupplier}: whether a pause of the container is asked for now, which a member starting looks at.
 */
final class ContainerPauses implements BooleanSupplier {

    private final ContainerMembers members;
    /** The partitions {@link #pausePartition} asked to pause, which the members take into effect. */
    private final PartitionPauses partitions = new PartitionPauses();
    /** Whether a pause was asked for and no resume since: members made meanwhile start paused. */
    private volatile boolean pauseRequested;

    ContainerPauses(ContainerMembers members) {
        this.members = members;
    }

    /** Whether a pause of the container was asked for (and no resume since). */
    @Override
    public boolean getAsBoolean() {
        return pauseRequested;
    }

    /** Under the container's lock. */
    void pause() {
        pauseRequested = true;
        members.all().forEach(KafkoMessageListenerContainer::pause);
    }

    /** Under the container's lock. */
    void resume() {
        pauseRequested = false;
        members.all().forEach(KafkoMessageListenerContainer::resume);
    }

    /** Whether every member was asked to pause; for a container without members, whether it was. */
    boolean isPauseRequested() {
        List<KafkoMessageListenerContainer> all = members.all();
        return all.isEmpty() ? pauseRequested : all.stream().allMatch(KafkoMessageListenerContainer::isPauseRequested);
    }

    /** Whether a pause was asked for and every running member has paused (the container looks whether it runs). */
    boolean isPaused() {
        return isPauseRequested() && members.all().stream().filter(KafkoMessageListenerContainer::isRunning)
                .allMatch(KafkoMessageListenerContainer::isPaused);
    }

    void pausePartition(String topic, int partition) {
        if (partitions.request(topic, partition)) {
            wakeMembersOf(topic);
        }
    }

    void resumePartition(String topic, int partition) {
        if (partitions.release(topic, partition)) {
            wakeMembersOf(topic);
        }
    }

    /** The members of the topic look at the partitions to pause now, not after their poll timeout. */
    private void wakeMembersOf(String topic) {
        for (KafkoMessageListenerContainer member : members.all()) {
            if (member.topic().equals(topic)) {
                member.wakeup();
            }
        }
    }

    /** Whether the member that reads the partition has paused it. */
    boolean isPartitionPaused(String topic, int partition) {
        for (KafkoMessageListenerContainer member : members.all()) {
            if (member.isPartitionPaused(topic, partition)) {
                return true;
            }
        }
        return false;
    }

    /** The partitions the container was asked to pause, for its members. */
    PartitionPauses partitions() {
        return partitions;
    }
}
