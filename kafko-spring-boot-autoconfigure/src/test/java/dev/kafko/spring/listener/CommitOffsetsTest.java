package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.kafko.KafkoRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bookkeeping of one member's commits, on its own: the highest acknowledged offset per partition is
 * committed, a commit never moves back, and an acknowledgment of an earlier ownership is never committed.
 */
class CommitOffsetsTest {

    private final CommitOffsets offsets = new CommitOffsets();
    private final List<long[]> dropped = new ArrayList<>();

    @Test
    void takeCommitsTheHighestOffsetOfEachPartitionOnceWhateverTheOrderOfTheAcknowledgments() {
        offsets.add(0, 5);
        offsets.add(0, 3); // a late acknowledgment of an earlier record, in the partition being advanced
        offsets.add(1, 2);
        offsets.add(0, 7);
        offsets.add(1, 1); // the same, after another partition took its place
        offsets.add(0, 6);

        assertThat(offsets.take()).isEqualTo(Map.of(0, 7L, 1, 2L));
        assertThat(offsets.take()).isEmpty();
    }

    @Test
    void aCommitNeverMovesBackNorRepeatsTheOneMade() {
        offsets.add(0, 7);
        offsets.committed(offsets.take());

        offsets.add(0, 5);
        assertThat(offsets.take()).as("behind the commit").isEmpty();
        offsets.add(0, 7);
        assertThat(offsets.take()).as("the commit itself").isEmpty();
        offsets.add(0, 8);
        assertThat(offsets.take()).isEqualTo(Map.of(0, 8L));

        offsets.committed(Map.of(0, 10L));
        offsets.committed(Map.of(0, 9L)); // the highest commit is remembered, not the last
        offsets.add(0, 10);
        assertThat(offsets.take()).isEmpty();
        offsets.add(0, 11);
        assertThat(offsets.take()).isEqualTo(Map.of(0, 11L));
    }

    @Test
    void takeRevokedHandsOverOnlyTheRevokedPartitionsAndForgetsTheirCommits() {
        offsets.committed(Map.of(0, 10L, 1, 10L));
        offsets.add(0, 12);
        offsets.add(1, 13);
        offsets.add(2, 4);

        assertThat(offsets.takeRevoked(List.of(1, 2, 3))).isEqualTo(Map.of(1, 13L, 2, 4L));
        assertThat(offsets.take()).isEqualTo(Map.of(0, 12L));

        // partition 1 is back (another member may have committed it lower meanwhile): its old commit is forgotten
        offsets.add(1, 5);
        assertThat(offsets.take()).isEqualTo(Map.of(1, 5L));
        // partition 0 kept its commit
        offsets.committed(Map.of(0, 12L));
        offsets.add(0, 11);
        assertThat(offsets.take()).isEmpty();
    }

    @Test
    void takeRevokedStillRefusesAnOffsetBehindTheRevokedPartitionsCommit() {
        offsets.committed(Map.of(0, 10L));
        offsets.add(0, 4);
        assertThat(offsets.takeRevoked(List.of(0))).isEmpty();
    }

    @Test
    void anAssignmentForgetsThePartitionsCommitAndMakesEarlierAcknowledgmentsStale() {
        long before = offsets.epoch();
        offsets.committed(Map.of(0, 10L, 1, 10L));
        offsets.assigned(List.of(0));
        long after = offsets.epoch();
        assertThat(after).isGreaterThan(before);

        assertThat(offsets.acknowledge(0, 20, before)).as("delivered before partition 0 was assigned again").isFalse();
        assertThat(offsets.take()).isEmpty();
        assertThat(offsets.acknowledge(1, 20, before)).as("partition 1 was not assigned again").isTrue();
        assertThat(offsets.acknowledge(0, 5, after)).isTrue();
        assertThat(offsets.take()).as("partition 0's old commit of 10 is forgotten").isEqualTo(Map.of(0, 5L, 1, 20L));
    }

    @Test
    void afterAResetOnlyAcknowledgmentsOfTheNewConsumerCount() {
        offsets.assigned(List.of(0));
        long old = offsets.epoch();
        offsets.committed(Map.of(1, 10L));
        offsets.add(0, 3);
        offsets.queueForeign(Map.of(0, 4L), old);

        offsets.reset();

        assertThat(offsets.take()).as("pending offsets dropped").isEmpty();
        offsets.drainForeign(() -> Set.of(0, 1), this::dropped);
        assertThat(offsets.take()).as("queued acknowledgments dropped").isEmpty();
        assertThat(offsets.acknowledge(2, 9, old)).as("a partition never assigned, of the old consumer").isFalse();
        long now = offsets.epoch();
        assertThat(offsets.acknowledge(2, 9, now)).isTrue();
        assertThat(offsets.acknowledge(1, 2, now)).isTrue();
        assertThat(offsets.take()).as("the commits of the old consumer are forgotten").isEqualTo(Map.of(2, 9L, 1, 2L));
    }

    @Test
    void foreignAcknowledgmentsOfOwnedCurrentPartitionsAreCommittedAndTheOthersReportedAsDropped() {
        offsets.assigned(List.of(0, 1, 2));
        long epoch = offsets.epoch();
        offsets.queueForeign(Map.of(0, 5L), epoch);
        offsets.queueForeign(Map.of(1, 8L), epoch); // partition 1 moved to another member
        offsets.queueForeign(Map.of(2, 3L), epoch);
        offsets.assigned(List.of(2)); // partition 2 assigned again since

        offsets.drainForeign(() -> Set.of(0, 2), this::dropped);

        assertThat(offsets.take()).isEqualTo(Map.of(0, 5L));
        assertThat(dropped).extracting(d -> d[0] + "@" + d[1]).containsExactlyInAnyOrder("1@7", "2@2");
        dropped.clear();
        offsets.drainForeign(() -> {
            throw new AssertionError("nothing queued: the assignment is not asked for");
        }, this::dropped);
        assertThat(dropped).isEmpty();
    }

    @Test
    void dropPendingForgetsThePartitionBeingAdvancedAndTheQueueButNotTheCommits() {
        offsets.committed(Map.of(0, 10L));
        offsets.add(1, 3);
        offsets.add(2, 4);
        offsets.queueForeign(Map.of(2, 6L), offsets.epoch());

        offsets.dropPending();

        offsets.drainForeign(() -> Set.of(0, 1, 2), this::dropped);
        assertThat(offsets.take()).isEmpty();
        offsets.add(0, 9);
        assertThat(offsets.take()).isEmpty();
    }

    @Test
    void nextOffsetsIsOnePastTheHighestRecordOfEachPartition() {
        List<KafkoRecord> records = List.of(record(0, 4), record(1, 9), record(0, 2), record(0, 6), record(1, 3));
        assertThat(CommitOffsets.nextOffsets(records)).isEqualTo(Map.of(0, 7L, 1, 10L));
        assertThat(CommitOffsets.nextOffsets(List.of())).isEmpty();
    }

    @Test
    void describeNamesTheLastRecordOfEachPartitionInPartitionOrder() {
        assertThat(CommitOffsets.describe("t", Map.of(3, 5L, 1, 1L))).isEqualTo(
                "the records up to t-1@0, t-3@4 (each one since this member's last commit there) were");
    }

    private void dropped(int partition, long offset) {
        dropped.add(new long[] {partition, offset});
    }

    private static KafkoRecord record(int partition, long offset) {
        KafkoRecord r = mock(KafkoRecord.class);
        when(r.partition()).thenReturn(partition);
        when(r.offset()).thenReturn(offset);
        return r;
    }
}
