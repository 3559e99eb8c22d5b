package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Seeks a running listener asks for through the callback it registered: replays, rewinds, skips. */
class RuntimeSeeksTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final List<List<String>> BATCHES = new CopyOnWriteArrayList<>();
    static final List<ConsumerSeekAware.ConsumerSeekCallback> CALLBACKS = new CopyOnWriteArrayList<>();
    static final AtomicBoolean REWOUND = new AtomicBoolean();
    static volatile CountDownLatch hold = new CountDownLatch(0);
    static volatile String holdAt = "";

    @RegisterExtension
    final LogCapture log = new LogCapture(ListenerConsumer.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        BATCHES.clear();
        CALLBACKS.clear();
        REWOUND.set(false);
        hold = new CountDownLatch(0);
        holdAt = "";
        slow = false;
    }

    @Test
    void aRunningListenerOfFourPartitionsAndTwoMembersReplaysEverythingWhenAsked() {
        runner.withBean(Replayer.class).withPropertyValues("kafko.topics.events.partitions=4").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            List<String> sent = IntStream.range(0, 40).mapToObj(i -> "e" + i).toList();
            for (String value : sent) {
                template.send("events", value, value).join();
            }
            await().atMost(WAIT).until(() -> RECEIVED.size() == 40);
            Replayer replayer = context.getBean(Replayer.class);
            assertThat(replayer.getCallbacksAndTopics()).as("one callback per member").hasSize(2);
            Map<String, Map<Integer, List<ConsumerSeekAware.ConsumerSeekCallback>>> byPartition =
                    replayer.getTopicsAndCallbacks();
            assertThat(byPartition).containsOnlyKeys("events");
            assertThat(byPartition.get("events")).containsOnlyKeys(0, 1, 2, 3)
                    .allSatisfy((partition, callbacks) -> assertThat(callbacks).hasSize(1)
                            .containsExactlyElementsOf(replayer.getSeekCallbacksFor("events", partition)));
            assertThat(byPartition.get("events").values().stream().flatMap(List::stream).distinct())
                    .as("the partitions shared by the two members").hasSize(2);

            replayer.seekToBeginning();

            await().atMost(WAIT).until(() -> RECEIVED.size() == 80);
            assertThat(RECEIVED.subList(40, 80)).containsExactlyInAnyOrderElementsOf(sent);

            // a member asked to seek a partition another member reads logs it and leaves it
            Map<ConsumerSeekAware.ConsumerSeekCallback, Map<String, List<Integer>>> members = replayer.getCallbacksAndTopics();
            ConsumerSeekAware.ConsumerSeekCallback first = members.keySet().iterator().next();
            int notItsOwn = IntStream.range(0, 4).filter(p -> !members.get(first).get("events").contains(p)).findFirst()
                    .orElseThrow();
            first.seekToBeginning("events", notItsOwn);
            await().atMost(WAIT).until(() -> messages().stream().anyMatch(m -> m.contains("does not read events-"
                    + notItsOwn)));
            assertThat(RECEIVED).hasSize(80);
            assertThat(context.getBean(Kafko.class).groupInfo("events", "replayer").committed())
                    .containsOnlyKeys(0, 1, 2, 3)
                    .as("every partition committed up to its end again").allSatisfy((partition, offset) ->
                            assertThat(offset).isEqualTo(context.getBean(Kafko.class).topic("events").orElseThrow()
                                    .partitions().get(partition).endOffset()));
        });
    }

    @Test
    void aSeekAskedForInsideTheListenerComesBeforeTheRecordsAlreadyPolled() {
        runner.withBean(Rewinder.class).run(context -> {
            sendThenStart(context, "rewind", "rewinder", "v0", "v1", "v2", "v3", "v4", "v5");
            await().atMost(WAIT).until(() -> RECEIVED.size() >= 9);
            assertThat(RECEIVED).containsExactly("v0", "v1", "v2", "v3", "v1", "v2", "v3", "v4", "v5");
        });
    }

    @Test
    void aBatchListenerSeesTheSeekAfterItsBatch() {
        runner.withBean(BatchRewinder.class).run(context -> {
            sendThenStart(context, "rewind-batch", "batch-rewinder", "v0", "v1", "v2", "v3");
            await().atMost(WAIT).until(() -> BATCHES.size() == 2);
            assertThat(BATCHES).containsExactly(List.of("v0", "v1", "v2", "v3"), List.of("v2", "v3"));
        });
    }

    @Test
    void theGroupsCommitMovesBackWithAReplay() {
        runner.withBean(Holder.class).withPropertyValues("kafko.listener.ack-mode=record").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 5; i++) {
                template.send("held", "v" + i).join();
            }
            await().atMost(WAIT).until(() -> RECEIVED.size() == 5);
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(WAIT).until(() -> kafko.groupInfo("held", "holder").committed().get(0) == 5L);
            hold = new CountDownLatch(1);
            holdAt = "v2";

            CALLBACKS.get(0).seek("held", 0, 0);

            await().atMost(WAIT).until(() -> RECEIVED.size() == 8);
            assertThat(RECEIVED.subList(5, 8)).containsExactly("v0", "v1", "v2");
            assertThat(kafko.groupInfo("held", "holder").committed()).as("v0 and v1 done again, v2 in hand")
                    .containsEntry(0, 2L);
            hold.countDown();
            await().atMost(WAIT).until(() -> kafko.groupInfo("held", "holder").committed().get(0) == 5L);
        });
    }

    @Test
    void relativeTimestampAndComputedSeeksLandWhereSpringKafkasDo() {
        runner.withBean(Holder.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 10; i++) {
                template.send("held", 0, 1_000L * (i + 1), null, "v" + i).join();
            }
            await().atMost(WAIT).until(() -> RECEIVED.size() == 10);
            ConsumerSeekAware.ConsumerSeekCallback callback = CALLBACKS.get(0);

            expectAfter(() -> callback.seekRelative("held", 0, -2, false), "v8", "v9");
            expectAfter(() -> callback.seekRelative("held", 0, -3, true), "v7", "v8", "v9");
            expectAfter(() -> callback.seekRelative("held", 0, 7, false), "v7", "v8", "v9");
            expectAfter(() -> callback.seekRelative("held", 0, -99, true), values(0, 10));
            expectAfter(() -> callback.seekRelative("held", 0, Long.MIN_VALUE, false), values(0, 10));
            expectAfter(() -> callback.seekToTimestamp("held", 0, 5_500), values(5, 10));
            expectAfter(() -> callback.seek("held", 0, position -> position - 1), "v9");
            expectAfter(() -> callback.seekToBeginning("held", 0), values(0, 10));
            assertThat(callback.getGroupId()).isEqualTo("holder");
        });
    }

    @Test
    void aMemberBlockedInALongPollMakesTheSeekAtOnce() {
        runner.withBean(Holder.class).withPropertyValues("kafko.listener.poll-timeout=10m").run(context -> {
            template(context).send("held", "only").join();
            await().atMost(WAIT).until(() -> RECEIVED.size() == 1);
            Thread.sleep(200); // the member is back in its poll

            CALLBACKS.get(0).seekToBeginning("held", List.of(0));

            await().atMost(WAIT).until(() -> RECEIVED.size() == 2);
        });
    }

    @Test
    void badSeeksFailWhenAskedForAndSeeksThatCannotBeMadeAreLoggedAndSkipped() {
        runner.withBean(Holder.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("held", "a").join();
            template.send("held", "b").join();
            await().atMost(WAIT).until(() -> RECEIVED.size() == 2);
            ConsumerSeekAware.ConsumerSeekCallback callback = CALLBACKS.get(0);

            assertThatThrownBy(() -> callback.seek("elsewhere", 0, 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reads held, not elsewhere");
            assertThatThrownBy(() -> callback.seek("held", 0, -1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("negative offset -1");
            assertThatThrownBy(() -> callback.seekToTimestamp("held", 0, -1))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative timestamp -1");
            assertThatThrownBy(() -> callback.seekToEnd("held", -3)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("held--3: no such partition");
            assertThatThrownBy(() -> callback.seek("held", 0, (java.util.function.Function<Long, Long>) null))
                    .isInstanceOf(NullPointerException.class);

            assertThatThrownBy(() -> callback.seek("held", 7, 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("held-7: no such partition");
            callback.seek("held", 0, position -> -1L);
            callback.seek("held", 0, position -> {
                throw new IllegalStateException("the function's own bug");
            });
            callback.seek("held", 0, 1);
            await().atMost(WAIT).until(() -> RECEIVED.size() == 3);
            assertThat(RECEIVED).containsExactly("a", "b", "b");
            assertThat(messages()).anySatisfy(m -> assertThat(m).contains("could not seek held-0 to a computed offset")
                            .contains("reads on from offset 2"));
            assertThat(log.events()).filteredOn(e -> e.getThrowableProxy() != null)
                    .extracting(e -> e.getThrowableProxy().getMessage())
                    .contains("the offset function gave -1 for position 2", "the function's own bug");
        });
        assertThatThrownBy(() -> CALLBACKS.get(0).seek("held", 0, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the member this callback seeks for has stopped");
    }

    @Test
    void aSeekWhilePausedIsMadeAndTheReplayFollowsTheResume() {
        runner.withBean(Holder.class).run(context -> {
            template(context).send("held", "x").join();
            await().atMost(WAIT).until(() -> RECEIVED.size() == 1);
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("holder");
            container.pause();
            await().atMost(WAIT).until(container::isPaused);
            CALLBACKS.get(0).seekToBeginning("held", 0);
            Thread.sleep(300);
            assertThat(RECEIVED).containsExactly("x");
            container.resume();
            await().atMost(WAIT).until(() -> RECEIVED.size() == 2);
            assertThat(RECEIVED).containsExactly("x", "x");
        });
    }

    @Test
    void aBeanWithListenersOfTwoGroupsReplaysBoth() {
        runner.withBean(TwoGroups.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 5; i++) {
                template.send("shared", "v" + i).join();
            }
            await().atMost(WAIT).until(() -> RECEIVED.size() == 10);
            TwoGroups bean = context.getBean(TwoGroups.class);
            assertThat(bean.getSeekCallbacksFor("shared", 0)).extracting(ConsumerSeekAware.ConsumerSeekCallback::getGroupId)
                    .containsExactlyInAnyOrder("ga", "gb");
            assertThat(bean.getTopicsAndCallbacks()).containsOnlyKeys("shared");
            assertThat(bean.getTopicsAndCallbacks().get("shared").get(0))
                    .extracting(ConsumerSeekAware.ConsumerSeekCallback::getGroupId).containsExactlyInAnyOrder("ga", "gb");

            bean.seekToBeginning();

            await().atMost(WAIT).until(() -> RECEIVED.size() == 20);
            assertThat(RECEIVED.stream().filter(v -> v.startsWith("a:"))).hasSize(10);
            assertThat(RECEIVED.stream().filter(v -> v.startsWith("b:"))).hasSize(10);
        });
    }

    @Test
    void waitForListenersWaitsForAReplayAskedForBeforeTheCall() {
        runner.withBean(Replayer.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 5; i++) {
                template.send("events", "k" + i, "e" + i).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).hasSize(5);
            slow = true;

            context.getBean(Replayer.class).seekToBeginning();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(RECEIVED).as("received once the wait returned").hasSize(10);
        });
    }

    @Test
    void aReplayGoesOnWithTheMemberAPartitionMovesToWhenAMemberJoinsRightAfterTheSeek() {
        runner.withBean(Replayer.class).withBean(SecondMember.class)
                .withPropertyValues("kafko.topics.events.partitions=4").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    List<String> sent = IntStream.range(0, 40).mapToObj(i -> "e" + i).toList();
                    for (String value : sent) {
                        template.send("events", value, value).join();
                    }
                    await().atMost(WAIT).until(() -> RECEIVED.size() == 40);
                    // one member busy in its listener while the replay is asked for and a third member joins
                    hold = new CountDownLatch(1);
                    holdAt = "busy";
                    template.send("events", "busy", "busy").join();
                    await().atMost(WAIT).until(() -> RECEIVED.contains("busy"));

                    context.getBean(Replayer.class).seekToBeginning();
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("replayer-more").start();
                    Thread.sleep(300);
                    hold.countDown();

                    await().atMost(WAIT).untilAsserted(() -> assertThat(sent).allSatisfy(v ->
                            assertThat(RECEIVED.stream().filter(v::equals).count()).as(v).isGreaterThanOrEqualTo(2)));
                });
    }

    @Test
    void theSeeksAMemberHadNotMadeWhenItStoppedAreLogged() {
        runner.withBean(Holder.class).run(context -> {
            template(context).send("held", "v0").join();
            await().atMost(WAIT).until(() -> RECEIVED.size() == 1);
            hold = new CountDownLatch(1);
            holdAt = "v1";
            RECEIVED.add("-"); // so that v1 is held (Holder holds past five received)
            RECEIVED.add("-");
            RECEIVED.add("-");
            RECEIVED.add("-");
            template(context).send("held", "v1").join();
            await().atMost(WAIT).until(() -> RECEIVED.contains("v1"));
            CALLBACKS.get(0).seekToBeginning("held", 0);
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("holder");
            Thread stopper = new Thread(container::stop);
            stopper.start();
            await().atMost(WAIT).until(() -> !container.isRunning() || stopper.getState() == Thread.State.WAITING
                    || stopper.getState() == Thread.State.TIMED_WAITING);
            hold.countDown();
            stopper.join(20_000);
            assertThat(messages()).anySatisfy(m -> assertThat(m).contains("1 seek(s) of held asked for by the listener"
                    + " were not made: the member stopped"));
        });
    }

    @Test
    void aPartitionTheTopicDoesNotHaveOrANullOneIsRefusedWhenAskedFor() {
        runner.withBean(Holder.class).run(context -> {
            template(context).send("held", "a").join();
            await().atMost(WAIT).until(() -> RECEIVED.size() == 1);
            ConsumerSeekAware.ConsumerSeekCallback callback = CALLBACKS.get(0);
            assertThatThrownBy(() -> callback.seek("held", 99, 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cannot seek held-99: no such partition (the topic has 1)");
            assertThatThrownBy(() -> callback.seekToBeginning("held", java.util.Arrays.asList(0, null)))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("null partition");
        });
    }

    @Test
    void theWaitEndsOnceTheGroupCommittedAPartitionSoughtBackThatAnotherContainerNowReads() {
        runner.withBean(Replayer.class).withBean(SecondMember.class)
                .withPropertyValues("kafko.topics.events.partitions=3").run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    for (int i = 0; i < 20; i++) {
                        template.send("events", "k" + i, "a" + i).join();
                    }
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    context.getBean(Replayer.class).seekToBeginning();
                    KafkoTestUtils.waitForListeners(context, WAIT);
                    assertThat(RECEIVED).as("the replay").hasSize(40);

                    MessageListenerContainer second = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("replayer-more");
                    second.start();
                    KafkoTestUtils.waitForAssignment(second, 1, WAIT);
                    for (int i = 0; i < 20; i++) {
                        template.send("events", "k" + i, "b" + i).join();
                    }
                    await().atMost(WAIT).until(() -> RECEIVED.size() == 60);

                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
                });
    }

    static volatile boolean slow;

    static class TwoGroups extends AbstractConsumerSeekAware {
        @KafkoListener(id = "ga", topics = "shared")
        void a(String value) {
            RECEIVED.add("a:" + value);
        }

        @KafkoListener(id = "gb", topics = "shared")
        void b(String value) {
            RECEIVED.add("b:" + value);
        }
    }

    static class SecondMember {
        @KafkoListener(id = "replayer-more", groupId = "replayer", topics = "events", autoStartup = "false")
        void on(String value) {
            RECEIVED.add(value);
        }
    }

    private List<String> messages() {
        return log.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static String[] values(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "v" + i).toArray(String[]::new);
    }

    private static void expectAfter(Runnable seek, String... expected) {
        RECEIVED.clear();
        seek.run();
        await().atMost(WAIT).until(() -> RECEIVED.size() >= expected.length);
        assertThat(RECEIVED).containsExactly(expected);
    }

    private static void sendThenStart(ApplicationContext context, String topic, String id, String... values) {
        KafkoTemplate<Object, Object> template = template(context);
        for (String value : values) {
            template.send(topic, value).join();
        }
        context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id).start();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Replayer extends AbstractConsumerSeekAware {
        @KafkoListener(id = "replayer", topics = "events", concurrency = "2")
        void on(String value) throws InterruptedException {
            if (slow) {
                Thread.sleep(50);
            }
            RECEIVED.add(value);
            if (value.equals(holdAt)) {
                assertThat(hold.await(30, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    static class Rewinder implements ConsumerSeekAware {
        private final ThreadLocal<ConsumerSeekCallback> callback = new ThreadLocal<>();

        @Override
        public void registerSeekCallback(ConsumerSeekCallback callback) {
            this.callback.set(callback);
        }

        @KafkoListener(id = "rewinder", topics = "rewind", autoStartup = "false")
        void on(String value) {
            RECEIVED.add(value);
            if (value.equals("v3") && REWOUND.compareAndSet(false, true)) {
                callback.get().seek("rewind", 0, 1);
            }
        }
    }

    static class BatchRewinder implements ConsumerSeekAware {
        private volatile ConsumerSeekCallback callback;

        @Override
        public void registerSeekCallback(ConsumerSeekCallback callback) {
            this.callback = callback;
        }

        @KafkoListener(id = "batch-rewinder", topics = "rewind-batch", autoStartup = "false", batch = "true")
        void on(List<String> values) {
            BATCHES.add(List.copyOf(values));
            if (REWOUND.compareAndSet(false, true)) {
                callback.seek("rewind-batch", 0, 2);
            }
        }
    }

    static class Holder implements ConsumerSeekAware {
        @Override
        public void registerSeekCallback(ConsumerSeekCallback callback) {
            CALLBACKS.add(callback);
        }

        @Override
        public void onPartitionsAssigned(Map<Integer, Long> assignments, ConsumerSeekCallback callback) {
        }

        @KafkoListener(id = "holder", topics = "held")
        void on(String value) throws InterruptedException {
            RECEIVED.add(value);
            if (value.equals(holdAt) && RECEIVED.size() > 5) {
                assertThat(hold.await(30, TimeUnit.SECONDS)).isTrue();
            }
        }
    }
}
