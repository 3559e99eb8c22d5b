package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * A seek the listener asks for while its member sleeps out a nack is made at once, as spring-kafka's poll loop makes
 * it while the consumer is paused for the nack: the position sought is committed then, the sleep goes on, and after
 * it the partition is read from where it was sought, not from the nacked record.
 */
class SeekDuringANackSleepTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    /** The nack's sleep, set by each test. */
    static volatile Duration sleep;

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class Nacker extends AbstractConsumerSeekAware {
        @KafkoListener(id = "nacked", topics = "nacked", autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            SEEN.add(value);
            if (value.equals("bad")) {
                ack.nack(sleep);
            } else {
                ack.acknowledge();
            }
        }

        void seek(long offset) {
            getSeekCallbacksFor("nacked", 0).forEach(callback -> callback.seek("nacked", 0, offset));
        }
    }

    @Test
    void theSeekIsMadeAndCommittedWhileTheSleepGoesOn() {
        sleep = Duration.ofMinutes(10); // far longer than the test: a seek that waited for it would not be made
        run(context -> {
            send(context, "a", "bad", "b", "c");
            await().atMost(WAIT).until(() -> SEEN.contains("bad"));
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groupInfo("nacked", "nacked").committed()).containsEntry(0, 1L);

            context.getBean(Nacker.class).seek(3);

            await().atMost(WAIT).until(() -> kafko.groupInfo("nacked", "nacked").committed().get(0) == 3L);
            assertThat(SEEN).containsExactly("a", "bad"); // still asleep: nothing delivered
        });
    }

    @Test
    void afterTheSleepThePartitionIsReadFromWhereItWasSought() {
        sleep = Duration.ofSeconds(1);
        run(context -> {
            send(context, "a", "bad", "b", "c");
            await().atMost(WAIT).until(() -> SEEN.contains("bad"));

            context.getBean(Nacker.class).seek(3);

            await().atMost(WAIT).until(() -> SEEN.contains("c"));
            assertThat(SEEN).containsExactly("a", "bad", "c");
        });
    }

    static class BatchNacker extends AbstractConsumerSeekAware {
        @KafkoListener(id = "nacked", topics = "nacked", autoStartup = "false", batch = "true")
        void on(List<String> values, Acknowledgment ack) {
            SEEN.add(String.join(",", values));
            int bad = values.indexOf("bad");
            if (bad >= 0) {
                ack.nack(bad, sleep);
            } else {
                ack.acknowledge();
            }
        }
    }

    @Test
    void aBatchNacksSleepMakesTheSeekToo() {
        sleep = Duration.ofMinutes(10);
        run(BatchNacker.class, context -> {
            send(context, "a", "bad", "b", "c");
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("nacked").start();
            await().atMost(WAIT).until(() -> SEEN.contains("a,bad,b,c"));
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(WAIT).until(() -> kafko.groupInfo("nacked", "nacked").committed().get(0) == 1L);

            context.getBean(BatchNacker.class).getSeekCallbacksFor("nacked", 0)
                    .forEach(callback -> callback.seek("nacked", 0, 3));

            await().atMost(WAIT).until(() -> kafko.groupInfo("nacked", "nacked").committed().get(0) == 3L);
            assertThat(SEEN).containsExactly("a,bad,b,c");
        });
    }

    private static void run(SeekEndsARetryBackOffTest.ThrowingConsumer<ApplicationContext> test) {
        run(Nacker.class, context -> {
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("nacked").start();
            test.accept(context);
        });
    }

    private static void run(Class<?> listener, SeekEndsARetryBackOffTest.ThrowingConsumer<ApplicationContext> test) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                        "kafko.listener.ack-mode=manual_immediate")
                .withBean(listener).run(test::accept);
    }

    @SuppressWarnings("unchecked")
    private static void send(ApplicationContext context, String... values) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (String value : values) {
            template.send("nacked", 0, null, value).join();
        }
    }
}
