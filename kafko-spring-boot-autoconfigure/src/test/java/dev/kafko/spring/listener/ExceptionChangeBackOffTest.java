package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import dev.kafko.KafkoRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A retry that fails with an exception of another type starts the back-off again (spring-kafka's default), once per type,
 * and a back-off function chooses the back-off by record and exception.
 */
class ExceptionChangeBackOffTest {

    private final List<String> heard = new ArrayList<>();
    private final List<Exception> recovered = new ArrayList<>();
    /** Three attempts in all: the delivery and two retries. */
    private final DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(0, 2),
            (record, failure, invocation) -> recovered.add(failure));

    ExceptionChangeBackOffTest() {
        handler.setRetryListeners(new RetryListener() {
            @Override
            public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
                heard.add(deliveryAttempt + " " + failure.getMessage());
            }

            @Override
            public void recovered(KafkoRecord record, Exception failure) {
                heard.add("recovered " + failure.getMessage());
            }
        });
    }

    @Test
    void aRetryFailingWithAnotherExceptionStartsTheBackOffAgainCountingFromOne() throws Exception {
        Script retries = new Script(state("A"), argument("B"), argument("B"), argument("B"), argument("never reached"));

        handler.handle(List.of(mock(KafkoRecord.class)), state("A"), retries);

        assertThat(retries.retries).isEqualTo(4);
        assertThat(heard).containsExactly("1 A", "2 A", "1 B", "2 B", "3 B", "recovered B");
        assertThat(recovered).extracting(Exception::getMessage).containsExactly("B");
    }

    @Test
    void withoutTheResetOneBackOffCountsEveryFailure() throws Exception {
        handler.setResetStateOnExceptionChange(false);
        Script retries = new Script(state("A"), argument("B"), argument("B"), argument("B"));

        handler.handle(List.of(mock(KafkoRecord.class)), state("A"), retries);

        assertThat(retries.retries).isEqualTo(2);
        assertThat(heard).containsExactly("1 A", "2 A", "3 B", "recovered B");
    }

    /** spring-kafka would start again at each change, and retry such a record for ever. */
    @Test
    void exceptionsThatTakeTurnsStartTheBackOffOncePerTypeSoTheRetriesEnd() throws Exception {
        Script retries = new Script(argument("B1"), state("A2"), argument("B3"), state("A4"), argument("B5"),
                state("A6"), argument("B7"));

        handler.handle(List.of(mock(KafkoRecord.class)), state("A0"), retries);

        // A0 (1), B1 starts B's back-off (1), then A2 (2) and B3 (3) count in it: done
        assertThat(retries.retries).isEqualTo(3);
        assertThat(heard).containsExactly("1 A0", "1 B1", "2 A2", "3 B3", "recovered B3");
    }

    /** spring-kafka's rule: the new exception is "another type" when the last one is not an instance of its class. */
    @Test
    void aSubclassAfterItsSuperclassIsAnotherTypeButASuperclassAfterItsSubclassIsNot() throws Exception {
        Script narrower = new Script(state("narrower"), state("narrower"), state("narrower"), state("narrower"));
        handler.handle(List.of(mock(KafkoRecord.class)), new RuntimeException("wide"), narrower);
        assertThat(narrower.retries).isEqualTo(3); // reset at the first retry: two more after it

        heard.clear();
        Script wider = new Script(new RuntimeException("wide"), new RuntimeException("wide"),
                new RuntimeException("wide"));
        handler.handle(List.of(mock(KafkoRecord.class)), state("narrow"), wider);
        assertThat(wider.retries).isEqualTo(2);
        assertThat(heard).containsExactly("1 narrow", "2 wide", "3 wide", "recovered wide");
    }

    /** What the listener threw decides, not kafko's wrapper around it (an Error, a joined future). */
    @Test
    void theTypesAreReadThroughKafkosWrappers() throws Exception {
        Script sameInside = new Script(wrapped(new AssertionError("x")), wrapped(new AssertionError("x")),
                wrapped(new AssertionError("x")));
        handler.handle(List.of(mock(KafkoRecord.class)), wrapped(new AssertionError("x")), sameInside);
        assertThat(sameInside.retries).isEqualTo(2);

        Script otherInside = new Script(new CompletionException(new UncheckedIOException(new IOException("disk"))),
                argument("b"), argument("c"), argument("d"));
        handler.handle(List.of(mock(KafkoRecord.class)), wrapped(new AssertionError("x")), otherInside);
        // the Error, then the I/O failure inside the CompletionException starts again, then the argument again
        assertThat(otherInside.retries).isEqualTo(4);
    }

    @Test
    void theBackOffFunctionChoosesByRecordAndExceptionAndNullOrAFailureFallsBack() throws Exception {
        KafkoRecord first = mock(KafkoRecord.class);
        List<Object> asked = new ArrayList<>();
        handler.setBackOffFunction((record, failure) -> {
            asked.add(record == first ? "first" : "other");
            if (failure instanceof IllegalStateException) {
                return new FixedBackOff(0, 5);
            }
            if (failure.getMessage().equals("function breaks")) {
                throw new IllegalStateException("a broken back-off function");
            }
            return null;
        });

        Script states = new Script(state("s"), state("s"), state("s"), state("s"), state("s"), state("s"));
        handler.handle(List.of(first, mock(KafkoRecord.class)), state("s"), states);
        assertThat(states.retries).isEqualTo(5);
        assertThat(asked).containsExactly("first");

        Script arguments = new Script(argument("a"), argument("a"), argument("a"));
        handler.handle(List.of(first), argument("a"), arguments);
        assertThat(arguments.retries).isEqualTo(2); // null: the handler's own back-off

        Script broken = new Script(argument("a"), argument("a"), argument("a"));
        handler.handle(List.of(first), argument("function breaks"), broken);
        assertThat(broken.retries).isEqualTo(2);

        // the back-off started again for another type is the function's choice for that type
        asked.clear();
        Script changing = new Script(state("s"), state("s"), state("s"), state("s"), state("s"), state("s"));
        handler.handle(List.of(first), argument("a"), changing);
        assertThat(changing.retries).isEqualTo(6);
        assertThat(asked).hasSize(2);

        handler.setBackOffFunction(null);
        Script removed = new Script(state("s"), state("s"), state("s"));
        handler.handle(List.of(first), state("s"), removed);
        assertThat(removed.retries).isEqualTo(2);
    }

    private static IllegalStateException state(String message) {
        return new IllegalStateException(message);
    }

    private static IllegalArgumentException argument(String message) {
        return new IllegalArgumentException(message);
    }

    private static ListenerExecutionFailedException wrapped(Error error) {
        return new ListenerExecutionFailedException("Listener 'test' threw " + error, error);
    }

    /** Each retry throws the next of its exceptions; past the last, the test has failed. */
    private static final class Script implements FailedInvocation {
        private final Deque<RuntimeException> failures;
        int retries;

        Script(RuntimeException... failures) {
            this.failures = new ArrayDeque<>(List.of(failures));
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
            RuntimeException next = failures.poll();
            if (next == null) {
                throw new AssertionError("retried more often than the script says: " + retries);
            }
            throw next;
        }

        @Override
        public boolean backOff(long millis) {
            return true;
        }
    }
}
