package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;

/** {@link RetryableTopic}'s {@code traversingCauses} and {@code exceptionBasedDltRouting}. */
class RetryableTopicRoutingTest {

    static final List<String> CALLS = new CopyOnWriteArrayList<>();
    static final List<String> DEAD = new CopyOnWriteArrayList<>();
    static final AtomicInteger DEAD_FAILURES_LEFT = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void reset() {
        CALLS.clear();
        DEAD.clear();
        DEAD_FAILURES_LEFT.set(0);
    }

    @Test
    void byDefaultIncludeAndExcludeJudgeWhatTheListenerThrewNotItsCauses() {
        runner.withPropertyValues("kafko.topics.shallow.partitions=1").withBean(Shallow.class).run(context -> {
            send(context, "shallow", "wrapped"); // IllegalStateException(IOException): not an included type
            send(context, "shallow", "direct"); // UncheckedIOException: included
            send(context, "shallow", "excluded-inside"); // UncheckedIOException(IllegalArgumentException): retried
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(CALLS).containsExactlyInAnyOrder("shallow:wrapped", "shallow:direct",
                    "shallow-retry:direct", "shallow:excluded-inside", "shallow-retry:excluded-inside");
            assertThat(DEAD).containsExactlyInAnyOrder("wrapped", "direct", "excluded-inside");
        });
    }

    @Test
    void aPayloadThatCannotBeConvertedGoesToTheDeadLetterTopicAtOnceThoughItsFailureIsOfAnIncludedType() {
        // spring-kafka's resolver sends its fatal exceptions to the dead-letter topic whatever include says: retried,
        // the conversion would fail the same way at every attempt
        runner.withPropertyValues("kafko.topics.broad.partitions=1").withBean(Broad.class).run(context -> {
            send(context, "broad", "not a number");
            send(context, "broad", "-1");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(values(KafkoTestUtils.records(context, "broad-retry"))).containsExactly("-1", "-1");
            assertThat(values(KafkoTestUtils.records(context, "broad-dlt"))).containsExactly("not a number", "-1");
            assertThat(CALLS).containsExactly("broad:-1", "broad-retry:-1", "broad-retry:-1");
        });
    }

    @Test
    void withTraversingCausesACauseAnywhereInTheChainDecides() {
        runner.withPropertyValues("kafko.topics.deep.partitions=1", "deep.traverse=true").withBean(Deep.class)
                .run(context -> {
                    send(context, "deep", "wrapped"); // IllegalStateException(IOException): IOException included
                    send(context, "deep", "excluded-inside"); // ...(IllegalArgumentException): excluded
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(CALLS).containsExactlyInAnyOrder("deep:wrapped", "deep-retry:wrapped",
                            "deep:excluded-inside");
                    assertThat(DEAD).containsExactlyInAnyOrder("wrapped", "excluded-inside");
                });
    }

    @Test
    void anErrorTheListenerThrowsIsJudgedThroughKafkosWrapperOfIt() {
        runner.withPropertyValues("kafko.topics.errors.partitions=1").withBean(Errors.class).run(context -> {
            send(context, "errors", "assertion"); // an AssertionError, wrapped by the container: included
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(CALLS).containsExactly("errors:assertion", "errors-retry:assertion");
        });
    }

    @Test
    void aRoutedTypeIsFoundAnywhereInTheCauseChainAsInSpringKafkaWhateverTraversingCausesSays() {
        // spring-kafka's DefaultDestinationTopicResolver matches a destination's exceptions against the failure and
        // each of its causes; traversingCauses is for the retry classification alone
        runner.withPropertyValues("kafko.topics.causes.partitions=1").withBean(RoutedByCause.class).run(context -> {
            send(context, "causes", "wrapped"); // IllegalStateException(IllegalArgumentException)
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(values(KafkoTestUtils.records(context, "causes-validation-dlt"))).containsExactly("wrapped");
            assertThat(KafkoTestUtils.records(context, "causes-dlt")).isEmpty();
        });
    }

    @Test
    void aFailureOfARoutedTypeGoesToItsOwnDeadLetterTopicAfterItsAttemptsAndTheOthersToTheListenersOne() {
        runner.withPropertyValues("kafko.topics.routed.partitions=2").withBean(Routed.class).run(context -> {
            template(context).send("routed", 1, "k", "invalid").join(); // IllegalArgumentException: not retried
            template(context).send("routed", 1, "k", "state").join(); // retried, then routed by its type
            template(context).send("routed", 0, "k", "other").join(); // retried, then the listener's DLT
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("routed-validation-dlt")).isPresent();
            assertThat(kafko.topic("routed-state-dlt").orElseThrow().partitionCount()).isEqualTo(2);
            assertThat(registry(context).getListenerContainerIds()).contains("routed", "routed-retry", "routed-dlt",
                    "routed-validation-dlt", "routed-state-dlt");
            assertThat(values(KafkoTestUtils.records(context, "routed-validation-dlt"))).containsExactly("invalid");
            List<KafkoRecord> state = KafkoTestUtils.records(context, "routed-state-dlt");
            assertThat(values(state)).containsExactly("state");
            assertThat(state.get(0).partition()).isEqualTo(1);
            assertThat(header(state.get(0), KafkoHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo("routed");
            assertThat(header(state.get(0), KafkoHeaders.DLT_EXCEPTION_FQCN))
                    .isEqualTo(IllegalStateException.class.getName());
            assertThat(header(state.get(0), KafkoHeaders.RETRY_ATTEMPTS)).isEqualTo("2");
            assertThat(values(KafkoTestUtils.records(context, "routed-dlt"))).containsExactly("other");
            assertThat(CALLS).containsExactlyInAnyOrder("routed:invalid", "routed:state", "routed-retry:state",
                    "routed:other", "routed-retry:other");
            // the bean's @DltHandler reads every dead-letter topic
            assertThat(DEAD).containsExactlyInAnyOrder("routed-validation-dlt:invalid", "routed-state-dlt:state",
                    "routed-dlt:other");
        });
    }

    @Test
    void underAlwaysRetryOnErrorADeadLetterOfARoutedTopicIsHandledAgainFromThatTopic() {
        DEAD_FAILURES_LEFT.set(1);
        runner.withPropertyValues("kafko.topics.again.partitions=1").withBean(RoutedAgain.class).run(context -> {
            send(context, "again", "invalid");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(DEAD).containsExactly("again-validation-dlt:invalid", "again-validation-dlt:invalid");
            assertThat(values(KafkoTestUtils.records(context, "again-validation-dlt")))
                    .containsExactly("invalid", "invalid");
            assertThat(KafkoTestUtils.records(context, "again-dlt")).isEmpty();
        });
    }

    @Test
    void routesThatCannotWorkFailTheStartNamingTheListener() {
        runner.withPropertyValues("kafko.topics.bad.partitions=1").withBean(NoDltRouted.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'nodlt-routed'")
                        .hasStackTraceContaining("exceptionBasedDltRouting needs dead-letter topics, and the"
                                + " dltStrategy is NO_DLT"));
        runner.withPropertyValues("kafko.topics.bad.partitions=1").withBean(SameSuffix.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("the exception-based dead-letter destination '-x' makes the topic"
                                + " 'bad-x-dlt', which another topic of the listener has"));
        runner.withPropertyValues("kafko.topics.bad.partitions=1").withBean(NoExceptions.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("the exception-based dead-letter destination '-x' names no"
                                + " exception"));
        runner.withPropertyValues("kafko.topics.bad.partitions=1", "bad.traverse=sometimes")
                .withBean(BadTraverse.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("traversingCauses 'sometimes'"));
    }

    private static void send(ApplicationContext context, String topic, String value) {
        template(context).send(topic, 0, "k", value).join();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<String, String> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static KafkoListenerEndpointRegistry registry(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    private static List<String> values(List<KafkoRecord> records) {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    private static String header(KafkoRecord record, String name) {
        return new String(record.headers().lastValue(name), StandardCharsets.UTF_8);
    }

    static class Broad {
        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 10), include = RuntimeException.class)
        @KafkoListener(id = "broad", topics = "broad")
        void on(Integer value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException("fails " + value);
        }
    }

    static class Shallow {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), include = UncheckedIOException.class,
                exclude = IllegalArgumentException.class)
        @KafkoListener(id = "shallow", topics = "shallow")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw failure(value);
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class Deep {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), includeNames = "java.io.IOException",
                exclude = IllegalArgumentException.class, traversingCauses = "${deep.traverse}")
        @KafkoListener(id = "deep", topics = "deep")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw failure(value);
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class Errors {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), include = AssertionError.class)
        @KafkoListener(id = "errors", topics = "errors")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new AssertionError("not yet");
        }
    }

    static class Routed {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), exclude = IllegalArgumentException.class,
                exceptionBasedDltRouting = {
                    @ExceptionBasedDltDestination(suffix = "-validation", exceptions = IllegalArgumentException.class),
                    @ExceptionBasedDltDestination(suffix = "${routed.state:-state}",
                            exceptions = IllegalStateException.class)})
        @KafkoListener(id = "routed", topics = "routed")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            switch (value) {
                case "invalid" -> throw new IllegalArgumentException("invalid");
                case "state" -> throw new IllegalStateException("state");
                default -> throw new UnsupportedOperationException("other");
            }
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            DEAD.add(topic + ":" + value);
        }
    }

    static class RoutedByCause {
        @RetryableTopic(attempts = "1", backOff = @BackOff(delay = 10), exceptionBasedDltRouting =
                @ExceptionBasedDltDestination(suffix = "-validation", exceptions = IllegalArgumentException.class))
        @KafkoListener(id = "causes", topics = "causes")
        void on(String value) {
            throw new IllegalStateException("wrapped", new IllegalArgumentException(value));
        }
    }

    static class RoutedAgain {
        @RetryableTopic(attempts = "1", backOff = @BackOff(delay = 10), dltStrategy = DltStrategy.ALWAYS_RETRY_ON_ERROR,
                exceptionBasedDltRouting = @ExceptionBasedDltDestination(suffix = "-validation",
                        exceptions = IllegalArgumentException.class))
        @KafkoListener(id = "again", topics = "again")
        void on(String value) {
            throw new IllegalArgumentException(value);
        }

        @DltHandler
        void dead(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            DEAD.add(topic + ":" + value);
            if (DEAD_FAILURES_LEFT.getAndDecrement() > 0) {
                throw new IllegalStateException("the handler failed");
            }
        }
    }

    static class NoDltRouted {
        @RetryableTopic(dltStrategy = DltStrategy.NO_DLT, exceptionBasedDltRouting = @ExceptionBasedDltDestination(
                suffix = "-x", exceptions = IllegalArgumentException.class))
        @KafkoListener(id = "nodlt-routed", topics = "bad")
        void on(String value) {
        }
    }

    static class SameSuffix {
        @RetryableTopic(exceptionBasedDltRouting = {
            @ExceptionBasedDltDestination(suffix = "-x", exceptions = IllegalArgumentException.class),
            @ExceptionBasedDltDestination(suffix = "-x", exceptions = IllegalStateException.class)})
        @KafkoListener(id = "same-suffix", topics = "bad")
        void on(String value) {
        }
    }

    static class NoExceptions {
        @RetryableTopic(exceptionBasedDltRouting = @ExceptionBasedDltDestination(suffix = "-x", exceptions = {}))
        @KafkoListener(id = "no-exceptions", topics = "bad")
        void on(String value) {
        }
    }

    static class BadTraverse {
        @RetryableTopic(traversingCauses = "${bad.traverse}")
        @KafkoListener(id = "bad-traverse", topics = "bad")
        void on(String value) {
        }
    }

    private static RuntimeException failure(String value) {
        return switch (value) {
            case "wrapped" -> new IllegalStateException("wrapped", new IOException("disk"));
            case "direct" -> new UncheckedIOException(new IOException("disk"));
            case "excluded-inside" -> new UncheckedIOException("wrapped", new IOException(
                    new IllegalArgumentException("bad")));
            default -> new IllegalStateException(value);
        };
    }
}
