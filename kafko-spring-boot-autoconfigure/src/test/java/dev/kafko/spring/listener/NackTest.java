package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** {@link Acknowledgment#nack}: a record refused for now comes again after the pause, with what followed it. */
class NackTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final List<Long> SEEN_AT = new CopyOnWriteArrayList<>();
    static final Set<String> NACKED_ONCE = ConcurrentHashMap.newKeySet();
    static final List<Throwable> MISUSE = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    @BeforeEach
    void reset() {
        SEEN.clear();
        SEEN_AT.clear();
        NACKED_ONCE.clear();
        MISUSE.clear();
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void aNackedRecordAndTheRestOfItsPollComeAgainAfterThePause(AckMode mode) {
        runner.withBean(RecordNacker.class).withPropertyValues("kafko.listener.ack-mode=" + mode,
                        "kafko.topics.nacks.partitions=2")
                .run(context -> {
                    // one poll: a, b, c on partition 0, then x on partition 1
                    for (String v : List.of("a", "b", "c")) {
                        template(context).send("nacks", 0, null, v);
                    }
                    template(context).send("nacks", 1, null, "x").join();
                    Kafko kafko = context.getBean(Kafko.class);
                    await().atMost(Duration.ofSeconds(10)).until(() -> committed(kafko, "nacks", 0) == 3
                            && committed(kafko, "nacks", 1) == 1);
                    assertThat(SEEN).containsSubsequence("a", "b", "b", "c").containsOnlyOnce("a", "c");
                    assertThat(SEEN.stream().filter("x"::equals)).hasSizeBetween(1, 2);
                    int first = SEEN.indexOf("b");
                    int again = SEEN.lastIndexOf("b");
                    assertThat(SEEN_AT.get(again) - SEEN_AT.get(first)).as("ms between the nack and the redelivery")
                            .isGreaterThanOrEqualTo(250);
                    assertThat(MISUSE).singleElement().isInstanceOf(IllegalStateException.class);
                });
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void aBatchNackAcknowledgesTheRecordsBeforeItsIndexAndRedeliversTheRest(AckMode mode) {
        runner.withBean(BatchNacker.class).withPropertyValues("kafko.listener.ack-mode=" + mode).run(context -> {
            for (String v : List.of("a", "b", "c")) {
                template(context).send("batch-nacks", v);
            }
            template(context).send("batch-nacks", "d").join();
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("batch-nacks").start();
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> committed(kafko, "batch-nacks", 0) == 4);
            assertThat(SEEN).as("each batch").startsWith("[a, b, c, d]").endsWith("[c, d]");
        });
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void aListenerThatThrowsAfterANackFailsAsWithoutItAndTheNextDeliveriesCount(AckMode mode) {
        runner.withBean(ThrowingNacker.class).withPropertyValues("kafko.listener.ack-mode=" + mode,
                        "kafko.listener.retry.max-attempts=1")
                .run(context -> {
                    template(context).send("throw-nacks", "boom").join();
                    template(context).send("throw-nacks", "fine").join();
                    Kafko kafko = context.getBean(Kafko.class);
                    // "boom" is recovered (logged) after its one attempt, "fine" is acknowledged: both committed
                    await().atMost(Duration.ofSeconds(10)).until(() -> committed(kafko, "throw-nacks", 0) == 2);
                    assertThat(SEEN).containsExactly("boom", "fine");
                });
    }

    static long committed(Kafko kafko, String topic, int partition) {
        return kafko.groupInfo(topic, topic).committed().getOrDefault(partition, -1L);
    }

    static class RecordNacker {
        @KafkoListener(id = "nacks", topics = "nacks")
        void on(KafkoRecord record, String value, Acknowledgment ack) {
            SEEN.add(value);
            SEEN_AT.add(System.nanoTime() / 1_000_000);
            if (value.equals("b") && NACKED_ONCE.add(value)) {
                try {
                    ack.nack(3, Duration.ZERO); // the batch form, on a record listener
                } catch (IllegalStateException e) {
                    MISUSE.add(e);
                }
                ack.nack(Duration.ofMillis(300));
                return;
            }
            ack.acknowledge();
        }
    }

    static class ThrowingNacker {
        @KafkoListener(id = "throw-nacks", topics = "throw-nacks")
        void on(String value, Acknowledgment ack) {
            SEEN.add(value);
            if (value.equals("boom")) {
                ack.nack(Duration.ofMillis(100));
                throw new IllegalStateException("failed after the nack");
            }
            ack.acknowledge();
        }
    }

    static class BatchNacker {
        @KafkoListener(id = "batch-nacks", topics = "batch-nacks", batch = "true", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            SEEN.add(values.toString());
            if (values.size() == 4 && NACKED_ONCE.add("batch")) {
                assertThatThrownBy(() -> ack.nack(4, Duration.ZERO)).isInstanceOf(IndexOutOfBoundsException.class);
                ack.nack(2, Duration.ofMillis(100));
                return;
            }
            ack.acknowledge();
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
