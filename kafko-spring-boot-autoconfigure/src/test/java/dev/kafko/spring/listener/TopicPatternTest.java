package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A listener with a topic pattern reads the matching topics that exist when it starts and each one created while it
 * runs, from the moment it is created; it never creates a topic and never reads its own dead letters.
 */
class TopicPatternTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms");

    @RegisterExtension
    final LogCapture log = new LogCapture(ConcurrentMessageListenerContainer.class);

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    @Test
    void readsTheMatchingTopicsThatExistAtStartAndEachOneCreatedWhileItRuns() {
        runner.withBean(OrdersReader.class)
                .withPropertyValues("kafko.topics.orders-eu.partitions=2", "kafko.topics.payments.partitions=1",
                        "kafko.listener.concurrency=2")
                .run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "orders");
            assertThat(container.getTopicPattern()).hasToString("orders-.*");
            assertThat(container.getTopics()).containsExactly("orders-eu");
            send(context, "orders-eu", "eu-1");
            send(context, "payments", "not read");
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("orders-us", TopicConfig.builder().partitions(3).build());
            // the members joined on the creating thread: a record sent at once is read
            assertThat(container.getTopics()).containsExactly("orders-eu", "orders-us");
            send(context, "orders-us", "us-1");
            send(context, "orders-asia", "asia-1"); // created on first use by the template
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("orders-eu:eu-1", "orders-us:us-1", "orders-asia:asia-1");
            assertThat(container.getTopics()).containsExactly("orders-eu", "orders-us", "orders-asia");
            assertThat(container.getMembers()).extracting(m -> ((KafkoMessageListenerContainer) m).memberName())
                    .containsExactly("orders-0", "orders-1", "orders-2", "orders-3", "orders-4", "orders-5");
            assertThat(container.getAssignedPartitions()).containsOnlyKeys("orders-eu", "orders-us", "orders-asia");
            assertThat(container.getAssignedPartitions().get("orders-us")).containsExactly(0, 1, 2);
        });
    }

    @Test
    void aRecordSentRightAfterTheCreationIsReadAlsoWhenNewGroupsStartAtTheEnd() {
        runner.withBean(OrdersReader.class).withPropertyValues("kafko.offset-reset=latest").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (int i = 0; i < 20; i++) {
                kafko.createTopic("orders-" + i);
                kafko.producer("orders-" + i).send(null, ("v" + i).getBytes()).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).hasSize(20);
        });
    }

    @Test
    void aRecordSentRightAfterTheCreationIsReadOnEveryPartitionByEveryMemberWhenNewGroupsStartAtTheEnd() {
        runner.withBean(OrdersReader.class)
                .withPropertyValues("kafko.offset-reset=latest", "kafko.listener.concurrency=2").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (int i = 0; i < 10; i++) {
                kafko.createTopic("orders-" + i, TopicConfig.builder().partitions(2).build());
                for (int p = 0; p < 2; p++) {
                    template(context).send("orders-" + i, p, null, "v" + i + "-" + p).join();
                }
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).hasSize(20);
        });
    }

    @Test
    void neverReadsADeadLetterTopicAndNeverCreatesATopic() {
        runner.withBean(FailingReader.class).withPropertyValues("kafko.listener.retry.max-attempts=1",
                "kafko.listener.dead-letter.enabled=true").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            send(context, "jobs-a", "poison");
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.topic("jobs-a.DLT")
                    .map(t -> t.partitions().get(0).endOffset() == 1).orElse(false));
            ConcurrentMessageListenerContainer container = container(context, "jobs");
            assertThat(container.getTopics()).containsExactly("jobs-a");
            assertThat(kafko.topics()).containsExactlyInAnyOrder("jobs-a", "jobs-a.DLT");
            assertThat(RECEIVED).containsExactly("jobs-a:poison");

            // deleted under it, with topics created on use: it waits for the topic instead of creating it again
            kafko.deleteTopic("jobs-a");
            Thread.sleep(300); // six poll timeouts
            assertThat(kafko.topic("jobs-a")).isEmpty();
            assertThat(container.hasDeadMember()).isFalse();
            kafko.createTopic("jobs-a");
            send(context, "jobs-a", "again");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("jobs-a:again"));
            assertThat(container.getTopics()).containsExactly("jobs-a");
        });
    }

    @Test
    void aPatternThatMatchesNothingYetRunsAndItsFirstTopicStartsPausedWhenPaused() {
        runner.withBean(OrdersReader.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "orders");
            assertThat(container.getTopics()).isEmpty();
            assertThat(container.isRunning()).as("running with no topic yet").isTrue();
            container.pause();
            assertThat(container.isPauseRequested()).isTrue();
            send(context, "orders-1", "held");
            await().atMost(Duration.ofSeconds(20)).until(container::isPaused);
            Thread.sleep(200);
            assertThat(RECEIVED).as("read while paused").isEmpty();
            container.resume();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("orders-1:held"));
        });
    }

    @Test
    void aTopicCreatedWhilePausedIsCommittedAtItsStartSoARestartBeforeTheResumeReadsIt(@TempDir Path dir) {
        // new groups start at the end: only the start its paused member commits keeps what waits for the resume
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(OrdersReader.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.offset-reset=latest",
                        "kafko.listener.poll-timeout=50ms");
        onDisk.run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "orders");
            container.pause();
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("orders-1", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 3; i++) {
                kafko.producer("orders-1").send(("k" + i).getBytes(), ("held-" + i).getBytes()).join();
            }
            // the paused members joined the topic and committed where they start: its lag counts what waits
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.groupInfo("orders-1", "orders").lag()
                    .values().stream().mapToLong(Long::longValue).sum() == 3);
            assertThat(kafko.groupInfo("orders-1", "orders").committed()).containsOnlyKeys(0, 1);
            assertThat(RECEIVED).as("read while paused").isEmpty();
        });
        // closed before the resume: the next run reads every record from the committed start
        onDisk.run(context -> {
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("orders-1:held-0", "orders-1:held-1", "orders-1:held-2");
        });
    }

    @Test
    void aStoppedContainerReadsTheTopicsCreatedMeanwhileWhenItStartsAgain() {
        runner.withBean(OrdersReader.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "orders");
            send(context, "orders-1", "first");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("orders-1:first"));
            container.stop();
            assertThat(container.isRunning()).isFalse();
            send(context, "orders-2", "while stopped");
            Thread.sleep(200);
            assertThat(container.getTopics()).containsExactly("orders-1");
            // stop() returns once each member's run ended; its thread may still be on its way out
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                    .extracting(Thread::getName).noneMatch(name -> name.startsWith("orders-")));
            container.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("orders-2:while stopped"));
            assertThat(container.getTopics()).containsExactly("orders-1", "orders-2");
            assertThat(RECEIVED).containsExactly("orders-1:first", "orders-2:while stopped");
        });
    }

    @Test
    void placeholdersResolveAndTheWholeNameMustMatch() {
        runner.withBean(PlaceholderReader.class).withPropertyValues("app.prefix=audit")
                .run(context -> {
            send(context, "audit.x", "whole");
            send(context, "pre-audit.x", "not whole");
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("audit.x:whole");
        });
    }

    @Test
    void topicsAndAPatternTogetherOrABadPatternFailTheStartNamingTheListener() {
        runner.withBean(BothReader.class).run(context -> assertThat(invalidListener(context.getStartupFailure()))
                .hasMessageContaining("'both'").hasMessageContaining("topicPattern 'a.*'")
                .hasMessageContaining("one or the other"));
        runner.withBean(BadPatternReader.class).run(context -> assertThat(invalidListener(context.getStartupFailure()))
                .hasMessageContaining("'bad'").hasMessageContaining("topicPattern 'orders-(' is not a regular expression"));
    }

    private static Throwable invalidListener(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidKafkoListenerException) {
                return t;
            }
        }
        throw new AssertionError("no InvalidKafkoListenerException in the chain", failure);
    }

    @Test
    void withAKafkoBeanOfTheApplicationsOwnTheTopicsAreMatchedAtEachStart(@TempDir Path dir) {
        // the application's Kafko was opened without the observer that tells topic creations
        runner.withBean(OrdersReader.class)
                .withBean(Kafko.class, () -> Kafko.open(dir), bd -> bd.setDestroyMethodName("close"))
                .run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "orders");
            assertThat(log.events()).anySatisfy(e -> assertThat(e.getFormattedMessage())
                    .contains("reads the topics its pattern 'orders-.*' matches when it starts"));
            send(context, "orders-1", "later");
            Thread.sleep(300);
            assertThat(RECEIVED).isEmpty();
            container.stop();
            container.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("orders-1:later"));
        });
    }

    @Test
    void aPatternForDeadLetterTopicsReadsThemButNotItsOwnDeadLetters() {
        runner.withBean(FailingReader.class).withBean(DeadLetterReader.class).withPropertyValues(
                "kafko.listener.retry.max-attempts=1", "kafko.listener.dead-letter.enabled=true",
                "kafko.topics[other.DLT].partitions=1").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            // one there at the start, one created while it runs
            send(context, "other.DLT", "old");
            send(context, "jobs-a", "poison");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("jobs-a.DLT:poison"));
            // the reader's own failure went to jobs-a.DLT.DLT, which its pattern matches but does not read
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.topic("jobs-a.DLT.DLT")
                    .map(t -> t.partitions().get(0).endOffset() == 1).orElse(false));
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactlyInAnyOrder("jobs-a:poison", "other.DLT:old", "jobs-a.DLT:poison");
            assertThat(container(context, "deadLetters").getTopics()).containsExactly("other.DLT", "jobs-a.DLT");
            assertThat(container(context, "jobs").getTopics()).containsExactly("jobs-a");
        });
    }

    private static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }

    @SuppressWarnings("unchecked")
    private static void send(ApplicationContext context, String topic, String value) {
        ((KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class)).send(topic, value).join();
    }

    static class OrdersReader {
        @KafkoListener(id = "orders", topicPattern = "orders-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
        }
    }

    static class FailingReader {
        @KafkoListener(id = "jobs", topicPattern = "jobs-.*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
            throw new IllegalStateException("refused " + value);
        }
    }

    static class DeadLetterReader {
        @KafkoListener(id = "deadLetters", topicPattern = ".*\\.DLT")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
            throw new IllegalStateException("refused again " + value);
        }
    }

    static class PlaceholderReader {
        @KafkoListener(id = "audit", topicPattern = "${app.prefix}\\..*")
        void read(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            RECEIVED.add(topic + ":" + value);
        }
    }

    static class BothReader {
        @KafkoListener(id = "both", topics = "a", topicPattern = "a.*")
        void read(String value) {
        }
    }

    static class BadPatternReader {
        @KafkoListener(id = "bad", topicPattern = "orders-(")
        void read(String value) {
        }
    }
}
