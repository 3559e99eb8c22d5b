package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.TopicPartitionsTest.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoOptionsCustomizer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A running listener's seek to an offset retention deleted, under the {@code latest} reset policy: the member's next
 * poll moves it to the end, as the policy says, and the group commits that end, where it reads from, not the offset
 * sought. A commit below the log start would have the next start of the container reset to the end of that later
 * time, skipping what was sent while it was stopped.
 */
@ExtendWith(OutputCaptureExtension.class)
class SeekBelowTheLogStartTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.offset-reset=latest", "kafko.topics.orders.segment-size=1KB",
                    "kafko.topics.orders.retention-bytes=1KB")
            .withBean(KafkoOptionsCustomizer.class,
                    () -> builder -> builder.retentionCheckInterval(Duration.ofMillis(50)))
            .withBean(Reader.class);

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        Reader.callback = null;
    }

    @Test
    void aSeekBelowTheLogStartCommitsTheEndThePollMovesToAndARestartReadsWhatCameMeanwhile() {
        runner.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = startAtTheEndOfATrimmedLog(context);

            Reader.callback.seek("orders", 0, 0);
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(RECEIVED).as("latest: the reset skips what the log keeps").isEmpty();
            assertThat(kafko.groupInfo("orders", "reader").committed()).isEqualTo(Map.of(0, 50L));
            container.stop();
            await().atMost(WAIT).until(() -> !container.isRunning());
            template.send("orders", 0, null, "sent while stopped").join();
            container.start();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).containsExactly("sent while stopped");
        });
    }

    @Test
    void underFailASeekBelowTheLogStartIsCommittedSoARestartsPollsFailTooUntilASeekIntoTheLog(CapturedOutput output) {
        runner.withPropertyValues("kafko.offset-reset=fail").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            ConcurrentMessageListenerContainer container = startAtTheEndOfATrimmedLog(context);

            Reader.callback.seek("orders", 0, 0);
            await().atMost(WAIT).until(() -> kafko.groupInfo("orders", "reader").committed().equals(Map.of(0, 0L)));
            String failed = "position 0 is outside the log";
            await().atMost(WAIT).until(() -> output.getOut().contains(failed));
            container.stop();
            await().atMost(WAIT).until(() -> !container.isRunning());
            template.send("orders", 0, null, "sent while stopped").join();
            int before = output.getOut().split(failed, -1).length;
            RECEIVED.clear();
            container.start();
            await().atMost(WAIT).alias("the restart polls from the commit, below the log start, and fails")
                    .until(() -> output.getOut().split(failed, -1).length > before);
            assertThat(RECEIVED).isEmpty();

            Reader.callback.seekToBeginning("orders", 0); // the callback of the new run
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).last().isEqualTo("sent while stopped");
            assertThat(kafko.groupInfo("orders", "reader").committed()).isEqualTo(Map.of(0, 51L));
        });
    }

    /**
     * Sends 50 records of 200 bytes, waits until retention deleted the first segments, and starts the reader, which
     * starts at the end (50) under both policies.
     */
    private static ConcurrentMessageListenerContainer startAtTheEndOfATrimmedLog(ApplicationContext context) {
        Kafko kafko = context.getBean(Kafko.class);
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        String value = "x".repeat(200);
        for (int i = 0; i < 50; i++) {
            template.send("orders", 0, null, value).join();
        }
        await().atMost(WAIT).until(() -> kafko.topic("orders").orElseThrow().partitions().get(0)
                .logStartOffset() > 0);
        ConcurrentMessageListenerContainer container = container(context, "reader");
        container.start();
        KafkoTestUtils.waitForListeners(context, WAIT);
        assertThat(kafko.groupInfo("orders", "reader").committed()).isEqualTo(Map.of(0, 50L));
        return container;
    }

    static class Reader implements ConsumerSeekAware {
        static volatile ConsumerSeekCallback callback;

        @Override
        public void registerSeekCallback(ConsumerSeekCallback callback) {
            Reader.callback = callback;
        }

        @KafkoListener(id = "reader", topics = "orders", autoStartup = "false")
        void read(String value) {
            RECEIVED.add(value);
        }
    }
}
