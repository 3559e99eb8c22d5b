package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * The recoverer's decisions over a stub backend: a failure to publish other than "too large" is not swallowed,
 * a dead letter too large with its stack trace is published without it and counted once, one too large even so
 * is skipped and not counted, and the dead-letter topic grows with the partitions of its topic.
 */
class DeadLetterRecovererDecisionsTest {

    private static final String DLT = "t" + DeadLetterPublishingRecoverer.SUFFIX;

    private final LogBackend backend = mock(LogBackend.class);
    private final BackendProducer producer = mock(BackendProducer.class);
    private final List<String> deadLettered = new ArrayList<>();
    private final DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(backend,
            new KafkoInstrumentation() {
                @Override
                public void deadLettered(String listenerId, String topic) {
                    deadLettered.add(listenerId + "/" + topic);
                }
            });

    DeadLetterRecovererDecisionsTest() {
        when(backend.producer(DLT)).thenReturn(producer);
        when(backend.partitionCount("t")).thenReturn(2);
    }

    @Test
    void aPublishFailureOtherThanTooLargeIsThrownNotSkipped() {
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.failedFuture(new IllegalStateException("disk gone")));

        assertThatThrownBy(() -> recoverer.recover(record(0), new IllegalStateException("boom"), INVOCATION))
                .hasRootCauseMessage("disk gone");
        assertThat(deadLettered).isEmpty();
    }

    @Test
    void aDeadLetterTooLargeWithItsStackTraceIsPublishedWithoutItAndCountedOnce() {
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.failedFuture(new RecordTooLargeException("too large")))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(0, 0)));

        recoverer.recover(record(0), new IllegalStateException("boom"), INVOCATION);

        ArgumentCaptor<Headers> headers = ArgumentCaptor.forClass(Headers.class);
        verify(producer, times(2)).send(any(), any(), any(), headers.capture(), anyLong());
        assertThat(new String(headers.getAllValues().get(1).lastValue(KafkoHeaders.DLT_EXCEPTION_STACKTRACE),
                StandardCharsets.UTF_8)).isEqualTo(DeadLetterPublishingRecoverer.STACK_TRACE_LEFT_OUT);
        assertThat(deadLettered).containsExactly("l/t");
    }

    @Test
    void aDeadLetterTooLargeEvenWithoutItsStackTraceIsSkippedAndNotCounted() {
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.failedFuture(new RecordTooLargeException("too large")));

        recoverer.recover(record(0), new IllegalStateException("boom"), INVOCATION);

        verify(producer, times(2)).send(any(), any(), any(), any(), anyLong());
        assertThat(deadLettered).isEmpty();
    }

    @Test
    void theDeadLetterTopicGrowsForARecordOfAPartitionItHasNotYet() {
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(0, 0)));
        recoverer.prepare("t");
        verify(backend).ensureTopic(DLT, 2);

        when(backend.partitionCount("t")).thenReturn(4); // partitions added to the topic since
        recoverer.recover(record(3), new IllegalStateException("boom"), INVOCATION);
        verify(backend).ensureTopic(DLT, 4);

        recoverer.recover(record(3), new IllegalStateException("boom"), INVOCATION);
        recoverer.recover(record(1), new IllegalStateException("boom"), INVOCATION);
        verify(backend, times(2)).ensureTopic(anyString(), anyInt()); // known large enough: not asked again
        verify(backend, never()).ensureTopic(DLT, 1);
        assertThat(deadLettered).hasSize(3);
    }

    private static KafkoRecord record(int partition) {
        KafkoRecord r = mock(KafkoRecord.class);
        when(r.topic()).thenReturn("t");
        when(r.partition()).thenReturn(partition);
        when(r.offset()).thenReturn(7L);
        when(r.timestamp()).thenReturn(1_000L);
        when(r.value()).thenReturn(new byte[] {1});
        when(r.headers()).thenReturn(Headers.empty());
        return r;
    }

    static final FailedInvocation INVOCATION = new FailedInvocation() {
        @Override
        public String listenerId() {
            return "l";
        }

        @Override
        public String groupId() {
            return "g";
        }

        @Override
        public void retry() {
        }

        @Override
        public boolean backOff(long millis) {
            return true;
        }
    };
}
