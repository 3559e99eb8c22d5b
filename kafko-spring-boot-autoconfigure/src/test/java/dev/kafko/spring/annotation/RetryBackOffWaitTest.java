package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.ConsumerSeekAware;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The wait of a retry container's member between two polls while it holds a record back for its back-off: it commits
 * an acknowledgment another thread made during the poll before it waits, a wakeup ends only the wait it came in (the
 * member waits again after its next poll), a seek the poll's last delivered record asked for ends it, and a poll
 * timeout under a millisecond still waits between two polls instead of re-reading the held record without pause.
 */
class RetryBackOffWaitTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    /** Each member thread's seek callback. */
    static final Map<Thread, ConsumerSeekAware.ConsumerSeekCallback> CALLBACKS = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.waits.partitions=2",
                    "kafko.topics.waits-retry.partitions=2", "kafko.listener.poll-timeout=60s");

    @BeforeEach
    void reset() {
        SEEN.clear();
        CALLBACKS.clear();
    }

    static class AcknowledgedElsewhere {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "waits", topics = "waits", autoStartup = "false")
        void on(String value, Acknowledgment ack) throws InterruptedException {
            Thread other = new Thread(ack::acknowledge); // acknowledged on another thread before the delivery ends
            other.start();
            other.join();
            SEEN.add(value);
        }
    }

    static class Seeks implements ConsumerSeekAware {
        @Override
        public void registerSeekCallback(ConsumerSeekCallback callback) {
            CALLBACKS.put(Thread.currentThread(), callback);
        }

        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "waits", topics = "waits", autoStartup = "false")
        void on(String value) {
            SEEN.add(value);
            if (SEEN.size() == 1) {
                CALLBACKS.get(Thread.currentThread()).seek("waits-retry", 1, 0); // read "due" once more
            }
        }
    }

    static class Plain {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "waits", topics = "waits", autoStartup = "false")
        void on(String value) {
            SEEN.add(value);
        }
    }

    @Test
    void anAcknowledgmentAnotherThreadMadeDuringThePollIsCommittedBeforeTheWaitUnderManual() {
        runner.withPropertyValues("kafko.listener.ack-mode=manual").withBean(AcknowledgedElsewhere.class)
                .run(context -> {
                    MessageListenerContainer retry = start(context);
                    await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
                    // under manual, an acknowledgment from another thread wakes nobody: the member takes it at the end
                    // of its poll, and it waits up to its 60 s poll timeout after that one
                    LogBackend backend = context.getBean(LogBackend.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> backend
                            .committedOffsets("waits-retry", retry.getGroupId()).getOrDefault(1, 0L) == 1L);
                    assertThat(backend.committedOffsets("waits-retry", retry.getGroupId()).getOrDefault(0, 0L))
                            .isZero();
                });
    }

    @Test
    void aWakeupEndsTheWaitItCameInAndTheMemberWaitsAgainAfterItsNextPoll() {
        runner.withBean(Plain.class).run(context -> {
            MessageListenerContainer retry = start(context);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> SEEN.contains("due") && RetryBackOffWakeupTest.waitingOutABackOff());
            retry.pausePartition("waits-retry", 1); // wakes the member
            await().atMost(Duration.ofSeconds(20)).until(() -> retry.isPartitionPaused("waits-retry", 1));

            // the wakeup is spent: the member polls, holds "later" back again and waits, not re-reading it without end
            await().atMost(Duration.ofSeconds(20)).until(RetryBackOffWakeupTest::waitingOutABackOff);
            assertThat(SEEN).containsExactly("due");
        });
    }

    @Test
    void aSeekThePollsLastDeliveredRecordAskedForEndsTheWait() {
        runner.withBean(Seeks.class).run(context -> {
            start(context);
            // the poll delivers "due" last ("later" of partition 0 comes before it and is held back); its seek wakes
            // the member, which would otherwise make it after its 60 s poll timeout
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.size() == 2);
            assertThat(SEEN).containsExactly("due", "due");
        });
    }

    @Test
    void aPollTimeoutUnderAMillisecondStillWaitsBetweenTwoPollsOfAHeldRecord() {
        runner.withPropertyValues("kafko.listener.poll-timeout=100us").withBean(Plain.class).run(context -> {
            start(context);
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            // a millisecond at least between two polls that read "later" again; without it the member's thread
            // re-reads it without ever waiting
            await().atMost(Duration.ofSeconds(20)).until(RetryBackOffWakeupTest::waitingOutABackOff);
            assertThat(SEEN).containsExactly("due");
        });
    }

    private static MessageListenerContainer start(AssertableApplicationContext context) {
        return RetryBackOffWakeupTest.laterAndDue(context, "waits-retry");
    }
}
