package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dev.kafko.KafkoClosedException;
import dev.kafko.spring.core.LogBackend;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The progress the test helper reads ({@link ProcessedOffsets}) on its own: what counts for which topic id, how far it
 * moves, and that a waiting thread is woken by each kind of change.
 */
class ProcessedOffsetsEdgesTest {

    private final LogBackend backend = mock(LogBackend.class);
    private final ProcessedOffsets offsets = new ProcessedOffsets(backend);

    @Test
    void advanceKeepsTheHighestOffsetOfEachPartitionOfTheLiveTopic() {
        when(backend.topicId("t")).thenReturn("id-1");

        offsets.advance("t", "id-1", 0, 5);
        offsets.advance("t", "id-1", 0, 3); // a record finished late, behind one finished before it
        offsets.advance("t", "id-1", 1, 2);

        assertThat(offsets.snapshot("t", "id-1")).isEqualTo(Map.of(0, 5L, 1, 2L));
        assertThat(offsets.snapshot("t", "id-2")).as("another topic of the name").isEmpty();
        assertThat(offsets.snapshot("u", "id-1")).as("another name").isEmpty();
    }

    @Test
    void offsetsOfATopicThatIsNotTheLiveOneNeverCount() {
        when(backend.topicId("t")).thenReturn("id-2");

        offsets.advance("t", "id-1", 0, 5); // finished by a member still reading the deleted topic
        offsets.advance("t", null, 0, 6); // a member whose consumer knew no topic id
        offsets.replay("t", "id-1", 1, 2);
        offsets.rewind("t", "id-1", 2, 2);

        assertThat(offsets.snapshot("t", "id-1")).isEmpty();
        assertThat(offsets.snapshot("t", null)).isEmpty();
        assertThat(offsets.replaying("t", "id-1")).isEmpty();

        offsets.advance("t", "id-2", 0, 1);
        assertThat(offsets.snapshot("t", "id-2")).isEqualTo(Map.of(0, 1L));
        offsets.advance("t", "id-1", 0, 9); // the deleted topic's member again: the new topic's progress stays
        assertThat(offsets.snapshot("t", "id-2")).isEqualTo(Map.of(0, 1L));
    }

    @Test
    void aTopicCreatedAgainStartsFromNothing() {
        when(backend.topicId("t")).thenReturn("id-1");
        offsets.advance("t", "id-1", 0, 5);
        offsets.replay("t", "id-1", 1, 0);

        when(backend.topicId("t")).thenReturn("id-2");
        offsets.advance("t", "id-2", 1, 2);

        assertThat(offsets.snapshot("t", "id-2")).isEqualTo(Map.of(1, 2L));
        assertThat(offsets.replaying("t", "id-2")).isEmpty();
        assertThat(offsets.snapshot("t", "id-1")).isEmpty();
    }

    @Test
    void nothingCountsOnceTheLogClosedUnderAMember() {
        when(backend.topicId("t")).thenThrow(new KafkoClosedException("closed"));

        offsets.advance("t", "id-1", 0, 5);

        assertThat(offsets.snapshot("t", "id-1")).isEmpty();
    }

    @Test
    void rewindAndReplayMoveBackAndOnlyReplayMarksThePartitionReplaying() {
        when(backend.topicId("t")).thenReturn("id-1");
        offsets.advance("t", "id-1", 0, 9);
        offsets.advance("t", "id-1", 1, 9);

        offsets.rewind("t", "id-1", 0, 4);
        offsets.replay("t", "id-1", 1, 3);

        assertThat(offsets.snapshot("t", "id-1")).isEqualTo(Map.of(0, 4L, 1, 3L));
        assertThat(offsets.replaying("t", "id-1")).isEqualTo(Set.of(1));
        assertThat(offsets.replaying("t", "id-2")).isEmpty();
    }

    @Test
    void forgetDropsOneTopicAndClearDropsEvery() {
        when(backend.topicId("t")).thenReturn("id-t");
        when(backend.topicId("u")).thenReturn("id-u");
        offsets.advance("t", "id-t", 0, 1);
        offsets.advance("u", "id-u", 0, 2);

        offsets.forget("t");
        assertThat(offsets.snapshot("t", "id-t")).isEmpty();
        assertThat(offsets.snapshot("u", "id-u")).isEqualTo(Map.of(0, 2L));

        offsets.replay("u", "id-u", 0, 0);
        offsets.clear();
        assertThat(offsets.snapshot("u", "id-u")).isEmpty();
        assertThat(offsets.replaying("u", "id-u")).isEmpty();
    }

    @Test
    void aWaitingThreadIsWokenByAnAdvance() throws Exception {
        when(backend.topicId("t")).thenReturn("id-1");
        assertWokenBy(() -> offsets.advance("t", "id-1", 0, 1));
    }

    @Test
    void aWaitingThreadIsWokenByARewind() throws Exception {
        when(backend.topicId("t")).thenReturn("id-1");
        assertWokenBy(() -> offsets.rewind("t", "id-1", 0, 1));
    }

    @Test
    void aWaitingThreadIsWokenByAReplay() throws Exception {
        when(backend.topicId("t")).thenReturn("id-1");
        assertWokenBy(() -> offsets.replay("t", "id-1", 0, 1));
    }

    /** A thread waits a minute for a change; {@code change} must end the wait long before. */
    private void assertWokenBy(Runnable change) throws Exception {
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch woken = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                waiting.countDown();
                offsets.awaitChange(60_000);
                woken.countDown();
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "processed-offsets-waiter");
        waiter.start();
        try {
            assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
            // the waiter may not be parked yet: change until it is woken (each change signals every waiter)
            boolean wokenInTime = false;
            for (int i = 0; i < 200 && !wokenInTime; i++) {
                change.run();
                wokenInTime = woken.await(50, TimeUnit.MILLISECONDS);
            }
            assertThat(wokenInTime).as("woken by the change, not by the minute's timeout").isTrue();
            assertThat(failure.get()).isNull();
        } finally {
            waiter.interrupt();
            waiter.join(10_000);
        }
    }
}
