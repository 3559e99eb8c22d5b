package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * An acknowledgment given late, from a worker thread, for a record of a topic deleted and created again
 * meanwhile must not be committed on the new topic (whose partition has the same number): a commit ahead of
 * what was processed would skip the new records in between, and no later commit could move it back.
 */
class StaleAcknowledgmentTest {

    static final Map<String, Acknowledgment> ACKS = new ConcurrentHashMap<>();
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms");

    @BeforeEach
    void reset() {
        ACKS.clear();
        RECEIVED.clear();
    }

    @ParameterizedTest
    @ValueSource(strings = {"manual", "manual_immediate"})
    void aLateAcknowledgmentOfADeletedTopicsRecordIsNotCommittedOnTheTopicCreatedAgain(String mode) {
        runner.withBean(Reader.class).withPropertyValues("kafko.listener.ack-mode=" + mode).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (int i = 0; i < 10; i++) {
                template(context).send("reborn", "old-" + i).join();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> ACKS.size() == 10); // handed to a slow worker
            kafko.deleteTopic("reborn");
            await().atMost(Duration.ofSeconds(10)).until(() -> kafko.topic("reborn").isPresent()); // re-created on use
            template(context).send("reborn", "new-0").join();
            await().atMost(Duration.ofSeconds(10)).until(() -> ACKS.containsKey("new-0"));
            // the worker finishes the old records now: a foreign ack of old-9 (next offset 10)
            ACKS.get("old-9").acknowledge();
            Thread.sleep(300);
            // the new records are processed and acknowledged
            ACKS.get("new-0").acknowledge();
            for (int i = 1; i < 3; i++) {
                template(context).send("reborn", "new-" + i).join();
                String key = "new-" + i;
                await().atMost(Duration.ofSeconds(10)).until(() -> ACKS.containsKey(key));
                ACKS.get(key).acknowledge();
            }
            // acknowledgments from another thread are committed by the member's next polls: wait until the commit
            // reaches the three acknowledged (a commit of the stale old-9, 10, would be there at once)
            await().atMost(Duration.ofSeconds(10)).until(() -> kafko.groupInfo("reborn", "reader").committed()
                    .getOrDefault(0, -1L) >= 3);
            long committed = kafko.groupInfo("reborn", "reader").committed().getOrDefault(0, -1L);
            long end = kafko.topic("reborn").get().partition(0).endOffset();
            // now the member restarts (a rebalance or a stop/start): the next records are skipped
            MessageListenerContainer c = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("reader");
            c.stop();
            for (int i = 3; i < 10; i++) {
                template(context).send("reborn", "new-" + i).join();
            }
            RECEIVED.clear();
            c.start();
            assertThat(committed).as("the group's commit on the new topic (end offset %s)", end).isEqualTo(3);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(RECEIVED)
                    .containsExactly("new-3", "new-4", "new-5", "new-6", "new-7", "new-8", "new-9"));
        });
    }

    static class Reader {
        @KafkoListener(id = "reader", topics = "reborn")
        void on(KafkoRecord record, String value, Acknowledgment ack) {
            RECEIVED.add(value);
            ACKS.put(value, ack); // a worker thread acknowledges it later
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
