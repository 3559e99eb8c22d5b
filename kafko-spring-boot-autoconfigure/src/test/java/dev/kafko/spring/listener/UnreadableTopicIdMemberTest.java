package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A member whose topic's id cannot be read once its consumer opened (the topic deleted in between): the start fails
 * with that error, and the consumer it opened leaves its group, so that the next start's member gets every partition.
 */
class UnreadableTopicIdMemberTest {

    @TempDir
    Path dir;

    @Test
    void theConsumerOpenedBeforeTheFailureLeavesItsGroup() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            kafko.createTopic("ids", dev.kafko.TopicConfig.builder().partitions(2).build());
            KafkoBackend real = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                    new KafkoTopicCreations());
            AtomicInteger reads = new AtomicInteger();
            DelegatingBackend backend = new DelegatingBackend(real) {
                @Override
                public @Nullable Object topicId(String topic) {
                    if (reads.incrementAndGet() == 1) {
                        throw new UnknownTopicException("ids");
                    }
                    return super.topicId(topic);
                }
            };
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("ids",
                    List.of("ids"), "ids", backend,
                    new ContainerProperties(AckMode.BATCH, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10)),
                    true, (records, ack) -> { }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                    new SimpleAsyncTaskExecutor());

            assertThatThrownBy(container::start).isInstanceOf(UnknownTopicException.class);
            assertThat(container.isRunning()).isFalse();

            container.start();
            try {
                // the failed start's consumer, had it stayed in the group, would keep one of the two partitions
                KafkoTestUtils.waitForAssignment(container, 2, Duration.ofSeconds(20));
            } finally {
                container.stop();
            }
        }
    }
}
