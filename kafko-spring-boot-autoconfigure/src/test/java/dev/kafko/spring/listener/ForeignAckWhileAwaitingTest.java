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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Under {@code manual_immediate} an acknowledgment is committed at once, whichever thread gives it: also while the
 * polling thread waits for the stage the listener returned (a {@code CompletableFuture}, a {@code Mono}, a Kotlin
 * {@code suspend} listener), whose work acknowledges on its own thread before it completes. Before, the acknowledgment
 * waited for the stage, and a crash in between delivered an acknowledged record again.
 */
class ForeignAckWhileAwaitingTest {

    static volatile CountDownLatch acknowledged;
    static volatile CountDownLatch release;
    static volatile boolean fail;
    static volatile CountDownLatch blocking;

    @BeforeEach
    void reset() {
        acknowledged = new CountDownLatch(2);
        release = new CountDownLatch(1);
        fail = false;
        blocking = new CountDownLatch(1);
    }

    /** Acknowledges on a thread of its own, then finishes its work once the test releases it. */
    static class AcknowledgesThenWorksOn {
        @KafkoListener(id = "ack-early", topics = "ack-early", ackMode = "manual_immediate")
        CompletableFuture<Void> on(String value, Acknowledgment ack) {
            return CompletableFuture.runAsync(() -> {
                ack.acknowledge();
                acknowledged.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (fail) {
                    throw new IllegalStateException("work after the acknowledgment failed");
                }
            });
        }
    }

    /**
     * "a": its work acknowledges on a thread of its own and is over by the time the polling thread waits for it. "b",
     * read by the same poll: the polling thread works on it until the test releases it.
     */
    static class DoneBeforeTheWait {
        @KafkoListener(id = "ack-done", topics = "ack-done", ackMode = "manual_immediate", autoStartup = "false")
        CompletableFuture<Void> on(String value, Acknowledgment ack) throws InterruptedException {
            if (value.equals("a")) {
                CompletableFuture<Void> work = CompletableFuture.runAsync(ack::acknowledge);
                work.join();
                return work;
            }
            blocking.countDown();
            release.await(30, TimeUnit.SECONDS);
            ack.acknowledge();
            return CompletableFuture.completedFuture(null);
        }
    }

    /** Hands its acknowledgment and its stage to the test, which completes them. */
    static class Handing {
        static final Map<String, Acknowledgment> ACKS = new ConcurrentHashMap<>();
        static final Map<String, CompletableFuture<Void>> STAGES = new ConcurrentHashMap<>();

        @KafkoListener(id = "ack-deleted", topics = "ack-deleted", ackMode = "manual_immediate")
        CompletableFuture<Void> on(String value, Acknowledgment ack) {
            CompletableFuture<Void> stage = new CompletableFuture<>();
            STAGES.put(value, stage);
            ACKS.put(value, ack);
            return stage;
        }

        @KafkoListener(id = "ack-deleted-held", topics = "ack-deleted-held", ackMode = "manual_immediate",
                autoStartup = "false")
        CompletableFuture<Void> held(String value, Acknowledgment ack) {
            return on(value, ack);
        }
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(AcknowledgesThenWorksOn.class).withBean(DoneBeforeTheWait.class).withBean(Handing.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=1");
    }

    @Test
    void anAcknowledgmentOnAnotherThreadIsCommittedBeforeTheStageCompletes() {
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            template(context).send("ack-early", "a").join();
            template(context).send("ack-early", "b").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.getCount() == 1);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    kafko.groupInfo("ack-early", "ack-early").committed()).as("committed while the stage runs")
                    .containsEntry(0, 1L));
            release.countDown();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(kafko.groupInfo("ack-early", "ack-early").committed()).containsEntry(0, 2L);
        });
    }

    @Test
    void aStageThatFailsAfterItsAcknowledgmentLeavesTheRecordCommitted() {
        fail = true;
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            template(context).send("ack-early", "a").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> acknowledged.getCount() == 1);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    kafko.groupInfo("ack-early", "ack-early").committed()).containsEntry(0, 1L));
            release.countDown();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(kafko.groupInfo("ack-early", "ack-early").committed()).as("a commit never moves back")
                    .containsEntry(0, 1L);
        });
    }

    @Test
    void anAcknowledgmentOfAStageDoneBeforeTheWaitIsCommittedBeforeThePollsNextRecord() {
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            template(context).send("ack-done", "a").join();
            template(context).send("ack-done", "b").join();
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("ack-done").start();
            try {
                assertThat(blocking.await(20, TimeUnit.SECONDS)).as("b delivered").isTrue();
                assertThat(kafko.groupInfo("ack-done", "ack-done").committed())
                        .as("a's acknowledgment committed before the member went on to b").containsEntry(0, 1L);
            } finally {
                release.countDown();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(kafko.groupInfo("ack-done", "ack-done").committed()).containsEntry(0, 2L);
        });
    }

    @Test
    void anAcknowledgmentWhileTheStageRunsOnATopicDeletedMeanwhileLeavesTheMemberToReadTheTopicCreatedAgain() {
        Handing.ACKS.clear();
        Handing.STAGES.clear();
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            template(context).send("ack-deleted", "old").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> Handing.ACKS.containsKey("old"));
            kafko.deleteTopic("ack-deleted");
            template(context).send("ack-deleted", "new").join(); // created again on use
            Handing.ACKS.get("old").acknowledge(); // the wait takes it: its topic is gone
            Handing.STAGES.get("old").complete(null);
            await().atMost(Duration.ofSeconds(20)).alias("the member reads the topic created again")
                    .until(() -> Handing.ACKS.containsKey("new"));
            Handing.ACKS.get("new").acknowledge();
            Handing.STAGES.get("new").complete(null);
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20)); // fails naming a member that died
            assertThat(kafko.groupInfo("ack-deleted", "ack-deleted").committed()).as("the old acknowledgment not on the"
                    + " new topic").containsEntry(0, 1L);
        });
    }

    @Test
    void anAcknowledgmentWhileTheStageRunsOnATopicDeletedMeanwhileLeavesTheRecordsAfterItUndelivered() {
        Handing.ACKS.clear();
        Handing.STAGES.clear();
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            template(context).send("ack-deleted-held", "old-1").join();
            template(context).send("ack-deleted-held", "old-2").join(); // read by the same poll as old-1
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("ack-deleted-held").start();
            await().atMost(Duration.ofSeconds(20)).until(() -> Handing.ACKS.containsKey("old-1"));
            kafko.deleteTopic("ack-deleted-held");
            template(context).send("ack-deleted-held", "new").join(); // created again on use
            Handing.ACKS.get("old-1").acknowledge(); // the wait finds the topic gone
            Handing.STAGES.get("old-1").complete(null);
            await().atMost(Duration.ofSeconds(20)).alias("the member reads the topic created again")
                    .until(() -> Handing.ACKS.containsKey("new") || Handing.ACKS.containsKey("old-2"));
            assertThat(Handing.ACKS).as("a record of the deleted topic in hand is not delivered")
                    .doesNotContainKey("old-2");
            Handing.ACKS.get("new").acknowledge();
            Handing.STAGES.get("new").complete(null);
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(kafko.groupInfo("ack-deleted-held", "ack-deleted-held").committed()).containsEntry(0, 1L);
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(org.springframework.context.ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }
}
