package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

import dev.kafko.KafkoRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

class DefaultErrorHandlerTest {

    private final List<Throwable> recovered = new ArrayList<>();
    private final DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(0, 4),
            (record, failure, invocation) -> recovered.add(failure));

    @Test
    void settingsThatCannotWorkAreRefusedWhenTheHandlerIsMade() {
        assertThatThrownBy(() -> DefaultErrorHandler.withAttempts(3, -5, new LoggingRecordRecoverer()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("intervalMillis must not be negative, was -5");
        assertThatThrownBy(() -> new DefaultErrorHandler(new FixedBackOff(0, 1), null))
                .isInstanceOf(NullPointerException.class).hasMessage("recoverer");
        assertThatThrownBy(() -> new ContainerProperties(AckMode.BATCH, 1, java.time.Duration.ofSeconds(1), 1,
                java.time.Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("shutdownTimeout must not be negative, was PT-1S");
    }

    /** The smallest settings withAttempts takes: one attempt (no retry) and no wait between attempts. */
    @Test
    void withAttemptsTakesOneAttemptAndNoWaitAndRefusesLess() throws Exception {
        RecordRecoverer recoverer = (record, failure, invocation) -> recovered.add(failure);
        Attempts once = new Attempts(new IllegalStateException("again"));
        DefaultErrorHandler.withAttempts(1, 0, recoverer).handle(List.of(mock(KafkoRecord.class)),
                new IllegalStateException("first"), once);
        assertThat(once.retries).isZero();
        assertThat(recovered).hasSize(1);

        Attempts three = new Attempts(new IllegalStateException("again"));
        DefaultErrorHandler.withAttempts(3, 0, recoverer).handle(List.of(mock(KafkoRecord.class)),
                new IllegalStateException("first"), three);
        assertThat(three.retries).isEqualTo(2);

        assertThatThrownBy(() -> DefaultErrorHandler.withAttempts(0, 0, recoverer))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxAttempts must be at least 1, was 0");
    }

    @Test
    void springKafkasConstructorsTakeTheRecovererFirstAndDefaultToTenAttempts() throws Exception {
        RecordRecoverer recoverer = (record, failure, invocation) -> recovered.add(failure);
        Attempts three = new Attempts(new IllegalStateException("again"));
        new DefaultErrorHandler(recoverer, new FixedBackOff(0, 2)).handle(List.of(mock(KafkoRecord.class)),
                new IllegalStateException("first"), three);
        assertThat(three.retries).isEqualTo(2);
        Attempts ten = new Attempts(new IllegalStateException("again"));
        new DefaultErrorHandler(recoverer).handle(List.of(mock(KafkoRecord.class)), new IllegalStateException("first"),
                ten);
        assertThat(ten.retries).isEqualTo(9);
        assertThat(recovered).hasSize(2);
        assertThatThrownBy(() -> new DefaultErrorHandler((RecordRecoverer) null))
                .isInstanceOf(NullPointerException.class).hasMessage("recoverer");
    }

    @Test
    void springKafkasBackOffOnlyConstructorRetriesThenLogsAndSkips() throws Exception {
        DefaultErrorHandler backOffOnly = new DefaultErrorHandler(new FixedBackOff(0, 2));
        Attempts three = new Attempts(new IllegalStateException("again"));
        backOffOnly.handle(List.of(mock(KafkoRecord.class)), new IllegalStateException("first"), three);
        assertThat(three.retries).isEqualTo(2);
        assertThat(backOffOnly.getRecoverer()).isInstanceOf(LoggingRecordRecoverer.class);
        assertThatThrownBy(() -> new DefaultErrorHandler((org.springframework.util.backoff.BackOff) null))
                .isInstanceOf(NullPointerException.class).hasMessage("backOff");
    }

    @Test
    void anExponentialBackOffRetriesUntilItsElapsedTimeRunsOutThenRecovers() throws Exception {
        ExponentialBackOff backOff = new ExponentialBackOff(1, 2.0);
        backOff.setMaxElapsedTime(20); // waits of 1, 2, 4, 8 ms, then 16 would pass 20 in all
        Attempts attempts = new Attempts(new IllegalStateException("again"));
        new DefaultErrorHandler((record, failure, invocation) -> recovered.add(failure), backOff)
                .handle(List.of(mock(KafkoRecord.class)), new IllegalStateException("first"), attempts);
        assertThat(attempts.retries).isBetween(4, 5);
        assertThat(recovered).hasSize(1);
    }

    @Test
    void aNotRetryableExceptionDeepInTheCauseChainSkipsEveryRetry() throws Exception {
        handler.addNotRetryableExceptions(IOException.class);
        Attempts attempts = new Attempts(new IllegalStateException("a retry would have run"));
        Exception failure = new IllegalStateException("outer", new UncheckedIOException(new IOException("disk")));

        handler.handle(List.of(mock(KafkoRecord.class)), failure, attempts);

        assertThat(attempts.retries).isZero();
        assertThat(recovered).containsExactly(failure);
    }

    @Test
    void aRetryThatFailsWithANotRetryableExceptionStopsTheRetriesAndRecoversWithIt() throws Exception {
        handler.addNotRetryableExceptions(IllegalArgumentException.class);
        IllegalArgumentException hopeless = new IllegalArgumentException("hopeless");
        Attempts attempts = new Attempts(hopeless);
        KafkoRecord record = mock(KafkoRecord.class);

        handler.handle(List.of(record), new IllegalStateException("transient"), attempts);

        assertThat(attempts.retries).isEqualTo(1);
        assertThat(recovered).containsExactly(hopeless);
    }

    @Test
    void otherExceptionsAreStillRetriedUntilTheBackOffIsExhausted() throws Exception {
        handler.addNotRetryableExceptions(IOException.class);
        Attempts attempts = new Attempts(new IllegalStateException("again"));

        handler.handle(List.of(), new IllegalStateException("first"), attempts);

        assertThat(attempts.retries).isEqualTo(4);
    }

    @Test
    void aRetryableClassificationOverridesADefaultAndItsNearestSuperclassDecides() throws Exception {
        handler.addRetryableExceptions(ClassCastException.class);
        Attempts casts = new Attempts(new ClassCastException("again"));
        handler.handle(List.of(), new ClassCastException("thrown on purpose"), casts);
        assertThat(casts.retries).isEqualTo(4);

        handler.addNotRetryableExceptions(RuntimeException.class);
        handler.addRetryableExceptions(IllegalStateException.class);
        Attempts states = new Attempts(new IllegalStateException("again"));
        handler.handle(List.of(), new IllegalStateException("retried: its own class is classified"), states);
        assertThat(states.retries).isEqualTo(4);
        Attempts arguments = new Attempts(new IllegalArgumentException("again"));
        handler.handle(List.of(), new IllegalArgumentException("not: its superclass is"), arguments);
        assertThat(arguments.retries).isZero();
    }

    @Test
    void theFirstClassifiedExceptionOfTheCauseChainDecides() throws Exception {
        handler.addNotRetryableExceptions(IOException.class);
        handler.addRetryableExceptions(TransientWrapper.class);
        Attempts wrapped = new Attempts(new TransientWrapper(new IOException("again")));
        handler.handle(List.of(), new TransientWrapper(new IOException("disk")), wrapped);
        assertThat(wrapped.retries).isEqualTo(4);

        Attempts unclassified = new Attempts(new IllegalStateException("again"));
        handler.handle(List.of(), new IllegalStateException("outer", new IOException("disk")), unclassified);
        assertThat(unclassified.retries).isZero();
    }

    @Test
    void aRemovedClassificationNoLongerCountsAndRemovingReturnsWhatItWas() throws Exception {
        assertThat(handler.removeClassification(ClassCastException.class)).isFalse();
        assertThat(handler.removeClassification(ClassCastException.class)).isNull();
        handler.addRetryableExceptions(IOException.class);
        assertThat(handler.removeClassification(IOException.class)).isTrue();
        Attempts casts = new Attempts(new ClassCastException("again"));
        handler.handle(List.of(), new ClassCastException("first"), casts);
        assertThat(casts.retries).isEqualTo(4);
        assertThatThrownBy(() -> handler.removeClassification(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("type");
    }

    @Test
    void afterDefaultFalseOnlyFailuresClassifiedRetryableAreRetried() throws Exception {
        handler.defaultFalse();
        Attempts plain = new Attempts(new IllegalStateException("again"));
        handler.handle(List.of(), new IllegalStateException("first"), plain);
        assertThat(plain.retries).isZero();

        handler.addRetryableExceptions(IOException.class);
        Attempts io = new Attempts(new UncheckedIOException(new IOException("again")));
        handler.handle(List.of(), new UncheckedIOException(new IOException("disk")), io);
        assertThat(io.retries).isEqualTo(4);
        // a retry that fails with an unclassified exception ends the retries
        Attempts changed = new Attempts(new IllegalStateException("something else"));
        handler.handle(List.of(), new UncheckedIOException(new IOException("disk")), changed);
        assertThat(changed.retries).isEqualTo(1);
    }

    @Test
    void aCauseChainThatLoopsIsClassifiedAndEnds() throws Exception {
        IllegalStateException a = new IllegalStateException("a");
        IllegalArgumentException b = new IllegalArgumentException("b", a);
        a.initCause(b); // a -> b -> a -> ...
        Attempts attempts = new Attempts(new IllegalStateException("again"));
        handler.handle(List.of(), a, attempts);
        assertThat(attempts.retries).isEqualTo(4);
    }

    private static final class TransientWrapper extends RuntimeException {
        TransientWrapper(Throwable cause) {
            super("transient", cause);
        }
    }

    @Test
    void aNullTypeIsRejected() {
        assertThatThrownBy(() -> handler.addNotRetryableExceptions(IOException.class, null))
                .isInstanceOf(NullPointerException.class);
    }

    /** Counts retries; every retry throws {@code failure}. */
    @Test
    void retryListenersHearEveryFailedDeliveryWithItsAttemptThenTheRecovery() throws Exception {
        List<String> heard = new ArrayList<>();
        KafkoRecord a = mock(KafkoRecord.class);
        handler.setRetryListeners(new Recording("first", heard), (record, failure, attempt) -> {
            throw new IllegalStateException("a listener that breaks changes nothing");
        }, new Recording("second", heard));

        handler.handle(List.of(a), new IllegalStateException("boom"), new Attempts(new IllegalStateException("again")));

        // five attempts in all (FixedBackOff(0, 4)), each told to both in order, then the recovery
        assertThat(heard).containsExactly("first:failed 1 boom", "second:failed 1 boom",
                "first:failed 2 again", "second:failed 2 again", "first:failed 3 again", "second:failed 3 again",
                "first:failed 4 again", "second:failed 4 again", "first:failed 5 again", "second:failed 5 again",
                "first:recovered again", "second:recovered again");
        assertThat(recovered).hasSize(1);
    }

    @Test
    void aRetryListenerThatThrowsAnErrorChangesNothingEither() throws Exception {
        List<String> heard = new ArrayList<>();
        KafkoRecord a = mock(KafkoRecord.class);
        // a failed assertion in a test's listener, say: it would otherwise fail the handling, and the record come
        // again each second without ever being recovered
        handler.setRetryListeners(new RetryListener() {
            @Override
            public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
                throw new AssertionError("a listener's failed assertion");
            }

            @Override
            public void recovered(KafkoRecord record, Exception failure) {
                throw new NoClassDefFoundError("a listener's missing class");
            }
        }, new Recording("other", heard));

        handler.handle(List.of(a), new IllegalStateException("boom"), new Attempts(new IllegalStateException("again")));

        assertThat(heard).hasSize(6).endsWith("other:recovered again");
        assertThat(recovered).hasSize(1);
    }

    @Test
    void aFailureThatIsNotRetriedIsOneFailedDeliveryAndARecoveryThatThrowsIsTold() {
        List<String> heard = new ArrayList<>();
        DefaultErrorHandler failing = new DefaultErrorHandler(new FixedBackOff(0, 4), (record, failure, invocation) -> {
            throw new IllegalStateException("dead-letter topic gone");
        });
        failing.setRetryListeners(new Recording("l", heard));
        Attempts attempts = new Attempts(new IllegalStateException("again"));

        assertThatThrownBy(() -> failing.handle(List.of(mock(KafkoRecord.class), mock(KafkoRecord.class)),
                new ClassCastException("never works"), attempts)).hasMessage("dead-letter topic gone");

        assertThat(attempts.retries).isZero();
        // both records of the batch failed once; the first's recovery threw, so the second was not recovered
        assertThat(heard).containsExactly("l:failed 1 never works", "l:failed 1 never works",
                "l:recovery failed never works / dead-letter topic gone");
        assertThatThrownBy(() -> failing.setRetryListeners((RetryListener) null))
                .isInstanceOf(NullPointerException.class).hasMessage("a retry listener");
    }

    private record Recording(String name, List<String> heard) implements RetryListener {
        @Override
        public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
            heard.add(name + ":failed " + deliveryAttempt + " " + failure.getMessage());
        }

        @Override
        public void recovered(KafkoRecord record, Exception failure) {
            heard.add(name + ":recovered " + failure.getMessage());
        }

        @Override
        public void recoveryFailed(KafkoRecord record, Exception failure, Exception recoveryFailure) {
            heard.add(name + ":recovery failed " + failure.getMessage() + " / " + recoveryFailure.getMessage());
        }
    }

    /** Every retry fails again with the one failure; counts them. */
    static final class Attempts implements FailedInvocation {
        private final RuntimeException failure;
        int retries;

        Attempts(RuntimeException failure) {
            this.failure = failure;
        }

        @Override
        public String listenerId() {
            return "test";
        }

        @Override
        public String groupId() {
            return "test";
        }

        @Override
        public void retry() {
            retries++;
            throw failure;
        }

        @Override
        public boolean backOff(long millis) {
            return true;
        }
    }
}
