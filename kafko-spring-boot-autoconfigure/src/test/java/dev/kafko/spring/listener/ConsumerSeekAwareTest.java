package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

class ConsumerSeekAwareTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    /** What the seeker's listener received and its first polls, in order. */
    static final List<String> ORDER = new CopyOnWriteArrayList<>();
    static final List<Map<Integer, Long>> ASSIGNED = new CopyOnWriteArrayList<>();
    static final List<RuntimeException> SEEK_FAILURES = new CopyOnWriteArrayList<>();
    static volatile ConsumerSeekAware.ConsumerSeekCallback lastCallback;
    static volatile BiConsumer<Map<Integer, Long>, ConsumerSeekAware.ConsumerSeekCallback> onAssign = (a, c) -> { };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Seeker.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms");

    @BeforeEach
    void reset() {
        TWO_TOPICS.clear();
        RECEIVED.clear();
        ORDER.clear();
        ASSIGNED.clear();
        SEEK_FAILURES.clear();
        lastCallback = null;
    }

    @Test
    void aSeekDuringAssignmentChoosesTheFirstRecordDelivered() {
        onAssign = (assignments, callback) -> callback.seek("replay", 0, 2);
        runner.run(context -> {
            sendThenStart(context, "a", "b", "c");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("c"));
            assertThat(RECEIVED).containsExactly("c");
            assertThat(ORDER).containsExactly("first poll on seeker-0 after 1 assignment(s)", "c");
            assertThat(ASSIGNED).containsExactly(Map.of(0, 0L));
        });
    }

    @Test
    void onFirstPollComesOncePerRunOnTheMembersThreadAfterItsAssignmentBeforeItsRecords() {
        onAssign = (assignments, callback) -> { };
        runner.run(context -> {
            sendThenStart(context, "a");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("a"));
            template(context).send("replay", "b").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("b"));
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("seeker");
            container.stop();
            container.start();
            template(context).send("replay", "c").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("c"));
            assertThat(ORDER).containsExactly("first poll on seeker-0 after 1 assignment(s)", "a", "b",
                    "first poll on seeker-0 after 2 assignment(s)", "c");
        });
    }

    @Test
    void seekToEndSkipsWhatIsAlreadyInTheLogAndSeekToBeginningReadsItAll() {
        onAssign = (assignments, callback) -> callback.seekToEnd("replay", assignments.keySet());
        runner.run(context -> {
            sendThenStart(context, "old-1", "old-2");
            await().atMost(Duration.ofSeconds(20)).until(() -> !ASSIGNED.isEmpty());
            template(context).send("replay", "new").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("new"));
            assertThat(RECEIVED).containsExactly("new");
        });
        RECEIVED.clear();
        onAssign = (assignments, callback) -> {
            callback.seek("replay", 0, 1);
            callback.seekToBeginning("replay", assignments.keySet());
        };
        runner.run(context -> {
            sendThenStart(context, "x", "y");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.size() == 2);
            assertThat(RECEIVED).containsExactly("x", "y");
        });
    }

    @Test
    void aSeekOnAnotherTopicOrPartitionFailsAndTheListenerReadsOnFromItsCommittedOffsets() {
        onAssign = (assignments, callback) -> {
            lastCallback = callback;
            try {
                callback.seek("elsewhere", 0, 1);
            } catch (RuntimeException e) {
                SEEK_FAILURES.add(e);
            }
            try {
                callback.seekToEnd("replay", List.of(7));
            } catch (RuntimeException e) {
                SEEK_FAILURES.add(e);
            }
            throw new IllegalStateException("the listener's own bug");
        };
        runner.run(context -> {
            sendThenStart(context, "a", "b");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.size() == 2);
            assertThat(RECEIVED).containsExactly("a", "b");
            assertThat(SEEK_FAILURES).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class));
            assertThat(SEEK_FAILURES.get(0)).hasMessageContaining("reads replay, not elsewhere");
            assertThat(SEEK_FAILURES.get(1)).hasMessageContaining("cannot seek replay-7: no such partition");
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("seeker").isRunning())
                    .isTrue();
            assertThatThrownBy(() -> lastCallback.seek("replay", 0, 0))
                    .as("the callback is only for the duration of the call")
                    .isInstanceOf(IllegalStateException.class);
        });
    }

    @Test
    void anAssignmentCallbackThatThrowsAfterASeekLeavesTheMemberReadingFromTheOffsetsItHad() {
        // the javadoc: "An exception thrown here is logged and the member reads on from the offsets it had"
        onAssign = (assignments, callback) -> {
            callback.seek("replay", 0, 1);
            throw new IllegalStateException("the listener's own bug, after a seek");
        };
        runner.run(context -> {
            sendThenStart(context, "a", "b");
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("b"));
            assertThat(RECEIVED).as("the seek made before the throw is undone").containsExactly("a", "b");
        });
    }

    @Test
    void aListenerOfTwoTopicsIsToldWhichTopicEachAssignmentIsOf() {
        runner.withBean(TwoTopics.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (String topic : List.of("first", "second")) {
                template.send(topic, topic + "-old").join();
            }
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("two").start();
            await().atMost(Duration.ofSeconds(20)).until(() -> TWO_TOPICS.containsKey("first") && TWO_TOPICS.containsKey("second"));
            template.send("first", "first-new").join();
            template.send("second", "second-new").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> RECEIVED.contains("first-new") && RECEIVED.contains("second-new"));
            // the first topic is read from its end, the second from its committed start
            assertThat(RECEIVED).containsExactlyInAnyOrder("second-old", "first-new", "second-new");
        });
    }

    private static void sendThenStart(ApplicationContext context, String... values) {
        KafkoTemplate<Object, Object> template = template(context);
        for (String value : values) {
            template.send("replay", value).join();
        }
        context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("seeker").start();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static final Map<String, Map<Integer, Long>> TWO_TOPICS = new java.util.concurrent.ConcurrentHashMap<>();

    static class TwoTopics implements ConsumerSeekAware {
        @Override
        public void onPartitionsAssigned(String topic, Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            if (topic.equals("first")) {
                callback.seekToEnd(topic, assignments.keySet());
            }
            TWO_TOPICS.put(topic, Map.copyOf(assignments));
        }

        @KafkoListener(id = "two", topics = {"first", "second"}, autoStartup = "false")
        void on(String value) {
            RECEIVED.add(value);
        }
    }

    static class Seeker implements ConsumerSeekAware {
        @Override
        public void onPartitionsAssigned(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
            try {
                onAssign.accept(assignments, callback);
            } finally {
                // once the seeks are made: a test that waits for the assignment then sends what must come after them
                ASSIGNED.add(Map.copyOf(assignments));
            }
        }

        @Override
        public void onFirstPoll() {
            ORDER.add("first poll on " + Thread.currentThread().getName() + " after " + ASSIGNED.size()
                    + " assignment(s)");
        }

        @KafkoListener(id = "seeker", topics = "replay", autoStartup = "false")
        void on(String value) {
            RECEIVED.add(value);
            ORDER.add(value);
        }
    }
}
