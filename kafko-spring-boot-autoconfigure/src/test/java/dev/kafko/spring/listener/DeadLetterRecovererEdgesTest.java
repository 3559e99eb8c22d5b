package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.DeadLetterRecovererDecisionsTest.INVOCATION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.kafko.Headers;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

/**
 * The recoverer's edges over a stub backend: the original headers of a record dead-lettered again and of one forwarded
 * between retry topics, a dead-letter topic deleted and made again under the recoverer, a resolver's partitions, the
 * bound of the topics remembered as ensured, a pattern's dead-letter topics, and a record a stop took over.
 */
class DeadLetterRecovererEdgesTest {

    private static final String DLT = "t" + DeadLetterPublishingRecoverer.SUFFIX;

    private final LogBackend backend = mock(LogBackend.class);
    private final BackendProducer producer = mock(BackendProducer.class);
    private final DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(backend);

    DeadLetterRecovererEdgesTest() {
        when(backend.producer(anyString())).thenReturn(producer);
        when(backend.partitionCount(anyString())).thenReturn(2);
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(0, 0)));
    }

    @Test
    void aRecordDeadLetteredAgainGetsASecondSetOfOriginalHeadersNamingThisRound() {
        Headers earlier = Headers.of(KafkoHeaders.DLT_ORIGINAL_TOPIC, utf8("first"))
                .with(KafkoHeaders.DLT_ORIGINAL_OFFSET, utf8("99"))
                .with(KafkoHeaders.DLT_EXCEPTION_MESSAGE, utf8("the first failure"));

        recoverer.recover(record("t", 1, earlier), new IllegalStateException("again"), INVOCATION);

        Headers sent = sentHeaders(1);
        assertThat(text(sent.lastValue(KafkoHeaders.DLT_ORIGINAL_TOPIC))).isEqualTo("t");
        assertThat(text(sent.lastValue(KafkoHeaders.DLT_ORIGINAL_OFFSET))).isEqualTo("7");
        assertThat(text(sent.lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).isEqualTo("again");
        assertThat(sent.headers(KafkoHeaders.DLT_ORIGINAL_TOPIC)).as("both sets of original headers").hasSize(2);
        assertThat(sent.headers(KafkoHeaders.DLT_EXCEPTION_MESSAGE)).as("only the new exception's").hasSize(1);
    }

    @Test
    void aRecordForwardedFromRetryTopicToRetryTopicKeepsTheOriginalHeadersOfItsFirstFailure() {
        Headers fromFirstFailure = Headers.of(KafkoHeaders.DLT_ORIGINAL_TOPIC, utf8("orders"))
                .with(KafkoHeaders.DLT_ORIGINAL_OFFSET, utf8("3"));
        Headers extra = Headers.of(KafkoHeaders.RETRY_ATTEMPTS, utf8("3"));

        recoverer.publish(record("orders-retry", 0, fromFirstFailure), new IllegalStateException("again"), INVOCATION,
                DeadLetterDestination.of("orders-retry", 0), extra, true);
        assertThat(text(sentHeaders(1).lastValue(KafkoHeaders.DLT_ORIGINAL_TOPIC))).isEqualTo("orders");
        assertThat(text(sentHeaders(1).lastValue(KafkoHeaders.DLT_ORIGINAL_OFFSET))).isEqualTo("3");
        assertThat(text(sentHeaders(1).lastValue(KafkoHeaders.RETRY_ATTEMPTS))).isEqualTo("3");

        // its first failure: no original headers yet, so they are added
        recoverer.publish(record("orders", 1, Headers.empty()), new IllegalStateException("first"), INVOCATION,
                DeadLetterDestination.of("orders-retry", 0), extra, true);
        assertThat(text(sentHeaders(2).lastValue(KafkoHeaders.DLT_ORIGINAL_TOPIC))).isEqualTo("orders");
        assertThat(text(sentHeaders(2).lastValue(KafkoHeaders.DLT_ORIGINAL_OFFSET))).isEqualTo("7");
    }

    @Test
    void aContainerStartedAgainGrowsTheDeadLetterTopicToThePartitionsItsTopicGainedMeanwhile() {
        recoverer.prepare("t");
        recoverer.prepare("t");
        verify(backend, times(1)).ensureTopic(DLT, 2);
        when(backend.partitionCount("t")).thenReturn(4);

        recoverer.prepare("t");

        verify(backend).ensureTopic(DLT, 4);
        recoverer.prepare("t");
        verify(backend, times(1)).ensureTopic(DLT, 4);
    }

    @Test
    void aContainerStartedAgainAfterItsTopicWasDeletedLeavesTheDeadLetterTopicAsItIs() {
        recoverer.prepare("t");
        when(backend.partitionCount("t")).thenThrow(new UnknownTopicException("topic 't' does not exist"));

        recoverer.prepare("t");

        verify(backend, times(1)).ensureTopic(anyString(), anyInt());
    }

    @Test
    void aDeadLetterTopicDeletedAndMadeAgainWithFewerPartitionsIsEnsuredAgainAndTheDeadLetterSentAgain() {
        recoverer.prepare("t");
        verify(backend).ensureTopic(DLT, 2);
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.failedFuture(new InvalidPartitionException("no partition 1")))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(1, 0)));

        recoverer.recover(record("t", 1, Headers.empty()), new IllegalStateException("boom"), INVOCATION);

        verify(producer, times(2)).send(eq(1), any(), any(), any(), anyLong());
        verify(backend, times(2)).ensureTopic(DLT, 2);
    }

    @Test
    void aDeadLetterTooLargeWhenSentAgainAfterAnInvalidPartitionIsSentWithoutItsStackTrace() {
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.failedFuture(new InvalidPartitionException("no partition 1")))
                .thenReturn(CompletableFuture.failedFuture(new RecordTooLargeException("too large")))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(1, 0)));

        recoverer.recover(record("t", 1, Headers.empty()), new IllegalStateException("boom"), INVOCATION);

        assertThat(text(sentHeaders(3).lastValue(KafkoHeaders.DLT_EXCEPTION_STACKTRACE)))
                .isEqualTo(DeadLetterPublishingRecoverer.STACK_TRACE_LEFT_OUT);
    }

    @Test
    void anInvalidPartitionThrownAtOnceIsHandledAsOneInTheFuture() {
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenThrow(new InvalidPartitionException("no partition 1"))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(1, 0)));

        recoverer.recover(record("t", 1, Headers.empty()), new IllegalStateException("boom"), INVOCATION);

        verify(producer, times(2)).send(eq(1), any(), any(), any(), anyLong());
    }

    @Test
    void anInvalidPartitionTheSecondTimeIsThrown() {
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.failedFuture(new InvalidPartitionException("no partition 1")));

        assertThatThrownBy(() -> recoverer.recover(record("t", 1, Headers.empty()), new IllegalStateException("boom"),
                INVOCATION)).hasRootCauseInstanceOf(InvalidPartitionException.class);
        verify(producer, times(2)).send(any(), any(), any(), any(), anyLong());
    }

    @Test
    void aResolversDestinationWithoutAPartitionOrWithOneTheTopicLacksIsLeftToTheKey() {
        DeadLetterPublishingRecoverer routed = new DeadLetterPublishingRecoverer(backend, (record, failure) ->
                record.partition() == 9 ? DeadLetterDestination.of("elsewhere")
                        : DeadLetterDestination.of("elsewhere", record.partition()));
        when(backend.partitionCount("elsewhere")).thenReturn(2);

        routed.recover(record("t", 9, Headers.empty()), new IllegalStateException("boom"), INVOCATION);
        routed.recover(record("t", 2, Headers.empty()), new IllegalStateException("boom"), INVOCATION);
        routed.recover(record("t", 1, Headers.empty()), new IllegalStateException("boom"), INVOCATION);

        ArgumentCaptor<Integer> partitions = ArgumentCaptor.forClass(Integer.class);
        verify(producer, times(3)).send(partitions.capture(), any(), any(), any(), anyLong());
        assertThat(partitions.getAllValues()).containsExactly(null, null, 1);
        verify(backend, never()).ensureTopic(anyString(), anyInt());
    }

    @Test
    void pastTheBoundTheTopicsRememberedAsEnsuredAreForgottenButNotForOneAlreadyKnown() {
        when(backend.partitionCount(anyString())).thenReturn(1);
        for (int i = 0; i < DeadLetterPublishingRecoverer.MAX_REMEMBERED; i++) {
            recoverer.recover(record("t" + i, 0, Headers.empty()), new IllegalStateException("boom"), INVOCATION);
        }
        assertThat(recoverer.remembered()).isEqualTo(DeadLetterPublishingRecoverer.MAX_REMEMBERED);

        // one already remembered, grown: it replaces its own entry, nothing is forgotten
        when(backend.partitionCount("t0")).thenReturn(3);
        recoverer.recover(record("t0", 2, Headers.empty()), new IllegalStateException("boom"), INVOCATION);
        verify(backend).ensureTopic("t0" + DeadLetterPublishingRecoverer.SUFFIX, 3);
        assertThat(recoverer.remembered()).isEqualTo(DeadLetterPublishingRecoverer.MAX_REMEMBERED);

        recoverer.recover(record("new", 0, Headers.empty()), new IllegalStateException("boom"), INVOCATION);
        assertThat(recoverer.remembered()).isEqualTo(1);
    }

    @Test
    void aPatternsTopicWhoseDeadLetterTopicExistsHasItGrownAndOneMissingIsLeftToTheFirstDeadLetter() {
        recoverer.prepareMatched("t");
        verify(backend).ensureTopic(DLT, 2);

        // the dead-letter topic was deleted since: forgotten as ensured, not made now, made at the first dead letter
        when(backend.partitionCount(DLT)).thenThrow(new UnknownTopicException("no " + DLT));
        when(backend.mayCreateTopic(DLT)).thenReturn(true);
        recoverer.prepareMatched("t");
        verify(backend).ensureTopic(DLT, 2);

        recoverer.recover(record("t", 0, Headers.empty()), new IllegalStateException("boom"), INVOCATION);
        verify(backend, times(2)).ensureTopic(DLT, 2);
    }

    @Test
    void aPatternsTopicWhoseDeadLetterTopicIsMissingAndMayNotBeMadeFailsNamingIt() {
        when(backend.partitionCount(DLT)).thenThrow(new UnknownTopicException("no " + DLT));
        when(backend.mayCreateTopic(DLT)).thenReturn(false);
        doThrow(new UnknownTopicException("no " + DLT)).when(backend).ensureTopic(eq(DLT), anyInt());

        assertThatThrownBy(() -> recoverer.prepareMatched("t")).isInstanceOf(UnknownTopicException.class)
                .hasMessageStartingWith("Dead letters of topic 't' go to 't.DLT', which does not exist");
    }

    @Test
    void aRecordWhoseRetryStageAStopCancelledIsNotDeadLettered() {
        AwaitedStage stage = new AwaitedStage();
        stage.bind();
        try {
            stage.stopOverran();
            assertThat(stage.cancelledByStop()).isTrue();

            assertThatThrownBy(() -> recoverer.recover(record("t", 0, Headers.empty()),
                    new IllegalStateException("boom"), INVOCATION)).isInstanceOf(CancellationException.class)
                    .hasMessageContaining("t-0@7 is not dead-lettered");
            verify(producer, never()).send(any(), any(), any(), any(), anyLong());
        } finally {
            AwaitedStage.unbind();
        }
    }

    private Headers sentHeaders(int sends) {
        ArgumentCaptor<Headers> headers = ArgumentCaptor.forClass(Headers.class);
        verify(producer, times(sends)).send(any(), any(), any(), headers.capture(), anyLong());
        return headers.getAllValues().get(sends - 1);
    }

    private static KafkoRecord record(String topic, int partition, Headers headers) {
        KafkoRecord r = mock(KafkoRecord.class);
        when(r.topic()).thenReturn(topic);
        when(r.partition()).thenReturn(partition);
        when(r.offset()).thenReturn(7L);
        when(r.timestamp()).thenReturn(1_000L);
        when(r.value()).thenReturn(new byte[] {1});
        when(r.headers()).thenReturn(headers);
        return r;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
