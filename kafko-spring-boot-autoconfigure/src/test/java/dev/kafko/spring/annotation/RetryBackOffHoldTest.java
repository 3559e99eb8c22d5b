package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.event.ConsumerPartitionPausedEvent;
import dev.kafko.spring.listener.ConsumerSeekAware;
import dev.kafko.spring.listener.DelegatingBackend;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A retry container's member holds a partition back until the back-off of the record at its position ends, and polls
 * its other partitions as usual meanwhile: what they get is delivered as it comes, not a poll timeout later; the held
 * record comes once its back-off ended, whatever the poll timeout; the hold is no pause of the container (none is
 * reported, and a pause of the partition asked meanwhile outlasts the back-off, and a resume of it keeps the hold);
 * a seek of the held partition ends its hold; while a partition is held the member's poll waits its poll timeout.
 */
class RetryBackOffHoldTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final List<String> PAUSED = new CopyOnWriteArrayList<>();
    static final AtomicReference<Acknowledgment> ACK = new AtomicReference<>();
    /** How often the backend's clock was read: a retry member reads it before each poll while it holds a partition. */
    static final AtomicLong CLOCK_READS = new AtomicLong();
    /** Each member thread's seek callback. */
    static final Map<Thread, ConsumerSeekAware.ConsumerSeekCallback> CALLBACKS = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.holds.partitions=2",
                    "kafko.topics.holds-retry.partitions=2", "kafko.listener.poll-timeout=60s")
            .withBean(Paused.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
        PAUSED.clear();
        ACK.set(null);
        CALLBACKS.clear();
        CLOCK_READS.set(0);
    }

    static class Holds {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "holds", topics = "holds", autoStartup = "false")
        void on(String value) {
            SEEN.add(value);
        }
    }

    static class AcknowledgedLater {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "holds", topics = "holds", autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            SEEN.add(value);
            ACK.set(ack); // acknowledged later, on the test's thread
        }
    }

    static class SkipsTheHeldRecord implements ConsumerSeekAware {
        @Override
        public void registerSeekCallback(ConsumerSeekCallback callback) {
            CALLBACKS.put(Thread.currentThread(), callback);
        }

        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "holds", topics = "holds", autoStartup = "false")
        void on(String value) {
            SEEN.add(value);
            if (value.equals("skip")) {
                CALLBACKS.get(Thread.currentThread()).seek("holds-retry", 0, 1); // past "later"
            }
        }
    }

    /** Counts the reads of the backend's clock. */
    static class CountsClockReads implements BeanPostProcessor {
        @Override
        public Object postProcessAfterInitialization(Object bean, String name) {
            if (!(bean instanceof LogBackend real)) {
                return bean;
            }
            return new DelegatingBackend(real) {
                @Override
                public long currentTimeMillis() {
                    CLOCK_READS.incrementAndGet();
                    return super.currentTimeMillis();
                }
            };
        }
    }

    static class Paused {
        @EventListener
        void paused(ConsumerPartitionPausedEvent event) {
            PAUSED.add(event.getTopic() + "-" + event.getPartition());
        }
    }

    @Test
    void aRecordAnotherPartitionGetsWhileOneIsHeldIsDeliveredAtOnce() {
        runner.withBean(Holds.class).run(context -> {
            MessageListenerContainer retry = laterAndDue(context, "holds-retry");
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));

            // the member polls on with its 60 s poll timeout, woken by the append to the partition it reads
            send(template(context), "holds-retry", 1, "next", System.currentTimeMillis() - 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("next"));
            assertThat(SEEN).containsExactly("due", "next");
            assertThat(retry.isPartitionPaused("holds-retry", 0)).isFalse();
            assertThat(PAUSED).isEmpty();
        });
    }

    @Test
    void theHeldRecordComesOnceItsBackOffEndedNotAPollTimeoutLater() {
        runner.withBean(Holds.class).run(context -> {
            send(template(context), "holds-retry", 0, "soon", System.currentTimeMillis() + 1_000);
            registry(context).getListenerContainer("holds-retry").start();
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("soon"));
            assertThat(SEEN).containsExactly("soon");
        });
    }

    @Test
    void aPartitionPausedWhileHeldStaysPausedOnceItsBackOffEnded() {
        runner.withBean(Holds.class).run(context -> {
            long due = System.currentTimeMillis() + 1_500;
            send(template(context), "holds-retry", 0, "soon", due);
            send(template(context), "holds-retry", 1, "due", System.currentTimeMillis() - 1);
            MessageListenerContainer retry = registry(context).getListenerContainer("holds-retry");
            retry.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            retry.pausePartition("holds-retry", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> retry.isPartitionPaused("holds-retry", 0));

            // the back-off ends while the partition is paused: the record waits for the resume
            send(template(context), "holds-retry", 1, "probe", System.currentTimeMillis() - 1);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> System.currentTimeMillis() > due + 1_000 && SEEN.contains("probe"));
            send(template(context), "holds-retry", 1, "probe again", System.currentTimeMillis() - 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("probe again"));
            assertThat(SEEN).containsExactly("due", "probe", "probe again");

            retry.resumePartition("holds-retry", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("soon"));
            assertThat(SEEN).containsExactly("due", "probe", "probe again", "soon");
        });
    }

    @Test
    void aResumeOfAPartitionPausedWhileHeldKeepsItHeld() {
        runner.withBean(Holds.class).run(context -> {
            MessageListenerContainer retry = laterAndDue(context, "holds-retry");
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            retry.pausePartition("holds-retry", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> retry.isPartitionPaused("holds-retry", 0));
            retry.resumePartition("holds-retry", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> !retry.isPartitionPaused("holds-retry", 0));

            send(template(context), "holds-retry", 1, "probe", System.currentTimeMillis() - 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("probe"));
            assertThat(SEEN).containsExactly("due", "probe"); // "later" still waits for its ten minutes
            assertThat(PAUSED).containsExactly("holds-retry-0");
        });
    }

    @Test
    void anAcknowledgmentFromAnotherThreadWhileAPartitionIsHeldIsCommittedAtOnce() {
        runner.withPropertyValues("kafko.listener.ack-mode=manual-immediate").withBean(AcknowledgedLater.class)
                .run(context -> {
                    MessageListenerContainer retry = laterAndDue(context, "holds-retry");
                    await().atMost(Duration.ofSeconds(30)).until(() -> ACK.get() != null);
                    ACK.get().acknowledge(); // the member polls with its 60 s poll timeout meanwhile

                    LogBackend backend = context.getBean(LogBackend.class);
                    await().atMost(Duration.ofSeconds(20)).until(() -> backend
                            .committedOffsets("holds-retry", retry.getGroupId()).getOrDefault(1, 0L) == 1L);
                    assertThat(backend.committedOffsets("holds-retry", retry.getGroupId()).getOrDefault(0, 0L))
                            .isZero();
                });
    }

    @Test
    void whileAPartitionIsHeldTheMemberPollsOncePerPollTimeoutAlsoAfterAnotherHoldEnded() {
        runner.withBean(Holds.class).withBean(CountsClockReads.class).run(context -> {
            send(template(context), "holds-retry", 0, "soon", System.currentTimeMillis() + 1_000);
            send(template(context), "holds-retry", 1, "later", System.currentTimeMillis() + 600_000);
            registry(context).getListenerContainer("holds-retry").start();
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("soon"));

            // "later" is held for ten minutes: the member's poll waits its 60 s poll timeout, a clock read before it;
            // not a poll at once (a poll that may not wait), nor every millisecond (the hold of "soon" kept past its
            // end)
            long reads = CLOCK_READS.get();
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
                    .until(() -> CLOCK_READS.get() - reads < 50);
            assertThat(SEEN).containsExactly("soon");
        });
    }

    @Test
    void aSeekOfTheHeldPartitionEndsItsHold() {
        runner.withBean(SkipsTheHeldRecord.class).run(context -> {
            laterAndDue(context, "holds-retry");
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            send(template(context), "holds-retry", 0, "after", System.currentTimeMillis() - 1); // behind "later"
            send(template(context), "holds-retry", 1, "skip", System.currentTimeMillis() - 1);

            // the partition is read from where it was sought at once, not once the ten minutes of "later" ended
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("after"));
            assertThat(SEEN).containsExactly("due", "skip", "after");
        });
    }

    /**
     * Sends "later", due in ten minutes, to partition 0 of {@code retryTopic} and "due" to partition 1, and starts
     * the retry container of that name: its first poll reads both (also for the other {@code RetryBackOff*Test}s).
     */
    static MessageListenerContainer laterAndDue(AssertableApplicationContext context, String retryTopic) {
        assertThat(context).hasNotFailed();
        KafkoTemplate<Object, Object> template = template(context);
        long now = System.currentTimeMillis();
        send(template, retryTopic, 0, "later", now + 600_000);
        send(template, retryTopic, 1, "due", now - 1);
        MessageListenerContainer retry = registry(context).getListenerContainer(retryTopic);
        retry.start();
        return retry;
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(AssertableApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static KafkoListenerEndpointRegistry registry(AssertableApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    private static void send(KafkoTemplate<Object, Object> template, String topic, int partition, String value,
                             long due) {
        template.send(MessageBuilder.withPayload(value).setHeader(KafkoHeaders.TOPIC, topic)
                .setHeader(KafkoHeaders.PARTITION, partition)
                .setHeader(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, Long.toString(due).getBytes(StandardCharsets.UTF_8))
                .build()).join();
    }
}
