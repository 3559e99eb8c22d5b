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
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.handler.annotation.Header;

/** Pause, acks, seeks, the test helper and the context's close, while a pattern's topics come and go. */
@ExtendWith(OutputCaptureExtension.class)
class PatternChurnLifecycleTest {

    static final Set<String> RECEIVED = ConcurrentHashMap.newKeySet();
    static final List<String> STOPPED = new CopyOnWriteArrayList<>();
    static final List<String> MEMBER_STOPPED = new CopyOnWriteArrayList<>();
    static final Map<String, Acknowledgment> ACKS = new ConcurrentHashMap<>();
    static final List<String> SEEK_EVENTS = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch slowEntered = new CountDownLatch(1);
    static volatile CountDownLatch slowRelease = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.concurrency=2");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        STOPPED.clear();
        MEMBER_STOPPED.clear();
        ACKS.clear();
        SEEK_EVENTS.clear();
        slowEntered = new CountDownLatch(1);
        slowRelease = new CountDownLatch(0);
    }

    @Test
    void aPausedContainerKeepsNoThreadForTopicsDeletedWhileItIsPaused() {
        runner.withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            container.pause();
            for (int i = 0; i < 10; i++) {
                kafko.createTopic("tenant-job-" + i);
                kafko.deleteTopic("tenant-job-" + i);
            }
            // twenty member threads started, each to find its topic gone: a loaded machine takes its time
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            assertThat(container.getTopics()).isEmpty();
        });
    }

    @Test
    void aTopicDeletedAndCreatedAgainDuringAPauseIsReadAfterTheResume() {
        runner.withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            kafko.createTopic("tenant-p");
            kafko.producer("tenant-p").send(null, bytes("before")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            container.pause();
            await().atMost(Duration.ofSeconds(20)).until(container::isPaused);
            kafko.deleteTopic("tenant-p");
            kafko.createTopic("tenant-p");
            kafko.producer("tenant-p").send(null, bytes("after")).join();
            container.resume();
            await().atMost(Duration.ofSeconds(10)).until(() -> RECEIVED.contains("tenant-p:after"));
            assertThat(container.getTopics()).containsExactly("tenant-p");
            assertThat(memberThreads()).hasSize(2);
            assertThat(container.getMembers()).hasSize(2).allMatch(MessageListenerContainer::isRunning);
        });
    }

    @Test
    void acknowledgmentsPendingAtTheDeletionAreHarmlessAndTheTopicIsReadAgain() {
        runner.withBean(ManualReader.class).withPropertyValues("kafko.listener.ack-mode=manual").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            kafko.createTopic("tenant-m", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 6; i++) {
                kafko.producer("tenant-m").send(null, bytes("m" + i)).join();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> ACKS.size() == 6);
            ACKS.get("m0").acknowledge();
            kafko.deleteTopic("tenant-m");
            ACKS.get("m1").acknowledge(); // on the polling thread's way out, or after it ended
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            ACKS.values().forEach(Acknowledgment::acknowledge);
            assertThat(container.hasDeadMember()).isFalse();
            ACKS.clear();
            kafko.createTopic("tenant-m");
            kafko.producer("tenant-m").send(null, bytes("n0")).join();
            await().atMost(Duration.ofSeconds(10)).until(() -> ACKS.containsKey("n0"));
            ACKS.get("n0").acknowledge();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(ACKS).containsOnlyKeys("n0");
        });
    }

    @Test
    void aSeekAwareListenerIsToldOfTheRevocationAndOfTheNewTopicsAssignment(CapturedOutput output) {
        runner.withBean(SeekingReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("tenant-s", TopicConfig.builder().partitions(2).build());
            template(context).send("tenant-s", 0, null, "s0").join();
            template(context).send("tenant-s", 1, null, "s1").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            kafko.deleteTopic("tenant-s");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            kafko.createTopic("tenant-s", TopicConfig.builder().partitions(2).build());
            template(context).send("tenant-s", 0, null, "t0").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            assertThat(RECEIVED).contains("tenant-s:s0", "tenant-s:s1", "tenant-s:t0");
            assertThat(container(context).getTopics()).containsExactly("tenant-s");
        });
        assertThat(output.getAll()).doesNotContain("ERROR");
    }

    @RepeatedTest(3)
    void theTestHelperWaitsDuringChurnWithoutFailingOrHanging() {
        runner.withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            AtomicBoolean churning = new AtomicBoolean(true);
            AtomicReference<Throwable> churnFailed = new AtomicReference<>();
            Thread churner = churner(kafko, churning, churnFailed);
            churner.start();
            try {
                for (int i = 0; i < 15; i++) {
                    long started = System.nanoTime();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(5));
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
                }
            } finally {
                churning.set(false);
                churner.join(10_000);
            }
            assertThat(churnFailed.get()).isNull();
            assertThat(container(context).hasDeadMember()).isFalse();
        });
    }

    @RepeatedTest(4)
    void theContextClosesDuringChurnWithNoThreadLeftAndNothingLoggedAtError(CapturedOutput output) throws Exception {
        AtomicBoolean churning = new AtomicBoolean(true);
        AtomicReference<Thread> churnerRef = new AtomicReference<>();
        runner.withBean(TenantReader.class).withBean(StopEvents.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            Thread churner = churner(kafko, churning, new AtomicReference<>());
            churnerRef.set(churner);
            churner.start();
            Thread.sleep(300);
        });
        churning.set(false);
        churnerRef.get().join(10_000);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
        assertThat(STOPPED).containsExactly("tenants NORMAL");
        String logged = output.getAll();
        assertThat(logged.lines().filter(l -> l.contains("ERROR")).toList()).isEmpty();
    }

    @Test
    void threeMembersAtDifferentPointsAllEndOnTheDeletion() {
        slowRelease = new CountDownLatch(1);
        runner.withBean(TenantReader.class).withBean(StopEvents.class)
                .withPropertyValues("kafko.listener.concurrency=3").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            kafko.createTopic("tenant-3", TopicConfig.builder().partitions(3).build());
            await().atMost(Duration.ofSeconds(10)).until(() -> container.getAssignedPartitions()
                    .getOrDefault("tenant-3", Set.of()).size() == 3);
            container.getMembers().get(2).pause(); // one paused, one in a slow call, one polling
            template(context).send("tenant-3", 0, null, "slow").join();
            template(context).send("tenant-3", 1, null, "slow").join();
            assertThat(slowEntered.await(10, TimeUnit.SECONDS)).isTrue();
            kafko.deleteTopic("tenant-3");
            Thread.sleep(200);
            slowRelease.countDown();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            assertThat(MEMBER_STOPPED).hasSize(3);
            assertThat(STOPPED).isEmpty();
            assertThat(container.getTopics()).isEmpty();
            assertThat(container.isRunning()).isTrue();
        });
    }

    private static Thread churner(Kafko kafko, AtomicBoolean churning, AtomicReference<Throwable> failed) {
        return new Thread(() -> {
            int i = 0;
            try {
                while (churning.get()) {
                    String topic = "tenant-w" + (i++ % 4);
                    try {
                        kafko.createTopic(topic);
                        kafko.producer(topic).send(null, bytes("x")).join();
                        kafko.deleteTopic(topic);
                    } catch (dev.kafko.KafkoClosedException e) {
                        return;
                    }
                }
            } catch (Throwable e) {
                failed.compareAndSet(null, e);
            }
        }, "churner");
    }

    static class TenantReader {
        @KafkoListener(id = "tenants", topicPattern = "tenant-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) throws InterruptedException {
            if (value.equals("slow")) {
                slowEntered.countDown();
                slowRelease.await(10, TimeUnit.SECONDS);
            }
            RECEIVED.add(topic + ":" + value);
        }
    }

    static class ManualReader {
        @KafkoListener(id = "tenants", topicPattern = "tenant-.*")
        void read(String value, Acknowledgment ack) {
            ACKS.put(value, ack);
        }
    }

    static class SeekingReader extends AbstractConsumerSeekAware {
        @KafkoListener(id = "tenants", topicPattern = "tenant-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
        }

        @Override
        public void onPartitionsAssigned(String topic, Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            super.onPartitionsAssigned(topic, assignments, callback);
            SEEK_EVENTS.add("assigned " + topic + assignments.keySet());
        }

        @Override
        public void onPartitionsRevoked(String topic, java.util.Collection<Integer> partitions) {
            super.onPartitionsRevoked(topic, partitions);
            SEEK_EVENTS.add("revoked " + topic + partitions);
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
