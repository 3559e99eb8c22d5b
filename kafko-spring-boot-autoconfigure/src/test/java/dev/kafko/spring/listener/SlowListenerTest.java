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
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * Listeners that take their time: acknowledgments given late from other threads, a listener that stops its
 * own container while another member is busy, a record that overflows the stack.
 */
class SlowListenerTest {

    static final BlockingQueue<KafkoRecord> HELD = new LinkedBlockingQueue<>();
    static final Map<Long, Acknowledgment> ACKS = new ConcurrentHashMap<>();
    static final BlockingQueue<Integer> MOVED = new LinkedBlockingQueue<>();
    static final AtomicLong STOP_MILLIS = new AtomicLong(-1);
    static final AtomicInteger ATTEMPTS = new AtomicInteger();
    static volatile CountDownLatch release = new CountDownLatch(1);
    static volatile CountDownLatch busyStarted = new CountDownLatch(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    @BeforeEach
    void reset() {
        HELD.clear();
        ACKS.clear();
        MOVED.clear();
        STOP_MILLIS.set(-1);
        ATTEMPTS.set(0);
        release = new CountDownLatch(1);
        busyStarted = new CountDownLatch(1);
    }

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void aLateAcknowledgmentOfAnEarlierRecordNeverMovesTheCommitBack(AckMode mode) {
        runner.withBean(Holding.class).withPropertyValues("kafko.listener.ack-mode=" + mode).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            template(context).send("held", "a").join();
            template(context).send("held", "b").join();
            await().atMost(Duration.ofSeconds(10)).until(() -> ACKS.size() == 2);
            ACKS.get(1L).acknowledge();
            await().atMost(Duration.ofSeconds(10)).until(() -> committed(kafko, "held", "holding", 0) == 2);
            ACKS.get(0L).acknowledge(); // "a" finished later: everything up to "b" is committed already
            await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3))
                    .until(() -> committed(kafko, "held", "holding", 0) == 2);
        });
    }

    @Test
    void anAcknowledgmentAfterThePartitionMovedIsDroppedAndTheOtherPartitionsAreCommitted() {
        runner.withBean(Holding.class).withBean(LateJoiner.class)
                .withPropertyValues("kafko.listener.ack-mode=manual", "kafko.topics.moving.partitions=2")
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    template(context).send("moving", 0, null, "p0").join();
                    template(context).send("moving", 1, null, "p1").join();
                    await().atMost(Duration.ofSeconds(10)).until(() -> HELD.size() == 2);
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("late-joiner").start();
                    int moved = MOVED.poll(10, TimeUnit.SECONDS); // the partition the joiner took over
                    int kept = 1 - moved;
                    for (KafkoRecord held : HELD) {
                        ACKS.get(held.partition() * 1000L + held.offset()).acknowledge();
                    }
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> committed(kafko, "moving", "moving-group", kept) == 1);
                });
    }

    @Test
    void aListenerThatStopsItsOwnContainerIsNotKeptWaitingByABusyMember() {
        runner.withBean(Breaker.class)
                .withPropertyValues("kafko.topics.breaker.partitions=2", "kafko.listener.shutdown-timeout=20s")
                .run(context -> {
                    template(context).send("breaker", 0, null, "busy").join();
                    assertThat(busyStarted.await(10, TimeUnit.SECONDS)).isTrue();
                    template(context).send("breaker", 1, null, "trip").join();
                    await().atMost(Duration.ofSeconds(30)).until(() -> STOP_MILLIS.get() >= 0);
                    // without waiting for the busy member (up to its 20 s shutdown timeout)
                    assertThat(STOP_MILLIS.get()).isLessThan(10_000);
                    release.countDown();
                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("breaker");
                    await().atMost(Duration.ofSeconds(10)).until(() -> !container.isRunning());
                });
    }

    @Test
    void aRecordThatOverflowsTheStackFailsLikeAnyOtherAndTheMemberLives() {
        runner.withBean(Recursing.class).withPropertyValues("kafko.listener.retry.max-attempts=3").run(context -> {
            template(context).send("deep", "x").join();
            await().atMost(Duration.ofSeconds(10)).until(() -> ATTEMPTS.get() == 2);
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("deep");
            assertThat(container.isRunning()).isTrue();
            assertThat(container.getFailure()).isNull();
        });
    }

    static long committed(Kafko kafko, String topic, String group, int partition) {
        return kafko.groupInfo(topic, group).committed().getOrDefault(partition, -1L);
    }

    static class Holding {
        @KafkoListener(id = "holding", topics = "held")
        void onHeld(KafkoRecord record, Acknowledgment ack) {
            ACKS.put(record.offset(), ack);
        }

        @KafkoListener(id = "moving", groupId = "moving-group", topics = "moving")
        void onMoving(KafkoRecord record, Acknowledgment ack) {
            ACKS.put(record.partition() * 1000L + record.offset(), ack);
            HELD.add(record);
        }
    }

    static class LateJoiner {
        @KafkoListener(id = "late-joiner", groupId = "moving-group", topics = "moving", autoStartup = "false")
        void onMoving(KafkoRecord record, Acknowledgment ack) {
            MOVED.add(record.partition());
        }
    }

    static class Breaker {
        private final KafkoListenerEndpointRegistry registry;

        Breaker(KafkoListenerEndpointRegistry registry) {
            this.registry = registry;
        }

        @KafkoListener(id = "breaker", topics = "breaker", concurrency = "2", ackMode = "RECORD")
        void onRecord(String value) throws InterruptedException {
            if (value.equals("busy")) {
                busyStarted.countDown();
                release.await(30, TimeUnit.SECONDS);
                return;
            }
            long start = System.nanoTime();
            registry.getListenerContainer("breaker").stop();
            STOP_MILLIS.set((System.nanoTime() - start) / 1_000_000);
        }
    }

    static class Recursing {
        @KafkoListener(id = "deep", topics = "deep")
        void onRecord(String value) {
            if (ATTEMPTS.incrementAndGet() == 1) {
                recurse(0);
            }
        }

        private static int recurse(int depth) {
            return recurse(depth + 1) + 1;
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
