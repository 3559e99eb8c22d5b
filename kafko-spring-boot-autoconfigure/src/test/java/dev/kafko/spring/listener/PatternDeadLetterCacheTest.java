package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A pattern's topic and its dead-letter topic deleted and made again: the recoverer must not trust what it
 * remembered of the old dead-letter topic's partitions (it skipped the ensure, the producer then made the new one
 * with one partition, and a dead letter of partition 2 failed for ever).
 */
class PatternDeadLetterCacheTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=1");

    @Test
    void aDeadLetterTopicDeletedAndMadeAgainGetsThePartitionsItNeeds() {
        runner.withBean(Reader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = (ConcurrentMessageListenerContainer) context
                    .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("cachejobs");
            for (int round = 0; round < 2; round++) {
                kafko.createTopic("cjob-a", TopicConfig.builder().partitions(3).build());
                kafko.producer("cjob-a").sendTo(2, null, "poison".getBytes(StandardCharsets.UTF_8)).join();
                int r = round;
                await("round " + r + ": the dead letter of partition 2").atMost(Duration.ofSeconds(20))
                        .until(() -> kafko.topic("cjob-a.DLT").map(t -> t.partitionCount() == 3
                                && t.partitions().get(2).endOffset() == 1).orElse(false));
                kafko.deleteTopic("cjob-a");
                kafko.deleteTopic("cjob-a.DLT");
                await().atMost(Duration.ofSeconds(20)).until(() -> container.getTopics().isEmpty());
                assertThat(kafko.topic("cjob-a.DLT")).isEmpty();
            }
        });
    }

    /** The same with a fixed topic whose dead-letter topic alone is deleted (no match anew to forget it at). */
    @Test
    void aDeadLetterTopicDeletedUnderAFixedTopicIsMadeAgainWithItsPartitions() {
        runner.withBean(FixedReader.class).withPropertyValues("kafko.topics.fixed-t.partitions=3").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (int round = 0; round < 2; round++) {
                kafko.producer("fixed-t").sendTo(2, null, "poison".getBytes(StandardCharsets.UTF_8)).join();
                int r = round;
                await("round " + r + ": the dead letter of partition 2").atMost(Duration.ofSeconds(20))
                        .until(() -> kafko.topic("fixed-t.DLT").map(t -> t.partitionCount() == 3
                                && t.partitions().get(2).endOffset() == 1).orElse(false));
                kafko.deleteTopic("fixed-t.DLT");
            }
        });
    }

    static class FixedReader {
        @KafkoListener(id = "fixed", topics = "fixed-t")
        void read(String value) {
            throw new IllegalStateException("poison");
        }
    }

    static class Reader {
        @KafkoListener(id = "cachejobs", topicPattern = "cjob-.*")
        void read(String value) {
            throw new IllegalStateException("poison");
        }
    }
}
