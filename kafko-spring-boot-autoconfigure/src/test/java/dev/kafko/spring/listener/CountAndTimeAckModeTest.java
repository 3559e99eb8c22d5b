package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** The COUNT, TIME and COUNT_TIME ack modes commit after a number of records or a time, as spring-kafka's. */
class CountAndTimeAckModeTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The group's committed offset on partition 0 seen at each delivery (-1: none). */
    static final List<Long> COMMITTED_AT_DELIVERY = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Counting.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.max-poll-records=3");

    @BeforeEach
    void reset() {
        COMMITTED_AT_DELIVERY.clear();
    }

    @Test
    void countCommitsOnceAPollEndsWithAckCountRecordsProcessedSinceTheLastCommit() {
        runner.withPropertyValues("kafko.listener.ack-mode=count", "kafko.listener.ack-count=5").run(context -> {
            sendThenStart(context, 12);
            await().atMost(WAIT).until(() -> COMMITTED_AT_DELIVERY.size() == 12);
            // polls of 3: the second poll ends with 6 records processed (commit 6), the fourth with 6 more (12)
            assertThat(COMMITTED_AT_DELIVERY.subList(0, 6)).containsOnly(-1L);
            assertThat(COMMITTED_AT_DELIVERY.subList(6, 12)).containsOnly(6L);
            await().atMost(WAIT).until(() -> committed(context) == 12L);
        });
    }

    @Test
    void countCommitsWhenThePollEndsWithExactlyAckCountRecordsProcessed() {
        runner.withPropertyValues("kafko.listener.ack-mode=count", "kafko.listener.ack-count=6").run(context -> {
            sendThenStart(context, 12);
            await().atMost(WAIT).until(() -> COMMITTED_AT_DELIVERY.size() == 12);
            // polls of 3: the second poll ends with exactly 6 records processed: it commits 6
            assertThat(COMMITTED_AT_DELIVERY.subList(0, 6)).containsOnly(-1L);
            assertThat(COMMITTED_AT_DELIVERY.subList(6, 12)).containsOnly(6L);
            await().atMost(WAIT).until(() -> committed(context) == 12L);
        });
    }

    @Test
    void timeCommitsNothingBeforeAckTimeAndTheStopCommitsWhatWasProcessed() {
        runner.withPropertyValues("kafko.listener.ack-mode=time", "kafko.listener.ack-time=1h").run(context -> {
            sendThenStart(context, 5);
            KafkoTestUtils.waitForListeners(context, WAIT); // processed counts, though not committed
            assertThat(COMMITTED_AT_DELIVERY).hasSize(5);
            assertThat(committed(context)).as("an hour has not passed").isEqualTo(-1L);

            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("counting").stop();

            assertThat(committed(context)).isEqualTo(5L);
        });
    }

    @Test
    void aPauseCommitsWhatWasProcessedThoughTheTimeHasNotCome() {
        runner.withPropertyValues("kafko.listener.ack-mode=time", "kafko.listener.ack-time=1h").run(context -> {
            sendThenStart(context, 5);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(committed(context)).as("an hour has not passed").isEqualTo(-1L);

            MessageListenerContainer container =
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("counting");
            container.pause();
            await().atMost(WAIT).until(container::isPaused);

            // a paused member commits what it processed before it waits, not an hour later
            assertThat(committed(context)).isEqualTo(5L);
        });
    }

    @Test
    void countTimeCommitsWhenTheTimeComesThoughTheCountDoesNot() {
        runner.withPropertyValues("kafko.listener.ack-mode=count-time", "kafko.listener.ack-count=1000",
                "kafko.listener.ack-time=200ms").run(context -> {
            sendThenStart(context, 4);
            await().atMost(WAIT).until(() -> committed(context) == 4L);
            assertThat(COMMITTED_AT_DELIVERY).hasSize(4);
        });
    }

    private static long committed(ApplicationContext context) {
        return context.getBean(Kafko.class).groupInfo("counted", "counting").committed().getOrDefault(0, -1L);
    }

    @SuppressWarnings("unchecked")
    private static void sendThenStart(ApplicationContext context, int n) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (int i = 0; i < n; i++) {
            template.send("counted", "v" + i).join();
        }
        context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("counting").start();
    }

    static class Counting {
        @Autowired
        Kafko kafko;

        @KafkoListener(id = "counting", topics = "counted", autoStartup = "false")
        void on(String value) {
            COMMITTED_AT_DELIVERY.add(kafko.groupInfo("counted", "counting").committed().getOrDefault(0, -1L));
        }
    }
}
