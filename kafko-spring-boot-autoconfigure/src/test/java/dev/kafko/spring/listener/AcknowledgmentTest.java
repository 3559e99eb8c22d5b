package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** In the manual modes nothing is committed until the listener acknowledges, from any thread. */
class AcknowledgmentTest {

    static final BlockingQueue<Acknowledgment> ACKS = new LinkedBlockingQueue<>();

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void anAcknowledgmentFromAnotherThreadCommitsTheRecord(AckMode mode) {
        ACKS.clear();
        runner(Holder.class, mode).withPropertyValues("kafko.listener.poll-timeout=200ms")
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    Kafko kafko = context.getBean(Kafko.class);
                    template.send("acks", "a").join();
                    template.send("acks", "b").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(kafko.groupInfo("acks", "holder").committed()).doesNotContainKey(0);

                    ACKS.poll(5, TimeUnit.SECONDS); // leave "a" unacknowledged
                    Acknowledgment second = ACKS.poll(5, TimeUnit.SECONDS);
                    second.acknowledge(); // on the test thread, not the polling thread
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                            assertThat(kafko.groupInfo("acks", "holder").committed()).containsEntry(0, 2L));
                });
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void waitingForListenersThatAcknowledgeOnTheirThreadIncludesTheCommit(AckMode mode) {
        SELF_ACKED.clear();
        runner(SelfAcknowledging.class, mode)
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    Kafko kafko = context.getBean(Kafko.class);
                    for (int round = 1; round <= 30; round++) {
                        template.send("self", "v" + round);
                        template.send("self", "w" + round).join();
                        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                        assertThat(kafko.groupInfo("self", "self").committed()).as("round %d", round)
                                .containsEntry(0, 2L * round);
                    }
                });
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void afterARestartTheWaitIncludesTheRedeliveryOfWhatWasNeverAcknowledged(AckMode mode) {
        SELF_ACKED.clear();
        runner(SelfAcknowledging.class, mode)
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("self", "ok").join();
                    template.send("self", "unacknowledged").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SELF_ACKED).containsExactly("ok", "unacknowledged");

                    MessageListenerContainer container = context.getBean(
                            dev.kafko.spring.config.KafkoListenerEndpointRegistry.class).getListenerContainer("self");
                    container.stop();
                    container.start();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SELF_ACKED).containsExactly("ok", "unacknowledged", "unacknowledged");
                });
    }

    /** MANUAL_IMMEDIATE: an acknowledgment on the listener's thread is committed before acknowledge() returns. */
    @Test
    void underManualImmediateAnAcknowledgmentOnTheListenersThreadIsCommittedAtOnce() {
        COMMITTED_AFTER_ACK.clear();
        runner(ImmediateChecking.class, AckMode.MANUAL_IMMEDIATE).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("immediate", "a");
            template.send("immediate", "b").join();
            // (not waitForListeners: the commit inside acknowledge() already counts as processed)
            await().atMost(Duration.ofSeconds(20)).until(() -> COMMITTED_AFTER_ACK.size() == 2);
            assertThat(COMMITTED_AFTER_ACK).containsExactly(1L, 2L);
        });
    }

    /** MANUAL_IMMEDIATE: an acknowledgment from another thread is committed without waiting for the poll to end. */
    @Test
    void underManualImmediateAnAcknowledgmentFromAnotherThreadDoesNotWaitForThePollTimeout() {
        ACKS.clear();
        runner(Holder.class, AckMode.MANUAL_IMMEDIATE).withPropertyValues("kafko.listener.poll-timeout=60s")
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    template(context).send("acks", "a").join();
                    Acknowledgment ack = ACKS.poll(20, TimeUnit.SECONDS);
                    Thread.sleep(200); // the member is back in its poll, which waits up to 60 s
                    ack.acknowledge();
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                            assertThat(kafko.groupInfo("acks", "holder").committed()).containsEntry(0, 1L));
                });
    }

    static final java.util.List<Long> COMMITTED_AFTER_ACK = new java.util.concurrent.CopyOnWriteArrayList<>();

    static class ImmediateChecking {
        @org.springframework.beans.factory.annotation.Autowired
        Kafko kafko;

        @KafkoListener(id = "immediate", topics = "immediate")
        void on(String value, Acknowledgment ack) {
            ack.acknowledge();
            COMMITTED_AFTER_ACK.add(kafko.groupInfo("immediate", "immediate").committed().getOrDefault(0, -1L));
        }
    }

    @Test
    void inAnAutomaticModeTheAcknowledgmentOfTheMessageHeaderDoesNothingAndCannotNack() {
        HEADER_ACK_OUTCOMES.clear();
        runner(HeaderAcknowledging.class, AckMode.BATCH).run(context -> {
            template(context).send("header-acks", "a").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(HEADER_ACK_OUTCOMES).containsExactly("acknowledged", "nack: UnsupportedOperationException");
            assertThat(context.getBean(Kafko.class).groupInfo("header-acks", "header-acks").committed())
                    .containsEntry(0, 1L);
        });
    }

    static final java.util.List<String> HEADER_ACK_OUTCOMES = new java.util.concurrent.CopyOnWriteArrayList<>();

    static class HeaderAcknowledging {
        @KafkoListener(id = "header-acks", topics = "header-acks")
        void on(org.springframework.messaging.Message<String> message) {
            Acknowledgment ack = message.getHeaders().get(dev.kafko.spring.support.KafkoHeaders.ACKNOWLEDGMENT,
                    Acknowledgment.class);
            ack.acknowledge();
            HEADER_ACK_OUTCOMES.add("acknowledged");
            try {
                ack.nack(Duration.ZERO);
                HEADER_ACK_OUTCOMES.add("nacked");
            } catch (RuntimeException e) {
                HEADER_ACK_OUTCOMES.add("nack: " + e.getClass().getSimpleName());
            }
        }
    }

    private static ApplicationContextRunner runner(Class<?> listener, AckMode mode) {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(listener).withPropertyValues("kafko.ephemeral=true", "kafko.listener.ack-mode=" + mode);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(org.springframework.context.ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static final java.util.List<String> SELF_ACKED = new java.util.concurrent.CopyOnWriteArrayList<>();

    static class SelfAcknowledging {
        @KafkoListener(id = "self", topics = "self")
        void on(String value, Acknowledgment ack) {
            SELF_ACKED.add(value);
            if (!value.equals("unacknowledged")) {
                ack.acknowledge();
            }
        }
    }

    static final java.util.List<String> PARTIAL = new java.util.concurrent.CopyOnWriteArrayList<>();
    static final java.util.List<RuntimeException> PARTIAL_REFUSED = new java.util.concurrent.CopyOnWriteArrayList<>();

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void aBatchAcknowledgedUpToAnIndexCommitsThatFarAndTheRestComesAgainAfterARestart(AckMode mode,
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        PARTIAL.clear();
        PARTIAL_REFUSED.clear();
        ApplicationContextRunner onDir = runner(PartlyAcknowledging.class, mode)
                .withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + dir, "kafko.topics.partial.partitions=1");
        onDir.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            java.util.List<dev.kafko.OutgoingRecord> batch = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                batch.add(dev.kafko.OutgoingRecord.of(null, ("p" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            kafko.producer("partial").sendBatch(batch).join(); // one poll delivers all five
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("partial").start();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(kafko.groupInfo("partial", "partial").committed()).containsEntry(0, 3L));
            assertThat(PARTIAL).containsExactly("p0", "p1", "p2", "p3", "p4");
            // under manual-immediate the commit comes inside the listener call, before its refused calls
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(PARTIAL_REFUSED)
                    .as("an index at or below one acknowledged changes nothing").hasSize(2));
            assertThat(PARTIAL_REFUSED.get(0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThat(PARTIAL_REFUSED.get(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only on its polling thread");
        });
        PARTIAL.clear();
        onDir.run(context -> {
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("partial").start();
            await().atMost(Duration.ofSeconds(20)).until(() -> PARTIAL.size() == 2);
            assertThat(PARTIAL).as("what was not acknowledged").containsExactly("p3", "p4");
        });
    }

    static class PartlyAcknowledging {
        @KafkoListener(id = "partial", topics = "partial", batch = "true", autoStartup = "false")
        void on(java.util.List<String> values, Acknowledgment ack) throws Exception {
            PARTIAL.addAll(values);
            if (values.size() < 5) {
                return; // the redelivery after the restart: left unacknowledged
            }
            ack.acknowledge(2);
            for (Runnable refused : java.util.List.<Runnable>of(() -> ack.acknowledge(1), () -> ack.acknowledge(5))) {
                try {
                    refused.run();
                } catch (RuntimeException e) {
                    PARTIAL_REFUSED.add(e);
                }
            }
            java.util.concurrent.CompletableFuture.runAsync(() -> ack.acknowledge(4)).exceptionally(e -> {
                PARTIAL_REFUSED.add((RuntimeException) e.getCause());
                return null;
            }).get();
        }
    }

    static final java.util.concurrent.atomic.AtomicInteger ATTEMPTS = new java.util.concurrent.atomic.AtomicInteger();

    @Test
    void aRetriedBatchAcknowledgesPartlyAgainAndANackedRecordCannotBeAcknowledged() {
        ATTEMPTS.set(0);
        PARTIAL.clear();
        PARTIAL_REFUSED.clear();
        runner(RetriedPartly.class, AckMode.MANUAL).withPropertyValues("kafko.listener.retry.max-attempts=3",
                "kafko.listener.retry.backoff=0", "kafko.topics.retried.partitions=1").run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    java.util.List<dev.kafko.OutgoingRecord> batch = new java.util.ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        batch.add(dev.kafko.OutgoingRecord.of(null,
                                ("r" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                    }
                    kafko.producer("retried").sendBatch(batch).join();
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("retried").start();
                    await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                            assertThat(kafko.groupInfo("retried", "retried").committed()).containsEntry(0, 4L));
                    assertThat(PARTIAL).as("the retry processed the whole batch").containsExactly("r0", "r1", "r2", "r3");
                    assertThat(PARTIAL_REFUSED).hasSize(1);
                    assertThat(PARTIAL_REFUSED.get(0)).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("acknowledged index 3 of a batch it nacked from index 2");
                });
    }

    static class RetriedPartly {
        @KafkoListener(id = "retried", topics = "retried", batch = "true", autoStartup = "false")
        void on(java.util.List<String> values, Acknowledgment ack) {
            int attempt = ATTEMPTS.incrementAndGet();
            if (attempt == 2) {
                ack.nack(2, Duration.ofMillis(10)); // the first attempt acknowledged up to index 1
                try {
                    ack.acknowledge(3); // past the nack: refused
                } catch (RuntimeException e) {
                    PARTIAL_REFUSED.add(e);
                }
                throw new IllegalStateException("fails after its nack, so the error handler retries");
            }
            for (int i = 0; i < values.size(); i++) {
                if (attempt == 1 && i == 2) {
                    throw new IllegalStateException("a transient failure at " + values.get(i));
                }
                if (attempt == 3) {
                    PARTIAL.add(values.get(i));
                }
                ack.acknowledge(i);
            }
        }
    }

    static final java.util.List<java.util.List<String>> BEHIND_AT_LAST = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * Under MANUAL a record left unacknowledged after one acknowledged in the same poll counts as finished only with
     * the poll's commit, so that a wait for the listeners covers the commit of that acknowledgment (looked at here
     * from the listener's thread, at the poll's next record, before the commit).
     */
    @Test
    void underManualARecordLeftUnacknowledgedCountsAsFinishedOnlyWithTheCommitOfTheAcknowledgmentBeforeIt() {
        BEHIND_AT_LAST.clear();
        runner(CheckingBeforeTheCommit.class, AckMode.MANUAL).withPropertyValues("kafko.topics.between.partitions=1")
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    java.util.List<dev.kafko.OutgoingRecord> batch = new java.util.ArrayList<>();
                    for (String value : java.util.List.of("ok", "unacknowledged", "last")) {
                        batch.add(dev.kafko.OutgoingRecord.of(null,
                                value.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                    }
                    kafko.producer("between").sendBatch(batch).join(); // one poll delivers all three
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("between").start();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(kafko.groupInfo("between", "between").committed()).containsEntry(0, 1L);
                    assertThat(BEHIND_AT_LAST).as("nothing committed yet when the last record came")
                            .containsExactly(java.util.List.of("between-0 at 0 of 2"));
                });
    }

    static class CheckingBeforeTheCommit {
        @org.springframework.beans.factory.annotation.Autowired
        KafkoListenerEndpointRegistry registry;

        @KafkoListener(id = "between", topics = "between", autoStartup = "false")
        void on(String value, Acknowledgment ack) throws InterruptedException {
            if (value.equals("ok")) {
                ack.acknowledge();
            } else if (value.equals("last")) {
                ConcurrentMessageListenerContainer container =
                        (ConcurrentMessageListenerContainer) registry.getListenerContainer("between");
                BEHIND_AT_LAST.add(container.awaitCaughtUp(java.util.Map.of("between", java.util.Map.of(0, 2L)),
                        Duration.ZERO));
            }
        }
    }

    static class Holder {
        @KafkoListener(id = "holder", topics = "acks")
        void on(String value, Acknowledgment ack) {
            ACKS.add(ack);
        }
    }
}
