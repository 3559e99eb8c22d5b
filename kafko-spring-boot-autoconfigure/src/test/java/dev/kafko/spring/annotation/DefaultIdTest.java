package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Listeners without an id get one that is also a valid group name; attributes and parameters are checked at
 * start-up, and a refusal names the listener.
 */
class DefaultIdTest {

    @org.junit.jupiter.api.extension.RegisterExtension
    final dev.kafko.spring.LogCapture log = new dev.kafko.spring.LogCapture(KafkoListenerContainerFactory.class);

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aNestedClassListenerWithoutAnIdStartsAndItsGroupIsTheSanitizedBeanAndMethodName() {
        RECEIVED.clear();
        runner.withBean("app.Outer$Listeners", Listeners.class, Listeners::new).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainerIds())
                    .containsExactlyInAnyOrder("app.Outer.Listeners.on", "app.Outer.Listeners.twice-0",
                            "app.Outer.Listeners.twice-1");
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("plain", "a").join();
            template.send("first", "b").join();
            template.send("second", "c").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(context.getBean(Kafko.class).groups("plain")).containsExactly("app.Outer.Listeners.on");
        });
    }

    @Test
    void aBatchOrAutoStartupValueThatIsNoBooleanFailsTheStartNamingIt() {
        runner.withBean(NotABoolean.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("batch 'yes' is neither true nor false"));
    }

    @Test
    void aBatchListenerReadingAPerRecordHeaderAsOneValueFailsTheStartNamingIt() {
        runner.withBean(ScalarHeaderInBatch.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("reads @Header(\"kafko_offset\") as a long; a batch has one per record"));
    }

    /** The header lists are handed over unconverted: a List<Instant> of timestamps held Longs. */
    @Test
    void aBatchListenerReadingAPerRecordHeaderIntoAListOfAnotherTypeFailsTheStartNamingIt() {
        runner.withBean(WrongHeaderListInBatch.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("reads @Header(\"kafko_receivedTimestamp\") as a List<Instant>; a batch gives"
                        + " it as a List<Long>: declare that"));
        runner.withBean(RightHeaderListsInBatch.class).run(context -> assertThat(context).hasNotFailed());
    }

    static class WrongHeaderListInBatch {
        @KafkoListener(id = "stamps", topics = "stamps", batch = "true")
        void on(List<String> values, @org.springframework.messaging.handler.annotation.Header(
                KafkoHeaders.RECEIVED_TIMESTAMP) List<java.time.Instant> timestamps) {
        }
    }

    static class RightHeaderListsInBatch {
        @KafkoListener(id = "stamps", topics = "stamps", batch = "true")
        void on(List<String> values, @org.springframework.messaging.handler.annotation.Header(
                        KafkoHeaders.RECEIVED_TIMESTAMP) List<Long> timestamps,
                @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_PARTITION)
                List<? extends Number> partitions,
                @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_TOPIC) List<?> topics,
                @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_KEY) List<Integer> keys) {
        }
    }

    @Test
    void aConcurrencyBelowOneFailsTheStartNamingTheListenerAndItsMethod() {
        runner.withBean(ZeroConcurrency.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("InvalidKafkoListenerException: @KafkoListener 'idle' on ZeroConcurrency.on:"
                        + " concurrency '0' must be at least 1"));
    }

    /** A null element became the topic "null" from a collection, and a bare NullPointerException from an array. */
    @Test
    void aTopicsExpressionGivingANullElementFailsTheStartNamingTheListenerAndTheAttribute() {
        runner.withBean(NullInTopicList.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("InvalidKafkoListenerException: @KafkoListener 'nullInList' on"
                        + " NullInTopicList.on: topics '#{T(java.util.Arrays).asList('in', null)}' resolved to"
                        + " [in, null], which holds no topic at index 1"));
        runner.withBean(NullInTopicArray.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("InvalidKafkoListenerException: @KafkoListener 'nullInArray' on"
                        + " NullInTopicArray.on: topics '#{__listener.topics}' resolved to [in, null], which holds"
                        + " no topic at index 1"));
    }

    @Test
    void twoListenersOfOneIdFailTheStartNamingBothMethods() {
        runner.withBean(SameIds.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("InvalidKafkoListenerException: @KafkoListener 'twin' on "
                        + SameIds.class.getName() + ".second: the listener on " + SameIds.class.getName()
                        + ".first has that id too"));
    }

    @Test
    void aManualListenerThatCanReachNoAcknowledgmentIsWarnedOfEvenWithOtherHeaders() {
        runner.withBean(ManualWithoutAck.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(log.events()).extracting(e -> e.getFormattedMessage()).anySatisfy(m -> assertThat(m)
                    .contains("Listener 'unacked' (ManualWithoutAck.on) has ack mode MANUAL but takes no Acknowledgment")
                    .contains("it commits only when its error handler recovers a failed record"));
        });
        log.events().clear();
        runner.withBean(ManualWithAckHeader.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(log.events()).extracting(e -> e.getFormattedMessage())
                    .noneSatisfy(m -> assertThat(m).contains("takes no Acknowledgment"));
        });
    }

    /**
     * Each message of a batch listener's {@code List<Message<?>>} carries the batch's acknowledgment in its
     * headers, as in spring-kafka; the start warned all the same that such a listener could reach none.
     */
    @Test
    void aManualBatchListenerOfMessagesReachesItsAcknowledgmentAndIsNotWarned() {
        runner.withBean(ManualBatchOfMessages.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(log.events()).extracting(e -> e.getFormattedMessage())
                    .noneSatisfy(m -> assertThat(m).contains("takes no Acknowledgment"));
        });
    }

    /**
     * The warning of a manual listener that cannot acknowledge said that nothing it processes is ever committed and
     * that every record comes again after a restart; but a record its error handler recovers (dead letter or log) is
     * committed in every ack mode, and a commit is cumulative: the records before it in its partition are not
     * delivered again. The warning says so now.
     */
    @Test
    void aManualListenerThatCannotAcknowledgeIsCommittedPastTheRecordsItsErrorHandlerRecovers(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.retry.max-attempts=1",
                        "kafko.listener.dead-letter.enabled=true")
                .withBean(ManualWithoutAckThatFails.class);
        RECEIVED.clear();
        onDisk.run(context -> {
            assertThat(context).hasNotFailed();
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (String value : List.of("a", "b", "boom", "c")) {
                template.send("unacked", value).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("a", "b", "boom", "c");
            assertThat(KafkoTestUtils.records(context, "unacked.DLT")).hasSize(1);
        });
        assertThat(log.events()).extracting(e -> e.getFormattedMessage()).anySatisfy(m -> assertThat(m)
                .contains("Listener 'unacked-failing' (ManualWithoutAckThatFails.on) has ack mode MANUAL but takes no"
                        + " Acknowledgment")
                .contains("it commits only when its error handler recovers a failed record (dead letter or log),"
                        + " which commits the records before it in its partition too")
                .doesNotContain("every record is delivered again"));
        RECEIVED.clear();
        onDisk.run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // a and b were committed with the dead letter; c, processed after it, was not
            assertThat(RECEIVED).containsExactly("c");
        });
    }

    static class ManualWithoutAckThatFails {
        @KafkoListener(id = "unacked-failing", topics = "unacked", ackMode = "manual")
        void on(String value) {
            RECEIVED.add(value);
            if (value.equals("boom")) {
                throw new IllegalStateException("boom");
            }
        }
    }

    static class SameIds {
        @KafkoListener(id = "twin", topics = "t")
        void first(String value) {
        }

        @KafkoListener(id = "twin", topics = "u")
        void second(String value) {
        }
    }

    static class ManualWithoutAck {
        @KafkoListener(id = "unacked", topics = "t", ackMode = "manual")
        void on(String value, @org.springframework.messaging.handler.annotation.Header(
                dev.kafko.spring.support.KafkoHeaders.OFFSET) long offset) {
        }
    }

    static class ManualBatchOfMessages {
        @KafkoListener(id = "acked-batch", topics = "t", ackMode = "manual", batch = "true")
        void on(List<org.springframework.messaging.Message<String>> messages) {
        }
    }

    static class ManualWithAckHeader {
        @KafkoListener(id = "acked", topics = "t", ackMode = "manual")
        void on(String value, @org.springframework.messaging.handler.annotation.Header(
                dev.kafko.spring.support.KafkoHeaders.ACKNOWLEDGMENT) Object ack) {
        }
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"RECORD", "BATCH"})
    void anAcknowledgmentParameterOutsideTheManualAckModesFailsTheStartNamingTheListener(AckMode mode) {
        runner.withBean(Acknowledging.class).withPropertyValues("kafko.listener.ack-mode=" + mode)
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "Listener 'acking' (Acknowledging.on) takes an Acknowledgment, which needs ackMode MANUAL or"
                                + " MANUAL_IMMEDIATE, but its ack mode is " + mode));
    }

    @Test
    void anAcknowledgmentParameterIsAcceptedWhenTheListenerItselfSetsAManualAckMode() {
        runner.withBean(AcknowledgingManually.class).run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void groupSafeTurnsEveryCharacterOutsideTheRuleIntoADot() {
        assertThat(KafkoListenerAnnotationBeanPostProcessor.groupSafe("a.B$c#1 x/y_z-9")).isEqualTo("a.B.c.1.x.y_z-9");
    }

    static class Listeners {
        @KafkoListener(topics = "plain")
        void on(String value) {
            RECEIVED.add(value);
        }

        @KafkoListener(topics = "first")
        @KafkoListener(topics = "second")
        void twice(String value) {
            RECEIVED.add(value);
        }
    }

    static class ScalarHeaderInBatch {
        @KafkoListener(id = "scalar", topics = "t", batch = "true")
        void on(List<String> values, @org.springframework.messaging.handler.annotation.Header(
                dev.kafko.spring.support.KafkoHeaders.OFFSET) long offset) {
        }
    }

    static class ZeroConcurrency {
        @KafkoListener(id = "idle", topics = "t", concurrency = "0")
        void on(String value) {
        }
    }

    static class Acknowledging {
        @KafkoListener(id = "acking", topics = "t")
        void on(String value, Acknowledgment ack) {
            ack.acknowledge();
        }
    }

    static class AcknowledgingManually {
        @KafkoListener(id = "acking", topics = "t", ackMode = "manual")
        void on(String value, Acknowledgment ack) {
            ack.acknowledge();
        }
    }

    static class NotABoolean {
        @KafkoListener(id = "yes", topics = "t", batch = "yes")
        void on(String value) {
        }
    }

    static class NullInTopicList {
        @KafkoListener(id = "nullInList", topics = "#{T(java.util.Arrays).asList('in', null)}")
        void on(String value) {
        }
    }

    public static class NullInTopicArray {
        public String[] getTopics() {
            return new String[] {"in", null};
        }

        @KafkoListener(id = "nullInArray", topics = "#{__listener.topics}")
        void on(String value) {
        }
    }
}
