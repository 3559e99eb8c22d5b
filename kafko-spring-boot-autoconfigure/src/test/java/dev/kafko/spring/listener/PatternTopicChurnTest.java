package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A pattern listener over short-lived topics (a topic per tenant, per job, per test): the members of a deleted topic
 * end, so that its threads do not grow with every topic it ever read, and a topic created again is read again.
 */
class PatternTopicChurnTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final List<String> STOPPED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.concurrency=2");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        STOPPED.clear();
    }

    @Test
    void theMembersOfDeletedTopicsEndAndATopicCreatedAgainIsReadAgain() {
        runner.withBean(TenantReader.class).withBean(StopEvents.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            for (int i = 0; i < 20; i++) {
                kafko.createTopic("tenant-" + i, TopicConfig.builder().partitions(2).build());
                kafko.producer("tenant-" + i).send(null, bytes("v" + i)).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).hasSize(20);
            assertThat(memberThreads()).hasSize(40);

            for (int i = 0; i < 20; i++) {
                kafko.deleteTopic("tenant-" + i);
            }
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            assertThat(container.getTopics()).isEmpty();
            assertThat(container.getMembers()).isEmpty();
            assertThat(container.isRunning()).as("a pattern container with no topic left runs on").isTrue();
            assertThat(container.hasDeadMember()).isFalse();
            assertThat(STOPPED).as("the container did not stop").isEmpty();

            kafko.createTopic("tenant-3");
            kafko.createTopic("tenant-new");
            kafko.producer("tenant-3").send(null, bytes("again")).join();
            kafko.producer("tenant-new").send(null, bytes("new")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).contains("tenant-3:again", "tenant-new:new").hasSize(22);
            assertThat(container.getTopics()).containsExactly("tenant-3", "tenant-new");
            // names are never reused: a thread name stays one member's
            assertThat(container.getMembers()).extracting(m -> ((KafkoMessageListenerContainer) m).memberName())
                    .containsExactly("tenants-40", "tenants-41", "tenants-42", "tenants-43");

            container.stop();
            // stop() returns once each member's run ended; its thread may take a moment more to die
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            await().atMost(Duration.ofSeconds(20)).until(() -> !STOPPED.isEmpty());
            Thread.sleep(100);
            assertThat(STOPPED).containsExactly("tenants NORMAL");
        });
    }

    @Test
    void aStopAfterEveryTopicWasDeletedTellsTheContainerStoppedOnce() {
        runner.withBean(TenantReader.class).withBean(StopEvents.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = container(context);
            kafko.createTopic("tenant-a");
            kafko.producer("tenant-a").send(null, bytes("a")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            kafko.deleteTopic("tenant-a");
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
            assertThat(STOPPED).isEmpty();

            container.stop();
            assertThat(container.isRunning()).isFalse();
            await().atMost(Duration.ofSeconds(20)).until(() -> !STOPPED.isEmpty());
            Thread.sleep(100);
            assertThat(STOPPED).containsExactly("tenants NORMAL");

            container.start(); // the topic was created again while it was stopped
            kafko.createTopic("tenant-a");
            kafko.producer("tenant-a").send(null, bytes("b")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("tenant-a:a", "tenant-a:b");
        });
    }

    @Test
    void aTopicDeletedAndCreatedAgainUnderItsMembersIsReadOnWithoutLoss() {
        runner.withBean(TenantReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (int round = 0; round < 10; round++) {
                kafko.createTopic("tenant-x");
                kafko.producer("tenant-x").send(null, bytes("r" + round)).join();
                KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                kafko.deleteTopic("tenant-x");
            }
            assertThat(RECEIVED).hasSize(10).allMatch(r -> r.startsWith("tenant-x:r"));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(memberThreads()).isEmpty());
        });
    }

    static List<String> memberThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("tenants-")).toList();
    }

    static ConcurrentMessageListenerContainer container(ApplicationContext context) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer("tenants");
    }

    @SuppressWarnings("unchecked")
    static dev.kafko.spring.core.KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(dev.kafko.spring.core.KafkoTemplate.class);
    }

    static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    static class TenantReader {
        @KafkoListener(id = "tenants", topicPattern = "tenant-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
        }
    }

    static class StopEvents {
        @EventListener
        void stopped(ConcurrentContainerStoppedEvent event) {
            STOPPED.add(event.getListenerId() + " " + event.getReason());
        }
    }
}
