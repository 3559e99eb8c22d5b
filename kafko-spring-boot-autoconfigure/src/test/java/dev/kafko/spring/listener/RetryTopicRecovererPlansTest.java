package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.DeadLetterRecovererDecisionsTest.INVOCATION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;

/**
 * The recoverer of a listener of several topics over a stub backend: its plans, the missing topics of a listener topic
 * not made yet left to its own start, and a record a stop took over not forwarded.
 */
class RetryTopicRecovererPlansTest {

    private final LogBackend backend = mock(LogBackend.class);
    private final RetryTopics orders = plan("orders");
    private final RetryTopics refunds = plan("refunds");
    private final RetryTopicRecoverer recoverer = new RetryTopicRecoverer(List.of(orders, refunds), backend,
            KafkoInstrumentation.NOOP);

    private static RetryTopics plan(String topic) {
        return new RetryTopics(topic, 3, 1_000, 0, 0, "-retry", "-dlt", List.of(), List.of());
    }

    @Test
    void itKeepsThePlansOfTheListenersTopicsInItsOrder() {
        assertThat(recoverer.getPlans()).containsExactly(orders, refunds);
        assertThat(recoverer.getTopics()).isSameAs(orders);
        assertThatThrownBy(() -> new RetryTopicRecoverer(List.of(), backend, KafkoInstrumentation.NOOP))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theMissingTopicsOfAListenerTopicNotMadeYetAreLeftToItsOwnStart() {
        RetryTopics declaredOnly = plan("orders").withTopicCreation(false, 0);
        RetryTopicRecoverer checking = new RetryTopicRecoverer(List.of(declaredOnly,
                plan("refunds").withTopicCreation(false, 0)), backend, KafkoInstrumentation.NOOP);
        when(backend.partitionCount(anyString())).thenThrow(new UnknownTopicException("no such topic"));
        doReturn(3).when(backend).partitionCount("refunds");

        // refunds' own retry and dead-letter topics are named; orders, which does not exist yet, names its own later
        assertThatThrownBy(() -> checking.prepare("refunds")).isInstanceOf(UnknownTopicException.class)
                .hasMessageContaining("kafko.topics.refunds-retry.partitions=3, kafko.topics.refunds-dlt.partitions=3)")
                .hasMessageNotContaining("orders-retry");
        assertThatThrownBy(() -> checking.prepare("orders")).isInstanceOf(UnknownTopicException.class)
                .hasMessage("no such topic");
        verify(backend, never()).ensureTopic(anyString(), anyInt());
    }

    @Test
    void aRecordWhoseStageAStopCancelledIsNotForwarded() {
        BackendProducer producer = mock(BackendProducer.class);
        when(backend.producer(anyString())).thenReturn(producer);
        when(backend.partitionCount(anyString())).thenReturn(1);
        KafkoRecord record = mock(KafkoRecord.class);
        when(record.topic()).thenReturn("refunds");
        when(record.headers()).thenReturn(Headers.empty());
        when(record.offset()).thenReturn(7L);
        AwaitedStage stage = new AwaitedStage();
        stage.bind();
        try {
            stage.stopOverran();
            assertThat(stage.cancelledByStop()).isTrue();

            assertThatThrownBy(() -> recoverer.recover(record, new IllegalStateException("boom"), INVOCATION))
                    .isInstanceOf(CancellationException.class).hasMessageContaining("refunds-0@7 is not dead-lettered");
            verify(producer, never()).send(any(), any(), any(), any(), anyLong());
        } finally {
            AwaitedStage.unbind();
        }
    }

    @Test
    void aRetryIsDueItsWaitAfterNowAndAWaitTooLongForTheClockAtTheLastMillisecond() {
        // a back-off of 0 (noBackoff, @BackOff(0)) is due now, not never
        assertThat(RetryTopicRecoverer.dueAfter(1_000, 0)).isEqualTo(1_000);
        assertThat(RetryTopicRecoverer.dueAfter(1_000, 500)).isEqualTo(1_500);
        assertThat(RetryTopicRecoverer.dueAfter(1_000, Long.MAX_VALUE - 1_000)).isEqualTo(Long.MAX_VALUE);
        assertThat(RetryTopicRecoverer.dueAfter(1_000, Long.MAX_VALUE - 999)).isEqualTo(Long.MAX_VALUE);
        assertThat(RetryTopicRecoverer.dueAfter(1_000, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }
}
