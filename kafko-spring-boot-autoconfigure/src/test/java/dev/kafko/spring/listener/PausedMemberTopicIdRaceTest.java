package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * A paused member of a pattern's topic looks at its topic at each pause wait (B97): one whose topic was deleted
 * between the making of its consumer and the reading of the topic's id (null: no topic) must end as well, not take
 * "no topic now" for "the topic it reads" and keep its thread and the deleted topic in {@code getTopics()}.
 */
class PausedMemberTopicIdRaceTest {

    @TempDir
    Path dir;

    @Test
    void aPausedMemberWhoseTopicWentBeforeItsIdWasReadEnds() {
        KafkoTopicCreations creations = new KafkoTopicCreations();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(creations).build())) {
            kafko.createTopic("race-1");
            AtomicBoolean deleteOnce = new AtomicBoolean(true);
            DelegatingBackend backend = new DelegatingBackend(new KafkoBackend(kafko,
                    new KafkoTopicProvisioner(kafko, Map.of(), true), creations)) {
                @Override
                public @Nullable Object topicId(String topic) {
                    if (inMemberConstructor() && deleteOnce.getAndSet(false)) {
                        kafko.deleteTopic(topic); // as another thread would, right after the member's consumer was made
                    }
                    return real.topicId(topic);
                }
            };
            ContainerProperties properties = new ContainerProperties(AckMode.BATCH, 1, Duration.ofMillis(50), 500,
                    Duration.ofSeconds(10));
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("race",
                    Pattern.compile("race-.*"), "race", backend, properties, true, (records, ack) -> { },
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            container.pause();
            container.start();
            try {
                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> { // a member thread starts first
                    assertThat(container.getTopics()).isEmpty();
                    assertThat(container.getMembers()).isEmpty();
                });
            } finally {
                container.stop();
            }
        }
    }

    /** Whether the caller is a member's {@link ListenerConsumer} being made (it reads the topic id last). */
    private static boolean inMemberConstructor() {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getClassName()
                .equals(ListenerConsumer.class.getName()) && f.getMethodName().equals("<init>")));
    }
}
