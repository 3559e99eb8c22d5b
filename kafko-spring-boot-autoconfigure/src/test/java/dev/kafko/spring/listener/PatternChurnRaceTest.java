package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.PatternTopicChurnTest.bytes;
import static dev.kafko.spring.listener.PatternTopicChurnTest.container;
import static dev.kafko.spring.listener.PatternTopicChurnTest.memberThreads;
import static dev.kafko.spring.listener.PatternTopicChurnTest.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.handler.annotation.Header;

/** A pattern listener over tenant topics created and deleted from several threads while records flow. */
class PatternChurnRaceTest {

    static final Set<String> RECEIVED = ConcurrentHashMap.newKeySet();
    static final List<String> STOPPED = new CopyOnWriteArrayList<>();
    static final List<String> MEMBER_STOPPED = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch inSlowCall = new CountDownLatch(1);
    static volatile CountDownLatch releaseSlowCall = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.concurrency=2");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        STOPPED.clear();
        MEMBER_STOPPED.clear();
        inSlowCall = new CountDownLatch(1);
        releaseSlowCall = new CountDownLatch(0);
    }

    @Test
    void aListenerCallThatOutlivesTheDeletionLeavesNoMeterOfTheDeletedTopic() {
        releaseSlowCall = new CountDownLatch(1);
        runner.withConfiguration(AutoConfigurations.of(KafkoMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            kafko.createTopic("tenant-slow");
            kafko.producer("tenant-slow").send(null, bytes("slow")).join();
            assertThat(inSlowCall.await(10, TimeUnit.SECONDS)).isTrue();
            kafko.deleteTopic("tenant-slow");
            releaseSlowCall.countDown(); // the listener returns after the deletion
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            assertThat(container(context).getTopics()).isEmpty();
            assertThat(registry.getMeters()).as("meters of the deleted topic")
                    .filteredOn(m -> "tenant-slow".equals(m.getId().getTag("topic")))
                    .extracting(Meter::getId).isEmpty();
        });
    }

    @Test
    void aTopicDeletedWhileTheContainerWasStoppedIsNotReadAfterItsStart() {
        runner.withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            kafko.createTopic("tenant-a");
            kafko.producer("tenant-a").send(null, bytes("a")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            container.stop();
            kafko.deleteTopic("tenant-a");
            container.start();
            assertThat(container.isRunning()).as("a started pattern container runs").isTrue();
            assertThat(container.getTopics()).as("README: the deleted topic leaves getTopics()").isEmpty();
            assertThat(container.getMembers()).isEmpty();
            container.stop();
        });
    }

    @RepeatedTest(10)
    void aStopRacingTheDeletionsReturnsEndsEveryThreadAndTellsOnce() throws Exception {
        runner.withBean(TenantReader.class).withBean(StopEvents.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            for (int i = 0; i < 4; i++) {
                kafko.createTopic("tenant-" + i, TopicConfig.builder().partitions(2).build());
                kafko.producer("tenant-" + i).send(null, bytes("v" + i)).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            Thread deleter = new Thread(() -> {
                for (int i = 0; i < 4; i++) {
                    kafko.deleteTopic("tenant-" + i);
                }
            });
            deleter.start();
            Thread.sleep(Jitter.next(0, 60));
            container.stop();
            deleter.join(10_000);
            assertThat(container.isRunning()).isFalse();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            await().atMost(Duration.ofSeconds(20)).until(() -> !STOPPED.isEmpty());
            Thread.sleep(150);
            assertThat(STOPPED).containsExactly("tenants NORMAL");
            assertThat(MEMBER_STOPPED).hasSize(8);

            STOPPED.clear();
            container.start();
            kafko.createTopic("tenant-1");
            kafko.producer("tenant-1").send(null, bytes("again")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).contains("tenant-1:again");
            assertThat(container.getTopics()).containsExactly("tenant-1");
            container.stop();
            await().atMost(Duration.ofSeconds(20)).until(() -> !STOPPED.isEmpty());
            Thread.sleep(150);
            assertThat(STOPPED).containsExactly("tenants NORMAL");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
        });
    }

    @RepeatedTest(5)
    void tenantsChurnedFromSeveralThreadsLoseNoRecordSentAfterTheirCreation() {
        runner.withBean(TenantReader.class).withBean(StopEvents.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            List<Thread> churners = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int tenant = t;
                churners.add(new Thread(() -> {
                    try {
                        String topic = "tenant-c" + tenant;
                        for (int round = 0; round < 8; round++) {
                            kafko.createTopic(topic);
                            kafko.producer(topic).send(null, bytes("r" + round)).join();
                            if (round % 2 == 0) {
                                // deleted and created again before its members noticed
                                kafko.deleteTopic(topic);
                                kafko.createTopic(topic);
                                kafko.producer(topic).send(null, bytes("again" + round)).join();
                                String expected = topic + ":again" + round;
                                await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains(expected));
                            } else {
                                String expected = topic + ":r" + round;
                                await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains(expected));
                            }
                            kafko.deleteTopic(topic);
                        }
                    } catch (Throwable e) {
                        failed.compareAndSet(null, e);
                    }
                }));
            }
            churners.forEach(Thread::start);
            for (Thread churner : churners) {
                churner.join(120_000); // each round's own wait bounds it: a lost record ends its churner at once
                assertThat(churner.isAlive()).as("a churner still churning").isFalse();
            }
            assertThat(failed.get()).as("a record sent after its topic's creation was not read").isNull();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            assertThat(container.getTopics()).isEmpty();
            assertThat(container.getMembers()).isEmpty();
            assertThat(container.hasDeadMember()).isFalse();
            assertThat(container.isRunning()).isTrue();
            assertThat(STOPPED).isEmpty();
        });
    }

    @RepeatedTest(3)
    void aRetiredMemberFinishingItsSlowCallCommitsNothingOnTheTopicCreatedAgain() {
        releaseSlowCall = new CountDownLatch(1);
        runner.withBean(TenantReader.class).withPropertyValues("kafko.listener.ack-mode=record").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            kafko.createTopic("tenant-r", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 5; i++) {
                template(context).send("tenant-r", 0, null, "old" + i).join();
            }
            template(context).send("tenant-r", 0, null, "slow").join();
            assertThat(inSlowCall.await(10, TimeUnit.SECONDS)).isTrue(); // at offset 5 of partition 0
            kafko.deleteTopic("tenant-r");
            // the idle sibling finds the topic gone and retires both
            await().atMost(Duration.ofSeconds(10)).until(() -> container.getTopics().isEmpty());
            kafko.createTopic("tenant-r", TopicConfig.builder().partitions(2).build());
            template(context).send("tenant-r", 0, null, "new0").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).contains("tenant-r:new0");
            releaseSlowCall.countDown(); // the retired member's record returns: its commit is of the deleted topic
            Thread.sleep(300);
            assertThat(kafko.groupInfo("tenant-r", "tenants").committed()).containsEntry(0, 1L);
            for (int i = 1; i < 4; i++) {
                template(context).send("tenant-r", 0, null, "new" + i).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).contains("tenant-r:new1", "tenant-r:new2", "tenant-r:new3");
            assertThat(container.getTopics()).containsExactly("tenant-r");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).hasSize(2));
        });
    }

    @RepeatedTest(5)
    void aTightDeleteAndCreateLoopKeepsMembersThreadsAndTopicsConsistent() {
        runner.withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            List<String> broken = new CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean churning = new java.util.concurrent.atomic.AtomicBoolean(true);
            Thread sampler = new Thread(() -> {
                while (churning.get()) {
                    List<String> topics = container.getTopics();
                    for (MessageListenerContainer m : container.getMembers()) {
                        String topic = ((KafkoMessageListenerContainer) m).topic();
                        List<String> after = container.getTopics();
                        // a member still there after that read was there during it (members are never re-added)
                        if (!after.contains(topic) && container.getMembers().contains(m)) {
                            broken.add("member " + ((KafkoMessageListenerContainer) m).memberName() + " of " + topic
                                    + " not in getTopics() " + after);
                        }
                    }
                    List<String> threads = memberThreads();
                    if (threads.size() != Set.copyOf(threads).size()) {
                        broken.add("two threads of one name: " + threads);
                    }
                    if (topics.size() != Set.copyOf(topics).size()) {
                        broken.add("a topic twice: " + topics);
                    }
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            sampler.start();
            for (int round = 0; round < 40; round++) {
                kafko.createTopic("tenant-z");
                kafko.producer("tenant-z").send(null, bytes("z" + round)).join();
                if (round % 3 == 0) {
                    Thread.sleep(Jitter.next(0, 40));
                }
                kafko.deleteTopic("tenant-z");
            }
            kafko.createTopic("tenant-z");
            kafko.producer("tenant-z").send(null, bytes("final")).join();
            await().atMost(Duration.ofSeconds(10)).until(() -> RECEIVED.contains("tenant-z:final"));
            churning.set(false);
            sampler.join(5_000);
            assertThat(broken).isEmpty();
            assertThat(container.getTopics()).containsExactly("tenant-z");
            assertThat(container.getMembers()).hasSize(2).allMatch(MessageListenerContainer::isRunning);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).hasSize(2));
            assertThat(container.hasDeadMember()).isFalse();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
        });
    }

    @Test
    void aTopicDeletedAsItsMembersStartIsNotLeftInGetTopics() {
        runner.withBean(TenantReader.class).withBean(DeletingInstrumentation.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            DeletingInstrumentation.kafko = kafko;
            kafko.createTopic("tenant-race"); // deleted again after it was matched, before its members start
            assertThat(kafko.topic("tenant-race")).isEmpty();
            assertThat(container.getTopics()).as("README: a deleted topic leaves getTopics()").isEmpty();
            assertThat(container.getMembers()).isEmpty();
            assertThat(container.isRunning()).as("a started pattern container runs").isTrue();
            kafko.createTopic("tenant-race");
            kafko.producer("tenant-race").send(null, bytes("r")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).containsExactly("tenant-race:r");
            assertThat(container.getTopics()).containsExactly("tenant-race");
        });
    }

    static class DeletingInstrumentation implements dev.kafko.spring.support.KafkoInstrumentation {
        static volatile Kafko kafko;
        private final java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public void listenerStarting(String listenerId, String groupId, String topic) {
            if (topic.equals("tenant-race") && kafko != null && once.compareAndSet(false, true)) {
                kafko.deleteTopic(topic);
            }
        }
    }

    @Test
    void aDeletedTopicIsNotKeptReachableByTheContainerThatReadIt() throws Exception {
        runner.withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("tenant-gc");
            kafko.producer("tenant-gc").send(null, bytes("g")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            java.lang.ref.WeakReference<Object> handle = new java.lang.ref.WeakReference<>(kafko.topic("tenant-gc")
                    .orElseThrow());
            kafko.deleteTopic("tenant-gc");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            for (int i = 0; i < 20 && handle.get() != null; i++) {
                System.gc();
                Thread.sleep(50);
            }
            assertThat(handle.get()).as("the deleted topic (its partitions, groups, consumers) is still reachable")
                    .isNull();
        });
    }

    static final class Jitter {
        private static final java.util.Random RANDOM = new java.util.Random(42);

        static synchronized int next(int from, int to) {
            return from + RANDOM.nextInt(to - from);
        }
    }

    static class TenantReader {
        @KafkoListener(id = "tenants", topicPattern = "tenant-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) throws InterruptedException {
            if (value.equals("slow")) {
                inSlowCall.countDown();
                releaseSlowCall.await(10, TimeUnit.SECONDS);
            }
            RECEIVED.add(topic + ":" + value);
        }
    }

    static class StopEvents {
        @EventListener
        void stopped(ConcurrentContainerStoppedEvent event) {
            STOPPED.add(event.getListenerId() + " " + event.getReason());
        }

        @EventListener
        void memberStopped(ConsumerStoppedEvent event) {
            MEMBER_STOPPED.add(event.toString());
        }
    }
}
