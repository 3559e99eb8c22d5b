package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.DeliveryAcknowledgmentEdgesTest.Rec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One member's {@link MemberCommits} over a stub consumer: when each ack mode commits, what a commit that fails does to
 * the records' progress (the test helper's), and that a commit never moves back.
 */
class MemberCommitsEdgesTest {

    private final KafkoMessageListenerContainer container = mock(KafkoMessageListenerContainer.class);
    private final ListenerConsumer member = mock(ListenerConsumer.class);
    private final BackendConsumer consumer = mock(BackendConsumer.class);
    private final MemberLog log = mock(MemberLog.class);
    private final ProcessedOffsets processed;

    MemberCommitsEdgesTest() {
        LogBackend backend = mock(LogBackend.class);
        when(backend.topicId("t")).thenReturn("id");
        processed = new ProcessedOffsets(backend);
        when(container.topic()).thenReturn("t");
        when(container.getListenerId()).thenReturn("orders");
        when(container.memberName()).thenReturn("orders-0");
        when(container.processed()).thenReturn(processed);
        when(member.consumer()).thenReturn(consumer);
        when(member.topicId()).thenReturn("id");
        when(consumer.assignment()).thenReturn(Set.of(0, 1));
    }

    private MemberCommits commits(AckMode mode) {
        return commits(mode, 1, Duration.ofHours(1));
    }

    private MemberCommits commits(AckMode mode, int ackCount, Duration ackTime) {
        when(container.properties()).thenReturn(new ContainerProperties(mode, 1, Duration.ofSeconds(1), 500,
                Duration.ofSeconds(10), ackCount, ackTime));
        return new MemberCommits(container, member, log);
    }

    private static List<KafkoRecord> records(int... partitionOffsetPairs) {
        List<KafkoRecord> records = new ArrayList<>();
        for (int i = 0; i < partitionOffsetPairs.length; i += 2) {
            records.add(new Rec(partitionOffsetPairs[i], partitionOffsetPairs[i + 1]));
        }
        return records;
    }

    private Map<Integer, Long> progress() {
        return processed.snapshot("t", "id");
    }

    @Test
    void underRecordEachProcessedDeliveryIsCommittedAtOnceWithTheNextOffsetOfEachPartition() {
        MemberCommits commits = commits(AckMode.RECORD);

        commits.processed(records(0, 4));
        verify(consumer).commit(Map.of(0, 5L));
        commits.processed(records(0, 5, 1, 2, 0, 6));
        verify(consumer).commit(Map.of(0, 7L, 1, 3L));
        verify(log, times(2)).committed();
        assertThat(progress()).isEqualTo(Map.of(0, 7L, 1, 3L));
    }

    @Test
    void underBatchTheRecordsAreCommittedAndCountAsProcessedOnlyAtTheEndOfThePoll() {
        MemberCommits commits = commits(AckMode.BATCH);

        commits.processed(records(0, 4));
        commits.processed(records(1, 0));
        verify(consumer, never()).commit(anyMap());
        assertThat(progress()).isEmpty();

        commits.commitIfDue();
        verify(consumer).commit(Map.of(0, 5L, 1, 1L));
        assertThat(progress()).isEqualTo(Map.of(0, 5L, 1, 1L));
        commits.commitIfDue(); // nothing new: no empty commit
        verify(consumer).commit(anyMap());
    }

    @Test
    void underCountACommitComesOnceAckCountRecordsCameSinceTheLastOne() {
        MemberCommits commits = commits(AckMode.COUNT, 3, Duration.ofHours(1));

        commits.processed(records(0, 0, 0, 1));
        commits.commitIfDue();
        verify(consumer, never()).commit(anyMap());
        assertThat(progress()).as("processed, though not committed yet").isEqualTo(Map.of(0, 2L));

        commits.processed(records(0, 2)); // the third: exactly ackCount
        commits.commitIfDue();
        verify(consumer).commit(Map.of(0, 3L));

        commits.processed(records(0, 3)); // the count starts again after a commit
        commits.commitIfDue();
        verify(consumer).commit(anyMap());
        commits.processed(records(0, 4, 0, 5));
        commits.commitIfDue();
        verify(consumer).commit(Map.of(0, 6L));
    }

    @Test
    void underTimeNoCommitComesBeforeAckTimeAndUnderCountTimeTheCountIsEnough() {
        MemberCommits byTime = commits(AckMode.TIME, 1, Duration.ofHours(1));
        byTime.processed(records(0, 0, 0, 1, 0, 2));
        byTime.commitIfDue();
        verify(consumer, never()).commit(anyMap());
        assertThat(progress()).isEqualTo(Map.of(0, 3L));
        byTime.commitPending(); // the end of the run commits whatever is due
        verify(consumer).commit(Map.of(0, 3L));

        MemberCommits byCountOrTime = commits(AckMode.COUNT_TIME, 2, Duration.ofHours(1));
        byCountOrTime.processed(records(1, 0));
        byCountOrTime.commitIfDue();
        verify(consumer, never()).commit(Map.of(1, 1L));
        byCountOrTime.processed(records(1, 1));
        byCountOrTime.commitIfDue();
        verify(consumer).commit(Map.of(1, 2L));
    }

    @Test
    void underTimeTheShortestAckTimeCommitsAtTheEndOfEveryPoll() {
        MemberCommits commits = commits(AckMode.TIME, 1, Duration.ofNanos(1));
        commits.processed(records(0, 0));
        commits.commitIfDue();
        verify(consumer).commit(Map.of(0, 1L));
    }

    @Test
    void aLateAcknowledgmentBehindTheCommitIsNeverCommitted() {
        MemberCommits commits = commits(AckMode.MANUAL_IMMEDIATE);

        commits.acknowledgedOnOwner(Map.of(0, 10L), 0);
        verify(consumer).commit(Map.of(0, 10L));
        commits.acknowledgedOnOwner(Map.of(0, 4L), 0); // an earlier record acknowledged after a later one
        commits.acknowledgedOnOwner(Map.of(0, 10L), 0);

        verify(consumer).commit(anyMap());
    }

    @Test
    void underManualAnAcknowledgmentWaitsForTheEndOfThePoll() {
        MemberCommits commits = commits(AckMode.MANUAL);

        commits.acknowledgedOnOwner(Map.of(0, 3L), 0);
        verify(consumer, never()).commit(anyMap());
        commits.commitIfDue();
        verify(consumer).commit(Map.of(0, 3L));
    }

    @Test
    void anAcknowledgmentOnAnotherThreadWakesTheMemberOnlyUnderManualImmediateAndCountsOnceDrained() {
        MemberCommits manual = commits(AckMode.MANUAL);
        manual.acknowledgedElsewhere(Map.of(0, 3L), 0);
        verify(member, never()).acknowledgedElsewhere();

        MemberCommits immediate = commits(AckMode.MANUAL_IMMEDIATE);
        immediate.acknowledgedElsewhere(Map.of(1, 8L), 0);
        immediate.acknowledgedElsewhere(Map.of(2, 5L), 0); // partition 2 is not this member's
        verify(member, times(2)).acknowledgedElsewhere(); // each one wakes the member, which sorts them out
        immediate.commitPending();
        verify(consumer, never()).commit(anyMap());

        immediate.drainForeign();
        immediate.commitPending();
        verify(consumer).commit(Map.of(1, 8L));
    }

    @Test
    void recordsFinishedUnacknowledgedUnderManualCountOnlyOnceThePollsCommitIsMade() {
        MemberCommits commits = commits(AckMode.MANUAL);

        commits.finishedUnacknowledged(records(0, 4, 0, 2));
        assertThat(progress()).isEmpty();
        commits.commitIfDue();
        assertThat(progress()).isEqualTo(Map.of(0, 5L));
        verify(consumer, never()).commit(anyMap());

        processed.clear();
        commits.commitIfDue(); // told once, not at every commit
        assertThat(progress()).isEmpty();
    }

    @Test
    void recordsFinishedUnacknowledgedUnderManualImmediateCountAtOnce() {
        MemberCommits commits = commits(AckMode.MANUAL_IMMEDIATE);
        commits.finishedUnacknowledged(records(1, 6));
        assertThat(progress()).isEqualTo(Map.of(1, 7L));
        verify(consumer, never()).commit(anyMap());
    }

    @Test
    void aCommitThatFailsIsLoggedAndItsRecordsStillCountAsProcessedAndAreCommittedAgainLater() {
        MemberCommits commits = commits(AckMode.RECORD);
        KafkoException full = new KafkoException("disk full");
        doThrow(full).when(consumer).commit(Map.of(0, 5L));

        commits.processed(records(0, 4));

        verify(log).commitFailed(Map.of(0, 5L), full);
        verify(log, never()).committed();
        assertThat(progress()).isEqualTo(Map.of(0, 5L));

        // the failed commit is not taken for a commit made: a later acknowledgment of the same offset commits it
        commits.acknowledgedOnOwner(Map.of(0, 5L), 0);
        commits.commitPending();
        verify(consumer, times(2)).commit(Map.of(0, 5L));
    }

    @Test
    void aCommitOfADeletedTopicForgetsItAndCountsItsRecordsNowhere() {
        MemberCommits commits = commits(AckMode.RECORD);
        UnknownTopicException gone = new UnknownTopicException("t is gone");
        doThrow(gone).when(consumer).commit(any());

        commits.processed(records(0, 4));

        verify(member).forgetDeletedTopic(gone);
        assertThat(progress()).isEmpty();
        verify(log, never()).commitFailed(any(), any());
    }

    @Test
    void aCommitAfterKafkoClosedIsThrownUnlessTheContainerIsStopping() {
        MemberCommits commits = commits(AckMode.RECORD);
        KafkoClosedException closed = new KafkoClosedException("closed");
        doThrow(closed).when(consumer).commit(any());

        assertThatThrownBy(() -> commits.processed(records(0, 4))).isSameAs(closed);
        assertThat(progress()).isEmpty();
    }

    @Test
    void aCommitAfterKafkoClosedDuringAStopCountsTheRecordsAsProcessed() {
        when(container.stopRequested()).thenReturn(true);
        doThrow(new KafkoClosedException("closed")).when(consumer).commit(any());

        commits(AckMode.RECORD).processed(records(0, 4)); // past the shutdown timeout
        assertThat(progress()).isEqualTo(Map.of(0, 5L));

        when(container.closedByOwnListener()).thenReturn(true);
        commits(AckMode.RECORD).processed(records(1, 2)); // the listener closed the application itself
        assertThat(progress()).isEqualTo(Map.of(0, 5L, 1, 3L));
        verify(log, never()).commitFailed(any(), any());
    }
}
