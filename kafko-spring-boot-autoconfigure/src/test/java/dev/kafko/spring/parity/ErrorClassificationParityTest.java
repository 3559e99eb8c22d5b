package dev.kafko.spring.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.FailedInvocation;
import dev.kafko.spring.listener.ListenerExecutionFailedException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * spring-kafka's {@code DefaultErrorHandler} does not retry, by default, the failures that would fail the same way at
 * every attempt: besides conversion and argument-resolution failures, a {@link ClassCastException} (a generic payload
 * whose elements are not the declared type) and a {@link NoSuchMethodException}, anywhere in the cause chain.
 */
class ErrorClassificationParityTest {

    private final List<Throwable> recovered = new ArrayList<>();
    private final DefaultErrorHandler handler = new DefaultErrorHandler((record, failure, invocation) -> recovered.add(failure));

    @Test
    void aClassCastExceptionGoesStraightToRecoveryAsInSpringKafka() throws Exception {
        Exception failure = new ListenerExecutionFailedException("Listener 'orders' threw",
                new ClassCastException("class java.util.LinkedHashMap cannot be cast to class com.example.Order"));
        Attempts attempts = new Attempts();

        handler.handle(List.of(mock(KafkoRecord.class)), failure, attempts);

        assertThat(attempts.retries).as("retries of a failure that comes back the same every time").isZero();
        assertThat(recovered).containsExactly(failure);
        assertThat(DefaultErrorHandler.isRetryable(failure)).isFalse();
    }

    @Test
    void aNoSuchMethodExceptionGoesStraightToRecoveryAsInSpringKafka() {
        assertThat(DefaultErrorHandler.isRetryable(new IllegalStateException("reflective call",
                new NoSuchMethodException("com.example.Order.amount()")))).isFalse();
        assertThat(DefaultErrorHandler.isRetryable(new IllegalStateException("transient"))).isTrue();
    }

    /** Counts retries; every retry fails again. */
    private static final class Attempts implements FailedInvocation {
        int retries;

        @Override
        public String listenerId() {
            return "orders";
        }

        @Override
        public String groupId() {
            return "orders";
        }

        @Override
        public void retry() {
            retries++;
            throw new ClassCastException("again");
        }

        @Override
        public boolean backOff(long millis) {
            return true;
        }
    }
}
