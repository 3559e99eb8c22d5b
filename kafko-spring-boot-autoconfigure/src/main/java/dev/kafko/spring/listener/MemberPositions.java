package dev.kafko.spring.listener;

import dev.kafko.CommitFailedException;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.LogBackend;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a listener's member starts on the partitions it is given, and how far it got on them without
 * records: what its {@link ListenerConsumer} needs besides the records it delivers. Polling thread only.
 */
final class MemberPositions {

    /** Logs as the polling loop it is part of. */
    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final KafkoMessageListenerContainer container;
    private final LogBackend backend;
    /** Tells the container's progress tracker how far the member got, per partition (the next offset). */
    private final MemberCommits progress;
    /** Whether the backend's consumer reports positions ({@link #afterEmptyPoll}). */
    private boolean reportsPositions = true;
    /** Whether the member joined its topic again after it was deleted: it reads the new topic from its start. */
    private boolean rejoined;
    /**
     * The partitions the member took but was not told of yet, whose start {@link #whilePaused} looked at: not again
     * at each pause wait. Emptied when the member joins its topic again.
     */
    private final Set<Integer> lookedAtWhilePaused = new HashSet<>();

    MemberPositions(KafkoMessageListenerContainer container, LogBackend backend, MemberCommits progress) {
        this.container = container;
        this.backend = backend;
        this.progress = progress;
    }

    /**
     * {@code partitions} were assigned to the member. Where a group without a commit starts at the end
     * ({@code kafko.offset-reset=latest}), commits that start for the partitions it never committed, as
     * spring-kafka does by default: the records appended while no member reads (between two runs of the
     * application) are then read by the next run, not skipped. The partitions in {@code sought} (the initial
     * offsets of partitions assigned by hand) start where they were sought, which commits them.
     */
    void assigned(BackendConsumer consumer, Collection<Integer> partitions, Set<Integer> sought) {
        OffsetResetPolicy reset = container.properties().offsetReset();
        if (partitions.isEmpty() || !(reset != null ? reset == OffsetResetPolicy.LATEST
                : backend.startsAtEndWithoutCommit())) {
            return;
        }
        Map<Integer, Long> committed = backend.committedOffsets(container.topic(), container.getGroupId());
        Map<Integer, Long> starts = new HashMap<>();
        for (int p : partitions) {
            if (!committed.containsKey(p) && !sought.contains(p)) {
                starts.put(p, consumer.position(p));
            }
        }
        if (starts.isEmpty()) {
            return;
        }
        if (rejoined || container.topicCreatedWhileRunning(backend.topicId(container.topic()))) {
            // the topic was created while the member ran or waited for it, maybe well before it took the partition
            // (a sibling that joined first held it until its first poll; a run stopped before its first poll): what
            // was sent to it since was never read, and would be skipped from the end
            consumer.seekToBeginning(starts.keySet());
            starts.replaceAll((p, end) -> consumer.position(p));
        }
        try {
            consumer.commit(starts);
        } catch (CommitFailedException e) {
            // partitions assigned by hand while the group has live members: it refuses every commit of this member
            LOG.warn("Listener '{}' ({}) could not commit where it starts {} of {}: {}", container.getListenerId(),
                    container.memberName(), starts, container.topic(), e.getMessage());
        }
    }

    /**
     * The member is paused, before each poll it makes with its partitions paused (or each wait, over a backend whose
     * consumers cannot pause, where it polls nothing until it is resumed): the partitions its consumer took that it
     * was not told of yet (those of a topic its pattern matches, created while it is paused; those of a member started
     * paused) start as {@link #assigned} says now, before a rebalance in that poll could move one to another member
     * untold, which would start it where the log ends then. spring-kafka's paused consumer polls on with its
     * partitions paused, so it is assigned them and commits their start: a restart before the resume reads what was
     * sent to them meanwhile, where new groups start at the end, and the group's lag counts it. Nothing is read here:
     * the member reads them from that start once resumed.
     *
     * @param announced the partitions the member was told of, which started as they were assigned
     */
    void whilePaused(BackendConsumer consumer, Set<Integer> announced) {
        Set<Integer> taken = new HashSet<>(consumer.assignment());
        taken.removeAll(announced);
        taken.removeAll(lookedAtWhilePaused);
        if (taken.isEmpty()) {
            return;
        }
        try {
            assigned(consumer, taken, Set.of());
        } catch (UnsupportedOperationException e) {
            // a backend whose consumers report no positions: the start is committed as the partitions are assigned
        }
        lookedAtWhilePaused.addAll(taken);
    }

    /**
     * The member joined its topic again after it was deleted (its group's commits went with it): the partitions
     * it is given without a commit start at their log start, also where new groups start at the end, since the
     * topic was created while the member ran.
     */
    void rejoined() {
        rejoined = true;
        lookedAtWhilePaused.clear();
    }

    /**
     * What to commit for {@code partition} once a listener's seek put the member at its position now: that position,
     * but for one below the log start (retention deleted what was sought) under the {@code latest} reset policy, which
     * the next poll moves to the end: that end. The offset sought would have the next start of the member reset to the
     * end of that later time, skipping what was sent meanwhile. The position is left where it is, for the poll to
     * reset (and log) as the policy says.
     */
    long committableAfterSeek(BackendConsumer consumer, int partition) {
        long position = consumer.position(partition);
        OffsetResetPolicy reset = container.properties().offsetReset();
        if (!(reset != null ? reset == OffsetResetPolicy.LATEST : backend.startsAtEndWithoutCommit())) {
            return position;
        }
        List<Integer> one = List.of(partition);
        try {
            consumer.seekToBeginning(one);
            if (position >= consumer.position(partition)) {
                return position;
            }
            consumer.seekToEnd(one);
            return consumer.position(partition);
        } catch (UnsupportedOperationException e) {
            return position; // a backend whose consumers cannot tell the log start or end
        } finally {
            consumer.seek(partition, position);
        }
    }

    /**
     * After a poll that found nothing: every partition the member reads is read up to its position, so it has
     * finished what lies before it, though it processed and committed none of it (it started at the end, a
     * listener sought past it, or retention removed it): the test helper's progress moves there.
     */
    void afterEmptyPoll(BackendConsumer consumer) {
        if (!reportsPositions) {
            return;
        }
        Map<Integer, Long> positions = new HashMap<>();
        try {
            for (int p : consumer.assignment()) {
                positions.put(p, consumer.position(p));
            }
        } catch (UnsupportedOperationException e) {
            reportsPositions = false; // a backend that does not report positions: progress comes from records only
            return;
        }
        progress.advance(positions);
    }
}
