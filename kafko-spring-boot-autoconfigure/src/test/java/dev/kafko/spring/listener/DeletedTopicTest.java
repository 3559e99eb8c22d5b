package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** A listener whose topic is deleted under it reads the topic again once it exists, without flooding the log. */
class DeletedTopicTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch hold = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Reader.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms");

    @RegisterExtension
    final LogCapture log = new LogCapture(ListenerConsumer.class);

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    @Test
    void whereTopicsAreCreatedOnUseTheListenerCreatesItAgainAndReadsOn() {
        runner.run(context -> {
            sendToPartition0(context, "before");
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> committedOnPartition0(kafko) == 1L);
            kafko.deleteTopic("doomed");
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.topic("doomed").isPresent());
            sendToPartition0(context, "after");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("after"));
            assertThat(RECEIVED).containsExactly("before", "after");
            // the new topic's record is committed, though at the offset the deleted topic's commit had: a restart
            // does not deliver it again
            await().atMost(Duration.ofSeconds(20)).until(() -> committedOnPartition0(kafko) == 1L);
            assertThat(errors()).isEmpty();
        });
    }

    @SuppressWarnings("unchecked")
    private static void sendToPartition0(ApplicationContext context, String value) {
        ((KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class)).send("doomed", 0, null, value).join();
    }

    private static long committedOnPartition0(Kafko kafko) {
        return kafko.topic("doomed").isEmpty() ? -1L
                : kafko.groupInfo("doomed", "reader").committed().getOrDefault(0, -1L);
    }

    @Test
    void otherwiseItWaitsQuietlyUntilTheTopicIsCreatedAgain(@TempDir Path dir) {
        try (Kafko before = Kafko.open(dir)) {
            before.createTopic("doomed"); // not declared in kafko.topics: nothing creates it again
        }
        runner.withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + dir, "kafko.auto-create-topics=false")
                .run(context -> {
            send(context, "before");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("before"));
            Kafko kafko = context.getBean(Kafko.class);
            kafko.deleteTopic("doomed");
            Thread.sleep(500); // ten poll timeouts without the topic
            assertThat(kafko.topic("doomed")).isEmpty();
            kafko.createTopic("doomed");
            send(context, "after");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("after"));
            assertThat(RECEIVED).containsExactly("before", "after");
            assertThat(errors()).isEmpty();
            assertThat(log.events()).filteredOn(e -> e.getLevel() == Level.WARN).hasSize(1)
                    .first().satisfies(e -> assertThat(e.getFormattedMessage()).contains("lost topic 'doomed'"));
        });
    }

    @Test
    void whereNewGroupsStartAtTheEndWhatWasSentToTheTopicCreatedAgainBeforeTheMemberLookedIsRead(@TempDir Path dir) {
        try (Kafko before = Kafko.open(dir)) {
            before.createTopic("doomed"); // not declared in kafko.topics: nothing creates it again
        }
        // a poll timeout of a second: the member, which found the topic gone, looks again only a second later
        runner.withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + dir, "kafko.auto-create-topics=false",
                "kafko.offset-reset=latest", "kafko.listener.poll-timeout=1s").run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> !registry.getListenerContainer("reader")
                    .getAssignedPartitions().isEmpty());
            send(context, "before");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("before"));
            Kafko kafko = context.getBean(Kafko.class);
            kafko.deleteTopic("doomed");
            await().atMost(Duration.ofSeconds(20)).until(() -> log.events().stream()
                    .anyMatch(e -> e.getFormattedMessage().contains("lost topic 'doomed'")));
            kafko.createTopic("doomed");
            send(context, "sent before the member looked");
            send(context, "after");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("after"));
            // the topic was created while the member ran: not skipped from the end, as a new group's start would
            assertThat(RECEIVED).containsExactly("before", "sent before the member looked", "after");
            assertThat(errors()).isEmpty();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"record", "batch"})
    void theRecordsInHandOfADeletedTopicAreDroppedWithOneWarning(String ackMode) {
        runner.withBean(Holder.class).withPropertyValues("kafko.listener.ack-mode=" + ackMode).run(context -> {
            for (int i = 0; i < 20; i++) {
                send(context, "held", "v" + i);
            }
            hold = new CountDownLatch(1);
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("holder").start();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("v0")); // one poll holds all 20
            Kafko kafko = context.getBean(Kafko.class);
            kafko.deleteTopic("held");
            hold.countDown();
            send(context, "held", "after");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("after"));
            if (ackMode.equals("record")) {
                // its commit told the member the topic was gone: the other 19 went with it
                assertThat(RECEIVED).containsExactly("v0", "after");
            } else {
                // a batch is committed, and so found gone, only once all of it was delivered
                assertThat(RECEIVED).hasSize(21).endsWith("after");
            }
            assertThat(errors()).isEmpty();
            // the warning counts the records dropped (none for a batch), and says the member reads the topic again
            String dropped = ackMode.equals("record") ? "; 19 record(s) of it in hand were not delivered;" : null;
            assertThat(log.events()).filteredOn(e -> e.getLevel() == Level.WARN).singleElement()
                    .satisfies(e -> assertThat(e.getFormattedMessage()).contains("lost topic 'held'")
                            .contains("reads it again as soon as it exists"))
                    .satisfies(e -> {
                        if (dropped != null) {
                            assertThat(e.getFormattedMessage()).contains(dropped);
                        } else {
                            assertThat(e.getFormattedMessage()).doesNotContain("in hand");
                        }
                    });
        });
    }

    @Test
    void aFailedRecordOfADeletedTopicIsNotDeliveredAgainAndTheListenerReadsOn() {
        runner.withBean(Refuser.class)
                .withBean(KafkoErrorHandler.class, () -> (records, failure, invocation) -> {
                    throw failure; // not dealt with: the container seeks back to deliver them again
                }).run(context -> {
            hold = new CountDownLatch(1);
            send(context, "refused", "old");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("old"));
            context.getBean(Kafko.class).deleteTopic("refused");
            hold.countDown(); // the listener throws, and so does the error handler
            send(context, "refused", "new");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("new"));
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("refuser");
            assertThat(container.getFailure()).isNull();
            assertThat(RECEIVED).startsWith("old", "new").filteredOn("old"::equals).hasSize(1);
        });
    }

    @Test
    void deletingAndCreatingTheTopicAgainAndAgainUnderTheListenerNeverKillsItsMembers() {
        runner.withPropertyValues("kafko.listener.concurrency=2", "kafko.topics.doomed.partitions=2").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            ConcurrentMessageListenerContainer container = (ConcurrentMessageListenerContainer) context
                    .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("reader");
            // the members create the topic again while this thread does: a member whose creation loses the race
            // and finds the topic deleted again by the time it looks must try again, not die
            for (int i = 0; i < 600 && !container.hasDeadMember(); i++) {
                if (kafko.topic("doomed").isPresent()) {
                    kafko.deleteTopic("doomed");
                }
                try {
                    kafko.createTopic("doomed", dev.kafko.TopicConfig.builder().partitions(2).build());
                } catch (dev.kafko.TopicExistsException membersWereFirst) {
                    // a member created it
                }
                if (i % 50 == 0) {
                    Thread.sleep(20);
                }
            }
            assertThat(container.hasDeadMember()).as("a member died: %s", container.getFailure()).isFalse();
            send(context, "still read");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("still read"));
            assertThat(errors()).isEmpty();
        });
    }

    private List<ILoggingEvent> errors() {
        return log.events().stream().filter(e -> e.getLevel() == Level.ERROR).toList();
    }

    private static void send(ApplicationContext context, String value) {
        send(context, "doomed", value);
    }

    @SuppressWarnings("unchecked")
    private static void send(ApplicationContext context, String topic, String value) {
        ((KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class)).send(topic, value).join();
    }

    /** Started by the test once its records are written, so that its first poll takes them all. */
    static class Holder {
        @KafkoListener(id = "holder", topics = "held", autoStartup = "false")
        void read(String value) throws InterruptedException {
            RECEIVED.add(value);
            hold.await(30, TimeUnit.SECONDS);
        }
    }

    /** Refuses every record, the first only once the test lets it. */
    static class Refuser {
        @KafkoListener(id = "refuser", topics = "refused")
        void read(String value) throws InterruptedException {
            if (RECEIVED.add(value) && value.equals("old")) {
                hold.await(30, TimeUnit.SECONDS);
            }
            throw new IllegalStateException("refused " + value);
        }
    }

    static class Reader {
        @KafkoListener(id = "reader", topics = "doomed")
        void read(String value) {
            RECEIVED.add(value);
        }
    }
}
