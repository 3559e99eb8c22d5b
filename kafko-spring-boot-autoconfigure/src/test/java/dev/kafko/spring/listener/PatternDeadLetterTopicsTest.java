package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A pattern listener over short-lived topics, with dead letters enabled: a topic it read and that is gone leaves
 * nothing behind, no dead-letter topic of its own that no record ever went to. Found by a soak of a service
 * whose pattern read a topic per job: each job left an empty {@code job-N.DLT} (two descriptors, eight meters,
 * a directory), so descriptors grew without bound (1,546 after 188 jobs).
 */
class PatternDeadLetterTopicsTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=1");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    @Test
    void topicsReadAndDeletedLeaveNoEmptyDeadLetterTopicBehind() {
        runner.withBean(JobReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (int i = 0; i < 20; i++) {
                kafko.createTopic("job-" + i);
                kafko.producer("job-" + i).send(null, bytes("v" + i)).join();
                KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                kafko.deleteTopic("job-" + i);
            }
            assertThat(RECEIVED).hasSize(20);
            assertThat(kafko.topics()).as("what 20 jobs, each read once and deleted, left behind").isEmpty();
        });
    }

    @Test
    void aRecordThatFailsStillGoesToTheDeadLetterTopicOfAPatternsTopic() {
        runner.withBean(JobReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (int round = 0; round < 2; round++) { // the second round: both topics deleted and made again
                kafko.createTopic("job-x");
                kafko.producer("job-x").send(null, bytes("poison")).join();
                await().atMost(Duration.ofSeconds(20)).until(() -> kafko.topic("job-x.DLT")
                        .map(t -> t.partitions().get(0).endOffset() == 1).orElse(false));
                ConcurrentMessageListenerContainer container = (ConcurrentMessageListenerContainer) context
                        .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("jobs");
                assertThat(container.getTopics()).containsExactly("job-x");
                kafko.deleteTopic("job-x");
                kafko.deleteTopic("job-x.DLT");
                await().atMost(Duration.ofSeconds(20)).until(() -> container.getTopics().isEmpty());
            }
        });
    }

    /** As before: a topic whose dead letters could go nowhere (undeclared, not created on first use) is not read. */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void withoutAutoCreationAMatchedTopicWhoseDeadLetterTopicIsMissingIsNotRead(CapturedOutput output) {
        runner.withBean(JobReader.class).withPropertyValues("kafko.auto-create-topics=false").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("job-y");
            kafko.producer("job-y").send(null, bytes("v")).join();
            await().atMost(Duration.ofSeconds(20)).until(() -> output.getAll().contains("Dead letters of topic 'job-y'"
                    + " go to 'job-y.DLT', which does not exist and is not created on first use"));
            assertThat(kafko.topic("job-y.DLT")).isEmpty();
            assertThat(RECEIVED).isEmpty();
        });
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    static class JobReader {
        @KafkoListener(id = "jobs", topicPattern = "job-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
            if (value.equals("poison")) {
                throw new IllegalStateException("poison");
            }
        }
    }
}
