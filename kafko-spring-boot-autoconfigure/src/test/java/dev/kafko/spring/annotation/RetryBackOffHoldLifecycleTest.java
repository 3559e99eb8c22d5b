package dev.kafko.spring.annotation;

import static dev.kafko.spring.annotation.RetryBackOffHoldTest.laterAndDue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A partition a retry container's member holds back for a back-off, through what happens to the member meanwhile: a
 * member joining its group gets a partition at once, and the held record stays held; a restart, a delete of the
 * topic, a pause of the container across the end of the back-off; and {@code waitForListeners} waits for it.
 */
class RetryBackOffHoldLifecycleTest {

    static final List<String> SEEN = RetryBackOffHoldTest.SEEN;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.holds.partitions=2",
                    "kafko.topics.holds-retry.partitions=2", "kafko.listener.poll-timeout=60s")
            .withBean(RetryBackOffHoldTest.Holds.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    @Test
    void aMemberJoiningTheGroupGetsAPartitionAtOnceAndTheHeldRecordStaysHeld() {
        runner.run(context -> {
            MessageListenerContainer retry = laterAndDue(context, "holds-retry");
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            Kafko kafko = context.getBean(Kafko.class);
            try (Consumer joiner = kafko.groupConsumer("holds-retry", retry.getGroupId())) {
                // the member polls on with its 60 s poll timeout: its poll hands a partition over
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    joiner.poll(Duration.ofMillis(100));
                    return !joiner.assignment().isEmpty();
                });
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> retry.getAssignedPartitions().values().stream()
                    .mapToInt(Set::size).sum() == 2);
            send(context, "holds-retry", 1, "probe", System.currentTimeMillis() - 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("probe"));
            assertThat(SEEN).containsExactly("due", "probe");
        });
    }

    @Test
    void aRestartDuringAHoldHoldsTheRecordBackAgain() {
        runner.run(context -> {
            MessageListenerContainer retry = laterAndDue(context, "holds-retry");
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            retry.stop();
            assertThat(retry.isRunning()).isFalse();
            retry.start();
            send(context, "holds-retry", 1, "probe", System.currentTimeMillis() - 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("probe"));
            assertThat(SEEN).containsExactly("due", "probe");
        });
    }

    @Test
    void theHeldTopicDeletedAndCreatedAgainIsReadAtOnce() {
        runner.run(context -> {
            laterAndDue(context, "holds-retry");
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            Kafko kafko = context.getBean(Kafko.class);
            kafko.deleteTopic("holds-retry");
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.topics().contains("holds-retry"));
            // the new consumer holds nothing back: a pause and a resume of the partition leave it read
            MessageListenerContainer retry = registry(context).getListenerContainer("holds-retry");
            await().atMost(Duration.ofSeconds(20)).until(() -> retry.getAssignedPartitions().values().stream()
                    .mapToInt(Set::size).sum() == 2);
            retry.pausePartition("holds-retry", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> retry.isPartitionPaused("holds-retry", 0));
            retry.resumePartition("holds-retry", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> !retry.isPartitionPaused("holds-retry", 0));
            send(context, "holds-retry", 0, "fresh", System.currentTimeMillis() - 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("fresh"));
            assertThat(SEEN).containsExactly("due", "fresh"); // "later" went with the topic
        });
    }

    @Test
    void aContainerPauseAcrossTheEndOfAHoldThenAResumeDeliversIt() {
        runner.run(context -> {
            long due = System.currentTimeMillis() + 1_500;
            send(context, "holds-retry", 0, "soon", due);
            send(context, "holds-retry", 1, "due", System.currentTimeMillis() - 1);
            MessageListenerContainer retry = registry(context).getListenerContainer("holds-retry");
            retry.start();
            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            retry.pause();
            await().atMost(Duration.ofSeconds(20)).until(retry::isContainerPaused);
            await().atMost(Duration.ofSeconds(20)).until(() -> System.currentTimeMillis() > due + 500);
            assertThat(SEEN).containsExactly("due");
            retry.resume();
            await().atMost(Duration.ofSeconds(20)).until(() -> SEEN.contains("soon"));
        });
    }

    @Test
    void waitForListenersWaitsForAHeldRecord() {
        runner.run(context -> {
            send(context, "holds-retry", 0, "soon", System.currentTimeMillis() + 2_000);
            send(context, "holds-retry", 1, "due", System.currentTimeMillis() - 1);
            registry(context).getListenerContainer("holds-retry").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            assertThat(SEEN).containsExactlyInAnyOrder("due", "soon");
        });
    }

    private static KafkoListenerEndpointRegistry registry(AssertableApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    @SuppressWarnings("unchecked")
    static void send(AssertableApplicationContext context, String topic, int partition, String value, long due) {
        context.getBean(KafkoTemplate.class).send(MessageBuilder.withPayload(value).setHeader(KafkoHeaders.TOPIC, topic)
                .setHeader(KafkoHeaders.PARTITION, partition)
                .setHeader(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP, Long.toString(due).getBytes(StandardCharsets.UTF_8))
                .build()).join();
    }
}
