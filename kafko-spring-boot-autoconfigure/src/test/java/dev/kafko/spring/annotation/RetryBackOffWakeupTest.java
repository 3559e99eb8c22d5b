package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A retry container's member waiting out a back-off between two polls is woken by what wakes its poll: an
 * acknowledgment from another thread under {@code manual_immediate} is committed at once, and a partition pause is
 * taken at once, not a poll timeout later.
 */
class RetryBackOffWakeupTest {

    static final AtomicReference<Acknowledgment> ACK = new AtomicReference<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.woken.partitions=2",
                    "kafko.topics.woken-retry.partitions=2", "kafko.listener.poll-timeout=60s",
                    "kafko.listener.ack-mode=manual-immediate")
            .withBean(Woken.class);

    @BeforeEach
    void reset() {
        ACK.set(null);
    }

    static class Woken {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "woken", topics = "woken", autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            ACK.set(ack); // acknowledged later, on the test's thread
        }
    }

    @Test
    void anAcknowledgmentFromAnotherThreadWhileTheMemberWaitsOutABackOffIsCommittedAtOnce() {
        runner.run(context -> {
            MessageListenerContainer retry = startWaiting(context);
            ACK.get().acknowledge(); // the member waits up to its 60 s poll timeout before it polls again

            LogBackend backend = context.getBean(LogBackend.class);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> backend.committedOffsets("woken-retry", retry.getGroupId()).getOrDefault(1, 0L) == 1L);
            assertThat(backend.committedOffsets("woken-retry", retry.getGroupId()).getOrDefault(0, 0L)).isZero();
        });
    }

    @Test
    void aPartitionPauseAskedWhileTheMemberWaitsOutABackOffIsTakenAtOnce() {
        runner.run(context -> {
            MessageListenerContainer retry = startWaiting(context);
            retry.pausePartition("woken-retry", 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> retry.isPartitionPaused("woken-retry", 1));
            assertThat(retry.isPartitionPaused("woken-retry", 0)).isFalse();
        });
    }

    /** {@link #laterAndDue} on this class's retry topic, then waits until its member waits out the back-off. */
    private static MessageListenerContainer startWaiting(AssertableApplicationContext context) {
        MessageListenerContainer retry = laterAndDue(context, "woken-retry");
        await().atMost(Duration.ofSeconds(30)).until(() -> ACK.get() != null && waitingOutABackOff());
        return retry;
    }

    /**
     * Sends "later", due in ten minutes, to partition 0 of {@code retryTopic} and "due" to partition 1, and starts
     * the retry container of that name: its first poll reads both (also for the other {@code RetryBackOff*Test}s).
     */
    static MessageListenerContainer laterAndDue(AssertableApplicationContext context, String retryTopic) {
        assertThat(context).hasNotFailed();
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        long now = System.currentTimeMillis();
        send(template, retryTopic, 0, "later", now + 600_000);
        send(template, retryTopic, 1, "due", now - 1);
        MessageListenerContainer retry = context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(retryTopic);
        retry.start();
        return retry;
    }

    /** Whether a member's thread waits in its back-off wait between two polls (also for {@link RetryBackOffWaitTest}). */
    static boolean waitingOutABackOff() {
        return Thread.getAllStackTraces().entrySet().stream()
                .anyMatch(e -> e.getKey().getState() == Thread.State.TIMED_WAITING
                        && calls(e.getValue(), ".MemberLifecycle", "awaitStopOrPause")
                        && calls(e.getValue(), ".MemberDelivery", "deliver"));
    }

    private static boolean calls(StackTraceElement[] stack, String classSuffix, String method) {
        return Arrays.stream(stack).anyMatch(f -> f.getClassName().endsWith(classSuffix)
                && f.getMethodName().equals(method));
    }

    private static void send(KafkoTemplate<Object, Object> template, String topic, int partition, String value,
                             long due) {
        template.send(MessageBuilder.withPayload(value).setHeader(KafkoHeaders.TOPIC, topic)
                .setHeader(KafkoHeaders.PARTITION, partition)
                .setHeader(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, Long.toString(due).getBytes(StandardCharsets.UTF_8))
                .build()).join();
    }
}
