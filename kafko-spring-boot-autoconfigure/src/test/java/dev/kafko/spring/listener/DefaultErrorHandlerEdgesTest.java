package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The error handler's edges: the JVM's own errors thrown by a retry listener at each of its calls end the handling,
 * how deep a cause chain is classified, the default classification on its own, and what the handler hands on.
 */
class DefaultErrorHandlerEdgesTest {

    private final List<Exception> recovered = new ArrayList<>();
    private final DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(0, 2),
            (record, failure, invocation) -> recovered.add(failure));

    @Test
    void anOutOfMemoryErrorOfARetryListenerTellingOfAFailedDeliveryEndsTheHandling() {
        OutOfMemoryError fatal = new OutOfMemoryError("test: a retry listener's");
        handler.setRetryListeners((record, failure, attempt) -> {
            if (attempt == 2) {
                throw fatal;
            }
        });
        DefaultErrorHandlerTest.Attempts retries = new DefaultErrorHandlerTest.Attempts(new IllegalStateException("again"));

        assertThatThrownBy(() -> handler.handle(List.of(mock(KafkoRecord.class)), new IllegalStateException("boom"),
                retries)).isSameAs(fatal);
        assertThat(retries.retries).isEqualTo(1);
        assertThat(recovered).isEmpty();
    }

    @Test
    void anOutOfMemoryErrorOfARetryListenerTellingOfTheRecoveryEndsTheHandling() {
        OutOfMemoryError fatal = new OutOfMemoryError("test: a retry listener's");
        handler.setRetryListeners(new RetryListener() {
            @Override
            public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
            }

            @Override
            public void recovered(KafkoRecord record, Exception failure) {
                throw fatal;
            }
        });

        assertThatThrownBy(() -> handler.handle(List.of(mock(KafkoRecord.class), mock(KafkoRecord.class)),
                new IllegalStateException("boom"), new DefaultErrorHandlerTest.Attempts(new IllegalStateException("again")))).isSameAs(fatal);
        assertThat(recovered).as("the second record is not recovered").hasSize(1);
    }

    @Test
    void anOutOfMemoryErrorOfARetryListenerToldOfAFailedRecoveryEndsTheHandlingInsteadOfTheRecoveryFailure() {
        OutOfMemoryError fatal = new OutOfMemoryError("test: a retry listener's");
        DefaultErrorHandler failing = new DefaultErrorHandler(new FixedBackOff(0, 0), (record, failure, invocation) -> {
            throw new IllegalStateException("dead-letter topic gone");
        });
        failing.setRetryListeners(new RetryListener() {
            @Override
            public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
            }

            @Override
            public void recoveryFailed(KafkoRecord record, Exception failure, Exception recoveryFailure) {
                throw fatal;
            }
        });

        assertThatThrownBy(() -> failing.handle(List.of(mock(KafkoRecord.class)), new IllegalStateException("boom"),
                new DefaultErrorHandlerTest.Attempts(new IllegalStateException("again")))).isSameAs(fatal);
    }

    @Test
    void aStackOverflowOfARetryListenerIsLoggedAndChangesNothing() throws Exception {
        handler.setRetryListeners(new RetryListener() {
            @Override
            public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
                throw new StackOverflowError("test: a retry listener's");
            }

            @Override
            public void recovered(KafkoRecord record, Exception failure) {
                throw new StackOverflowError("test: a retry listener's");
            }
        });
        DefaultErrorHandlerTest.Attempts retries = new DefaultErrorHandlerTest.Attempts(new IllegalStateException("again"));

        handler.handle(List.of(mock(KafkoRecord.class)), new IllegalStateException("boom"), retries);

        assertThat(retries.retries).isEqualTo(2);
        assertThat(recovered).hasSize(1);
    }

    @Test
    void aCauseChainIsClassifiedAHundredExceptionsDeep() throws Exception {
        DefaultErrorHandlerTest.Attempts atTheHundredth = new DefaultErrorHandlerTest.Attempts(new IllegalStateException("again"));
        handler.handle(List.of(), chain(99, new ClassCastException("the hundredth")), atTheHundredth);
        assertThat(atTheHundredth.retries).as("a not-retryable hundredth exception").isZero();

        DefaultErrorHandlerTest.Attempts beyond = new DefaultErrorHandlerTest.Attempts(new IllegalStateException("again"));
        handler.handle(List.of(), chain(100, new ClassCastException("the hundred-and-first")), beyond);
        assertThat(beyond.retries).as("the hundred-and-first is not read: the chain counts as unclassified")
                .isEqualTo(2);
    }

    /** {@code wrappers} unclassified exceptions around {@code last}. */
    private static Exception chain(int wrappers, Exception last) {
        Exception e = last;
        for (int i = 0; i < wrappers; i++) {
            e = new IllegalStateException("wrapper " + i, e);
        }
        return e;
    }

    @Test
    void isRetryableReadsTheDefaultClassificationAlone() {
        assertThat(DefaultErrorHandler.isRetryable(new IllegalStateException("transient"))).isTrue();
        assertThat(DefaultErrorHandler.isRetryable(new IllegalStateException("wrapping",
                new MessageConversionException("unreadable")))).isFalse();
        assertThat(DefaultErrorHandler.isRetryable(new RecordTooLargeException("reply too large"))).isFalse();

        handler.addRetryableExceptions(ClassCastException.class); // a handler's own classification is its own
        assertThat(DefaultErrorHandler.isRetryable(new ClassCastException("generic payload"))).isFalse();
    }

    @Test
    void theRetryListenersAreHandedBackInOrderAndAPatternsTopicIsPreparedByTheRecoverer() {
        RetryListener first = (record, failure, attempt) -> { };
        RetryListener second = (record, failure, attempt) -> { };
        assertThat(handler.getRetryListeners()).isEmpty();
        handler.setRetryListeners(first, second);
        assertThat(handler.getRetryListeners()).containsExactly(first, second);

        RecordRecoverer recoverer = mock(RecordRecoverer.class);
        DefaultErrorHandler withRecoverer = new DefaultErrorHandler(recoverer);
        withRecoverer.prepareMatched("jobs-1");
        verify(recoverer).prepareMatched("jobs-1");
        withRecoverer.prepare("orders");
        verify(recoverer).prepare("orders");
    }
}
