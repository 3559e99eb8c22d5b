package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;

/**
 * {@link RetryableTopic}'s {@code dltStrategy}, {@code timeout}, {@code autoCreateTopics}, {@code numPartitions},
 * {@code concurrency}, {@code autoStartDltHandler}, {@code includeNames} and {@code excludeNames}.
 */
@ExtendWith(OutputCaptureExtension.class)
class RetryableTopicStrategiesTest {

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
    void withNoDltARecordIsSkippedAfterItsLastAttemptAndNoDeadLetterTopicOrContainerIsMade(CapturedOutput output) {
        runner.withPropertyValues("kafko.topics.nodlt.partitions=2").withBean(NoDlt.class).run(context -> {
            template(context).send("nodlt", 1, "k", "never").join();
            template(context).send("nodlt", 1, "k", "ok").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(CALLS).containsExactlyInAnyOrder("nodlt:never", "nodlt:ok", "nodlt-retry:never");
            assertThat(DEAD).isEmpty(); // the bean's @DltHandler is not this listener's
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("nodlt-dlt")).isEmpty();
            assertThat(kafko.topic("nodlt.DLT")).isEmpty();
            assertThat(registry(context).getListenerContainerIds()).contains("nodlt", "nodlt-retry")
                    .doesNotContain("nodlt-dlt");
            // skipped, not left to be delivered again: the retry topic's group committed past it
            assertThat(kafko.groupInfo("nodlt-retry", "nodlt").committed()).containsEntry(1, 1L);
            // and said so, at ERROR
            assertThat(output).contains("Listener 'nodlt-retry' gave up on nodlt-retry-1@0; skipping it");
        });
    }

    @Test
    void failOnErrorIsTheDefaultADeadLetterTheHandlerFailsOnIsLoggedAndSkippedOnce() {
        DEAD_FAILURES_LEFT.set(Integer.MAX_VALUE);
        runner.withPropertyValues("kafko.topics.failing.partitions=1").withBean(FailingHandler.class).run(context -> {
            template(context).send("failing", 0, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(DEAD).containsExactly("never");
            assertThat(KafkoTestUtils.records(context, "failing-dlt")).hasSize(1);
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groupInfo("failing-dlt", "failing").committed()).containsEntry(0, 1L);
        });
    }

    @Test
    void alwaysRetryOnErrorHandlesADeadLetterAgainAfterTheLastBackOffUntilItsHandlerSucceeds() {
        DEAD_FAILURES_LEFT.set(2);
        runner.withPropertyValues("kafko.topics.again.partitions=2").withBean(AlwaysRetry.class).run(context -> {
            template(context).send("again", 1, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(CALLS).containsExactly("again:never", "again-retry-20:never", "again-retry-40:never");
            // failed twice, handled the third time; each time again no earlier than the last back-off (40 ms)
            assertThat(DEAD).containsExactly("never", "never", "never");
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "again-dlt");
            assertThat(dead).hasSize(3).allSatisfy(r -> assertThat(r.partition()).isEqualTo(1));
            for (int i = 1; i < 3; i++) {
                KafkoRecord again = dead.get(i);
                long due = Long.parseLong(header(again, KafkoHeaders.RETRY_BACKOFF_TIMESTAMP));
                // the handler failed after the dead letter before it was written: due 40 ms after that at least
                assertThat(due - dead.get(i - 1).timestamp()).as("its back-off").isGreaterThanOrEqualTo(40);
                assertThat(header(again, KafkoHeaders.DLT_EXCEPTION_MESSAGE)).isEqualTo("the handler failed");
                assertThat(header(again, KafkoHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo("again");
                assertThat(header(again, KafkoHeaders.RETRY_ATTEMPTS)).isEqualTo("3");
            }
            assertThat(AlwaysRetry.EARLY).isEmpty();
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groupInfo("again-dlt", "again").committed()).containsEntry(1, 3L);
        });
    }

    @Test
    void alwaysRetryOnErrorDoesNotPublishAgainADeadLetterItsHandlerCannotConvert(CapturedOutput output) {
        // spring-kafka's does not either: a fatal failure (here the payload's conversion, which fails the same way
        // at every delivery) of the dead-letter handler ends its processing, or the record goes round for ever
        runner.withPropertyValues("kafko.topics.unreadable.partitions=1").withBean(AlwaysRetryUnreadable.class)
                .run(context -> {
                    template(context).send("unreadable", 0, "k", "not a number").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(CALLS).isEmpty();
                    assertThat(DEAD).isEmpty();
                    assertThat(KafkoTestUtils.records(context, "unreadable-dlt")).as("published once").hasSize(1);
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.groupInfo("unreadable-dlt", "unreadable").committed()).containsEntry(0, 1L);
                });
        assertThat(output).contains("Listener 'unreadable-dlt' gave up on unreadable-dlt-0@0; skipping it");
    }

    @Test
    void placeholdersThatResolveToNothingLeaveTheNewAttributesUnset() {
        // as an empty attribute, and as @KafkoListener's own attributes take them: the listener's concurrency and
        // autoStartup, the listener topic's partitions, no timeout, no class named
        runner.withPropertyValues("kafko.topics.unset.partitions=2").withBean(Unset.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoListenerEndpointRegistry registry = registry(context);
            assertThat(container(registry, "unset-retry").getMembers()).hasSize(2);
            assertThat(container(registry, "unset-dlt").getMembers()).hasSize(2);
            assertThat(container(registry, "unset-dlt").isRunning()).isTrue();
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("unset-retry").orElseThrow().partitionCount()).isEqualTo(2);

            template(context).send("unset", 1, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            assertThat(CALLS).containsExactly("unset:never", "unset-retry:never");
            assertThat(DEAD).containsExactly("never");
        });
    }

    @Test
    void concurrencyAndAutoStartDltHandlerApplyToTheRetryAndDeadLetterContainers() {
        runner.withPropertyValues("kafko.topics.tuned.partitions=4", "tuned.dlt-start=false").withBean(Tuned.class)
                .run(context -> {
                    KafkoListenerEndpointRegistry registry = registry(context);
                    ConcurrentMessageListenerContainer main = container(registry, "tuned");
                    ConcurrentMessageListenerContainer retry = container(registry, "tuned-retry");
                    ConcurrentMessageListenerContainer dlt = container(registry, "tuned-dlt");
                    assertThat(main.getMembers()).hasSize(1);
                    assertThat(retry.getMembers()).hasSize(3);
                    assertThat(dlt.getMembers()).hasSize(3);
                    assertThat(main.isRunning()).isTrue();
                    assertThat(retry.isRunning()).isTrue();
                    assertThat(dlt.isRunning()).as("held back by autoStartDltHandler").isFalse();
                    assertThat(dlt.isAutoStartup()).isFalse();

                    template(context).send("tuned", 2, "k", "never").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(KafkoTestUtils.records(context, "tuned-dlt")).hasSize(1);
                    assertThat(DEAD).isEmpty();
                    dlt.start();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
                    assertThat(DEAD).containsExactly("never");
                });
    }

    @Test
    void aDeadLetterContainerStartedBeforeTheListenerReadsEveryPartitionOfItsTopic() {
        // autoStartDltHandler "true" under a listener held back: the dead-letter container starts first
        runner.withPropertyValues("kafko.topics.early.partitions=3").withBean(EarlyDlt.class).run(context -> {
            KafkoListenerEndpointRegistry registry = registry(context);
            assertThat(container(registry, "early-dlt").isRunning()).isTrue();
            assertThat(container(registry, "early").isRunning()).isFalse();
            container(registry, "early").start();
            template(context).send("early", 2, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(KafkoTestUtils.records(context, "early-dlt")).singleElement()
                    .satisfies(r -> assertThat(r.partition()).isEqualTo(2));
            assertThat(DEAD).containsExactly("never");
        });
    }

    @Test
    void includeNamesAndExcludeNamesClassifyByClassName() {
        runner.withPropertyValues("kafko.topics.named.partitions=1").withBean(Named.class).run(context -> {
            template(context).send("named", 0, "k", "io").join(); // included by name: retried
            template(context).send("named", 0, "k", "state").join(); // neither: not retried (an include is set)
            template(context).send("named", 0, "k", "arg").join(); // excluded by name, though included by type
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(CALLS).containsExactlyInAnyOrder("named:io", "named:state", "named:arg", "named-retry:io");
            assertThat(DEAD).containsExactlyInAnyOrder("io", "state", "arg");
        });
    }

    @Test
    void aTimeoutSendsARecordToTheDeadLetterTopicOnceItHasPassedWhateverAttemptsAreLeft() {
        runner.withPropertyValues("kafko.topics.timed.partitions=1").withBean(Timed.class).run(context -> {
            template(context).send("timed", 0, "k", "never").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(60));

            // a 300 ms back-off and a 1 s timeout: the k-th delivery comes 300 (k - 1) ms or more after the record
            // was written, so the fifth (1,200 ms or later) fails past the timeout at the latest; not the fifty the
            // attempts allow
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "timed-dlt");
            assertThat(dead).hasSize(1);
            int attempts = Integer.parseInt(header(dead.get(0), KafkoHeaders.RETRY_ATTEMPTS));
            assertThat(attempts).isBetween(1, 5);
            assertThat(CALLS).hasSize(attempts);
            long original = Long.parseLong(header(dead.get(0), KafkoHeaders.DLT_ORIGINAL_TIMESTAMP));
            assertThat(dead.get(0).timestamp() - original).as("dead-lettered once the timeout had passed")
                    .isGreaterThanOrEqualTo(1_000);
        });
    }

    @Test
    void numPartitionsSizesTheRetryAndDeadLetterTopicsAndARecordOfAPartitionTheyLackGoesByItsKey(
            CapturedOutput output) {
        runner.withPropertyValues("kafko.topics.narrow.partitions=3").withBean(Narrow.class).run(context -> {
            template(context).send("narrow", 2, "k", "never").join();
            template(context).send("narrow", 1, "k", "never").join(); // the first partition past theirs, too
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("narrow-retry").orElseThrow().partitionCount()).isEqualTo(1);
            assertThat(kafko.topic("narrow-dlt").orElseThrow().partitionCount()).isEqualTo(1);
            assertThat(CALLS).containsExactlyInAnyOrder("narrow:never", "narrow-retry:never", "narrow:never",
                    "narrow-retry:never");
            assertThat(DEAD).containsExactly("never", "never");
        });
        assertThat(output).doesNotContain("chooses the partition instead"); // by design, not a warning per record
    }

    @Test
    void withAutoCreateTopicsFalseTheRetryAndDeadLetterTopicsMustBeDeclaredWhereverTopicsMayBeCreated() {
        runner.withPropertyValues("kafko.auto-create-topics=true", "kafko.topics.declared.partitions=2")
                .withBean(Declared.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("declare them (kafko.topics.declared-retry.partitions=2,"
                                + " kafko.topics.declared-dlt.partitions=2) or set its autoCreateTopics to true"));
        runner.withPropertyValues("kafko.topics.declared.partitions=2", "kafko.topics.declared-retry.partitions=2",
                "kafko.topics.declared-dlt.partitions=1").withBean(Declared.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    // used as declared: not grown to the listener topic's partitions
                    assertThat(context.getBean(Kafko.class).topic("declared-dlt").orElseThrow().partitionCount())
                            .isEqualTo(1);
                });
    }

    @Test
    void settingsThatCannotWorkFailTheStartNamingTheListenerAndTheAttribute() {
        runner.withPropertyValues("kafko.topics.named.partitions=1", "named.include=com.example.NoSuchException")
                .withBean(Named.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'named'")
                        .hasStackTraceContaining("includeNames names 'com.example.NoSuchException', which is not a"
                                + " class"));
        runner.withPropertyValues("kafko.topics.named.partitions=1", "named.include=java.lang.String")
                .withBean(Named.class).run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("includeNames names 'java.lang.String', which is not a Throwable"));
        runner.withPropertyValues("kafko.topics.tuned.partitions=4", "tuned.concurrency=0").withBean(Tuned.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("@RetryableTopic listener 'tuned'")
                        .hasMessageContaining("concurrency '0' must be at least 1"));
        runner.withPropertyValues("kafko.topics.timed.partitions=1", "timed.timeout=soon").withBean(Timed.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("@RetryableTopic listener 'timed'")
                        .hasMessageContaining("timeout 'soon' is not a duration"));
        runner.withPropertyValues("kafko.topics.narrow.partitions=3", "narrow.partitions=0").withBean(Narrow.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("numPartitions '0' must be at least 1"));
        runner.withPropertyValues("kafko.topics.tuned.partitions=4", "tuned.dlt-start=later").withBean(Tuned.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("autoStartDltHandler 'later' is neither true nor false"));
    }

    @Test
    void spelInTheAttributesIsEvaluatedAgainstTheBeansAsSpringKafkaDoes() {
        runner.withPropertyValues("kafko.topics.spel.partitions=4").withBean("retrySettings", RetrySettings.class).withBean(Spel.class)
                .run(context -> {
                    KafkoListenerEndpointRegistry registry = registry(context);
                    assertThat(registry.getListenerContainerIds()).contains("spel", "spel-again", "spel-dead");
                    assertThat(container(registry, "spel-again").getMembers()).as("concurrency #{2 + 1}").hasSize(3);
                    assertThat(container(registry, "spel-dead").isRunning()).as("autoStartDltHandler")
                            .isFalse();
                    template(context).send("spel", 0, "k", "io").join(); // a class given by SpEL: retried
                    template(context).send("spel", 0, "k", "state").join(); // not included: dead at once
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(CALLS).containsExactlyInAnyOrder("spel:io", "spel:state", "spel-again:io");
                    assertThat(KafkoTestUtils.records(context, "spel-dead")).hasSize(2);
                });
        runner.withPropertyValues("kafko.topics.spel.partitions=4", "spel.include=#{{'a', 'b'}}")
                .withBean("retrySettings", RetrySettings.class).withBean(Spel.class)
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("@RetryableTopic listener 'spel'")
                        .hasMessageContaining("resolved to a java.util.")
                        .hasMessageContaining("not text, a number, a boolean or a class"));
        runner.withPropertyValues("kafko.topics.spel.partitions=4", "spel.include=#{@noSuchBean.type}")
                .withBean("retrySettings", RetrySettings.class).withBean(Spel.class)
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@RetryableTopic listener 'spel'")
                        .hasStackTraceContaining("could not be resolved: No bean named 'noSuchBean' available"));
    }

    @Test
    void withNoDltNoUndeclaredDeadLetterTopicIsAskedForWhereTopicsAreNotCreatedOnFirstUse() {
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.nodlt.partitions=2",
                "kafko.topics.nodlt-retry.partitions=2").withBean(NoDlt.class)
                .run(context -> assertThat(context).hasNotFailed());
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static KafkoListenerEndpointRegistry registry(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    private static ConcurrentMessageListenerContainer container(KafkoListenerEndpointRegistry registry, String id) {
        return (ConcurrentMessageListenerContainer) registry.getListenerContainer(id);
    }

    private static String header(KafkoRecord record, String key) {
        return new String(record.headers().lastValue(key), StandardCharsets.UTF_8);
    }

    static class NoDlt {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), dltStrategy = DltStrategy.NO_DLT)
        @KafkoListener(id = "nodlt", topics = "nodlt")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            if (value.equals("never")) {
                throw new IllegalStateException("never works");
            }
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class FailingHandler {
        @RetryableTopic(attempts = "1")
        @KafkoListener(id = "failing", topics = "failing")
        void on(String value) {
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
            if (DEAD_FAILURES_LEFT.getAndDecrement() > 0) {
                throw new IllegalStateException("the handler failed");
            }
        }
    }

    static class AlwaysRetry {
        static final List<String> EARLY = new CopyOnWriteArrayList<>();

        @RetryableTopic(attempts = "3", backOff = @BackOff(delay = 20, multiplier = 2),
                dltStrategy = DltStrategy.ALWAYS_RETRY_ON_ERROR)
        @KafkoListener(id = "again", topics = "again")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value, @Header(name = KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, required = false) String due,
                  @Header(KafkoHeaders.RECEIVED_TIMESTAMP) long written) {
            DEAD.add(value);
            if (due != null && Long.parseLong(due) > written && System.currentTimeMillis() < Long.parseLong(due)) {
                EARLY.add(value + " before " + due);
            }
            if (DEAD_FAILURES_LEFT.getAndDecrement() > 0) {
                throw new IllegalStateException("the handler failed");
            }
        }
    }

    static class AlwaysRetryUnreadable {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), dltStrategy = DltStrategy.ALWAYS_RETRY_ON_ERROR)
        @KafkoListener(id = "unreadable", topics = "unreadable")
        void on(Integer value) {
            CALLS.add("on:" + value);
        }

        @DltHandler
        void dead(Integer value) {
            DEAD.add("dead:" + value);
        }
    }

    static class Unset {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), concurrency = "${unset.concurrency:}",
                autoStartDltHandler = "${unset.dlt-start:}", numPartitions = "${unset.partitions:}",
                timeout = "${unset.timeout:}", includeNames = "${unset.include:}")
        @KafkoListener(id = "unset", topics = "unset", concurrency = "2")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class EarlyDlt {
        @RetryableTopic(attempts = "1", autoStartDltHandler = "true")
        @KafkoListener(id = "early", topics = "early", autoStartup = "false")
        void on(String value) {
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class Tuned {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), concurrency = "${tuned.concurrency:3}",
                autoStartDltHandler = "${tuned.dlt-start:true}")
        @KafkoListener(id = "tuned", topics = "tuned")
        void on(String value) {
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class Timed {
        @RetryableTopic(attempts = "50", backOff = @BackOff(delay = 300), timeout = "${timed.timeout:1s}")
        @KafkoListener(id = "timed", topics = "timed")
        void on(String value) {
            CALLS.add(value);
            throw new IllegalStateException("never works");
        }
    }

    static class Narrow {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), numPartitions = "${narrow.partitions:1}")
        @KafkoListener(id = "narrow", topics = "narrow")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException("never works");
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class Declared {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), autoCreateTopics = "false")
        @KafkoListener(id = "declared", topics = "declared")
        void on(String value) {
        }
    }

    static class Named {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10), include = IllegalArgumentException.class,
                includeNames = "${named.include:java.io.UncheckedIOException}",
                excludeNames = "java.lang.IllegalArgumentException")
        @KafkoListener(id = "named", topics = "named")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            switch (value) {
                case "io" -> throw new java.io.UncheckedIOException(new java.io.IOException("disk"));
                case "arg" -> throw new IllegalArgumentException("bad");
                default -> throw new IllegalStateException("state");
            }
        }

        @DltHandler
        void dead(String value) {
            DEAD.add(value);
        }
    }

    static class RetrySettings {
        public String delay() {
            return "10ms";
        }

        public String suffix() {
            return "-again";
        }
    }

    static class Spel {
        @RetryableTopic(attempts = "#{1 + 1}", backOff = @BackOff(delayString = "#{@retrySettings.delay()}"),
                retryTopicSuffix = "#{@retrySettings.suffix()}", dltTopicSuffix = "#{'-dead'}",
                concurrency = "#{2 + 1}", autoStartDltHandler = "#{false}",
                includeNames = "${spel.include:#{T(java.io.UncheckedIOException)}}")
        @KafkoListener(id = "spel", topics = "spel")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            if (value.equals("io")) {
                throw new java.io.UncheckedIOException(new java.io.IOException("disk"));
            }
            throw new IllegalStateException("state");
        }
    }
}
