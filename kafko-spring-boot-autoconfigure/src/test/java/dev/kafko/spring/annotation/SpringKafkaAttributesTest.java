package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConsumerStartingEvent;
import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/**
 * The {@code @KafkoListener} attributes that carry spring-kafka's {@code @KafkaListener} attributes of the same names:
 * {@code idIsGroup}, {@code clientIdPrefix}, {@code beanRef}, {@code containerGroup} and {@code splitIterables}.
 */
class SpringKafkaAttributesTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** What the listeners saw: "listener:value@thread". */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final Map<String, Set<String>> THREADS = new ConcurrentHashMap<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void reset() {
        SEEN.clear();
        THREADS.clear();
    }

    // idIsGroup

    static class SharedGroup {
        @KafkoListener(id = "ownGroupless", topics = "shared-in", idIsGroup = false)
        void on(String value) {
            SEEN.add("ownGroupless:" + value);
        }

        @KafkoListener(id = "named", topics = "shared-in", idIsGroup = false, groupId = "explicit")
        void named(String value) {
            SEEN.add("named:" + value);
        }
    }

    @Test
    void aListenerThatIsNotItsOwnGroupJoinsTheConfiguredGroupAndAGroupIdStillWins() {
        runner.withBean(SharedGroup.class).withPropertyValues("kafko.listener.group-id=app-group",
                "kafko.listener.ack-mode=record").run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainer("ownGroupless").getGroupId()).isEqualTo("app-group");
            assertThat(registry.getListenerContainer("named").getGroupId()).isEqualTo("explicit");
            template(context).send("shared-in", "a").join();
            await().atMost(WAIT).until(() -> SEEN.contains("ownGroupless:a") && SEEN.contains("named:a"));
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(WAIT).until(() -> kafko.groupInfo("shared-in", "app-group").committed().get(0) != null);
            assertThat(kafko.groups("shared-in")).contains("app-group", "explicit").doesNotContain("ownGroupless");
        });
    }

    static class Groupless {
        @KafkoListener(id = "groupless", topics = "groupless-in", idIsGroup = false)
        void on(String value) {
        }
    }

    @Test
    void aListenerThatIsNotItsOwnGroupWithoutAConfiguredGroupFailsTheStartNamingIt() {
        runner.withBean(Groupless.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'groupless'")
                .hasStackTraceContaining("idIsGroup = false and no groupId, and kafko.listener.group-id is not set"));
    }

    @Test
    void aConfiguredGroupThatBreaksTheNamingRuleFailsTheStartNamingTheProperty() {
        runner.withBean(Groupless.class).withPropertyValues("kafko.listener.group-id=bad group!")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining("@KafkoListener 'groupless'")
                        .hasStackTraceContaining("(its group from kafko.listener.group-id)")
                        .hasStackTraceContaining("group name 'bad group!' is invalid"));
    }

    // clientIdPrefix

    static class Prefixed {
        @KafkoListener(id = "prefixed", topics = "prefixed-in", clientIdPrefix = "${prefix.name}", concurrency = "2")
        void on(String value) {
            THREADS.computeIfAbsent("prefixed", k -> ConcurrentHashMap.newKeySet()).add(Thread.currentThread().getName());
            SEEN.add("prefixed:" + value);
        }

        @KafkoListener(id = "plain", topics = "prefixed-in")
        void plain(String value) {
            THREADS.computeIfAbsent("plain", k -> ConcurrentHashMap.newKeySet()).add(Thread.currentThread().getName());
            SEEN.add("plain:" + value);
        }
    }

    @Test
    void theClientIdPrefixNamesTheMembersThreadsInPlaceOfTheId() {
        runner.withBean(Prefixed.class).withPropertyValues("prefix.name=billing-client",
                "kafko.topics.prefixed-in.partitions=2").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("prefixed-in", 0, null, "p0").join();
            template.send("prefixed-in", 1, null, "p1").join();
            await().atMost(WAIT).until(() -> SEEN.containsAll(List.of("prefixed:p0", "prefixed:p1", "plain:p0",
                    "plain:p1")));
            assertThat(THREADS.get("prefixed")).containsExactlyInAnyOrder("billing-client-0", "billing-client-1");
            assertThat(THREADS.get("plain")).containsExactly("plain-0");
            // the id still names the container and the group
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("prefixed");
            assertThat(container.getGroupId()).isEqualTo("prefixed");
        });
    }

    static class PrefixedRetries {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 0))
        @KafkoListener(id = "pay", topics = "pay-in", clientIdPrefix = "payments")
        void on(String value, @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_TOPIC)
                String topic) {
            SEEN.add(topic + "@" + Thread.currentThread().getName());
            throw new IllegalStateException("always");
        }

        @DltHandler
        void dead(String value, @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_TOPIC)
                String topic) {
            SEEN.add(topic + "@" + Thread.currentThread().getName());
        }
    }

    @Test
    void theRetryAndDeadLetterContainersOfAPrefixedListenerAreNamedWithThePrefixAndTheirSuffix() {
        runner.withBean(PrefixedRetries.class).run(context -> {
            template(context).send("pay-in", "x").join();
            await().atMost(WAIT).until(() -> SEEN.size() >= 3);
            assertThat(SEEN).containsExactly("pay-in@payments-0", "pay-in-retry@payments-retry-0",
                    "pay-in-dlt@payments-dlt-0");
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("pay", "pay-retry", "pay-dlt");
        });
    }

    // beanRef

    static class Referencing {
        public String getTopic() {
            return "referenced-in";
        }

        @KafkoListener(id = "referencing", topics = "#{me.topic}", beanRef = "me")
        void on(String value) {
            SEEN.add("referencing:" + value);
        }

        @KafkoListener(id = "defaultRef", topics = "#{__listener.topic}")
        void byDefault(String value) {
            SEEN.add("defaultRef:" + value);
        }
    }

    @Test
    void theBeanRefNamesTheListenersBeanInItsExpressions() {
        runner.withBean(Referencing.class).run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(registry.getListenerContainer("referencing").getTopics()).containsExactly("referenced-in");
            assertThat(registry.getListenerContainer("defaultRef").getTopics()).containsExactly("referenced-in");
            template(context).send("referenced-in", "r").join();
            await().atMost(WAIT).until(() -> SEEN.containsAll(List.of("referencing:r", "defaultRef:r")));
        });
    }

    static class WrongRef {
        public String getTopic() {
            return "wrong-ref-in";
        }

        @KafkoListener(id = "wrongRef", topics = "#{__listener.topic}", beanRef = "me")
        void on(String value) {
        }
    }

    @Test
    void withAnotherBeanRefTheDefaultNameIsNoLongerTheBean() {
        runner.withBean(WrongRef.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'wrongRef'").hasStackTraceContaining("__listener"));
    }

    static class BlankRef {
        @KafkoListener(id = "blankRef", topics = "blank-ref-in", beanRef = " ")
        void on(String value) {
        }
    }

    @Test
    void aBlankBeanRefFailsTheStartNamingTheListener() {
        runner.withBean(BlankRef.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("beanRef is blank"));
    }

    // containerGroup

    static class Grouped {
        @KafkoListener(id = "first", topics = "grouped-in", containerGroup = "tenant")
        void first(String value) {
            SEEN.add("first:" + value);
        }

        @KafkoListener(id = "second", topics = "grouped-in", containerGroup = "${group.name}")
        void second(String value) {
            SEEN.add("second:" + value);
        }

        @KafkoListener(id = "outside", topics = "grouped-in")
        void outside(String value) {
            SEEN.add("outside:" + value);
        }
    }

    @Test
    void aContainerGroupStopsAndStartsItsListenersTogetherAndLeavesTheOthersAlone() {
        runner.withBean(Grouped.class).withPropertyValues("group.name=tenant").run(context -> {
            ContainerGroup group = context.getBean("tenant.group", ContainerGroup.class);
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            assertThat(group.getName()).isEqualTo("tenant");
            assertThat(group.getListenerIds()).containsExactlyInAnyOrder("first", "second");
            assertThat(registry.getContainerGroup("tenant")).isSameAs(group);
            assertThat(registry.getContainerGroup("nobody")).isNull();
            assertThat(registry.getListenerContainersMatching(id -> !id.equals("first")))
                    .extracting(MessageListenerContainer::getListenerId).containsExactlyInAnyOrder("second", "outside");
            assertThat(registry.getListenerContainersMatching((id, c) -> group.contains(c)))
                    .extracting(MessageListenerContainer::getListenerId).containsExactlyInAnyOrder("first", "second");
            assertThat(group.isRunning()).isTrue();

            group.stop();
            assertThat(group.allStopped()).isTrue();
            assertThat(registry.getListenerContainer("first").isRunning()).isFalse();
            assertThat(registry.getListenerContainer("second").isRunning()).isFalse();
            assertThat(registry.getListenerContainer("outside").isRunning()).isTrue();
            template(context).send("grouped-in", "while-stopped").join();
            await().atMost(WAIT).until(() -> SEEN.contains("outside:while-stopped"));
            assertThat(SEEN).doesNotContain("first:while-stopped", "second:while-stopped");

            group.start();
            assertThat(registry.getListenerContainer("first").isRunning()).isTrue();
            await().atMost(WAIT).until(() -> SEEN.containsAll(List.of("first:while-stopped", "second:while-stopped")));

            // a container removed from the registry leaves its group
            MessageListenerContainer removed = registry.unregisterListenerContainer("second");
            assertThat(group.getListenerIds()).containsExactly("first");
            assertThat(group.contains(removed)).isFalse();
            group.stop();
            group.start();
            assertThat(removed.isRunning()).isFalse();
        });
    }

    static class Clashing {
        @KafkoListener(id = "clashing", topics = "clash-in", containerGroup = "taken")
        void on(String value) {
        }
    }

    @Test
    void aContainerGroupWhoseBeanNameIsTakenFailsTheStartNamingTheListener() {
        runner.withBean(Clashing.class).withBean("taken.group", String.class, () -> "something else")
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@KafkoListener 'clashing'")
                        .hasStackTraceContaining("containerGroup 'taken' is kept as the bean 'taken.group'"));
    }

    static final List<String> STARTING = new CopyOnWriteArrayList<>();

    static class Starting {
        @EventListener
        void on(ConsumerStartingEvent e) {
            STARTING.add(e.getListenerId());
        }
    }

    @Test
    void aListenerAddedAtRunTimeWhoseContainerGroupBeanNameIsTakenFailsWithoutEverStarting() {
        STARTING.clear();
        runner.withBean(Starting.class).withBean("taken.group", String.class, () -> "something else").run(context -> {
            GenericApplicationContext live = (GenericApplicationContext) context.getSourceApplicationContext();
            live.registerBean("lateClashing", Clashing.class);
            assertThatThrownBy(() -> live.getBean("lateClashing")).rootCause()
                    .hasMessageContaining("@KafkoListener 'clashing'")
                    .hasMessageContaining("containerGroup 'taken' is kept as the bean 'taken.group'");
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("clashing")).isNull();
            // its container was refused before it was registered: no member of it ever started to read
            assertThat(STARTING).doesNotContain("clashing");
        });
    }

    @Test
    void anApplicationsOwnContainerGroupUnderTheGroupsBeanNameFailsTheStartDeclaredBeforeOrAfterTheListener() {
        // spring-kafka registers a group of its own under the name and uses none of the application's: kept as the
        // bean while the listeners joined kafko's group, the application's group stopped none of them
        ContainerGroup own = new ContainerGroup("taken");
        List<ApplicationContextRunner> runners = List.of(
                runner.withBean("taken.group", ContainerGroup.class, () -> own).withBean(Clashing.class),
                runner.withBean(Clashing.class).withBean("taken.group", ContainerGroup.class, () -> own),
                runner.withBean(Clashing.class).withBean("taken.group", ContainerGroup.class, () -> own,
                        definition -> definition.setLazyInit(true)));
        for (ApplicationContextRunner r : runners) {
            r.run(context -> assertThat(context).getFailure()
                    .hasStackTraceContaining("@KafkoListener 'clashing'")
                    .hasStackTraceContaining("containerGroup 'taken' is kept as the bean 'taken.group', which kafko"
                            + " makes itself (as spring-kafka does), but the context already has a ContainerGroup of"
                            + " the application's (dev.kafko.spring.listener.ContainerGroup), which kafko would not"
                            + " use under that name: rename that bean or name another containerGroup"));
        }
        // a bean of another type not yet made (a lazy one) is named by its type, as one made is
        runner.withBean(Clashing.class).withBean("taken.group", String.class, () -> "something else",
                        definition -> definition.setLazyInit(true))
                .run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("but the context already has a bean of type java.lang.String under"
                                + " that name"));
    }

    @Test
    void aListenerAddedAtRunTimeWhoseContainerGroupBeanIsTheApplicationsFailsWithoutEverStarting() {
        STARTING.clear();
        runner.withBean(Starting.class).withBean("taken.group", ContainerGroup.class, () -> new ContainerGroup("taken"))
                .run(context -> {
                    GenericApplicationContext live = (GenericApplicationContext) context.getSourceApplicationContext();
                    live.registerBean("lateClashing", Clashing.class);
                    assertThatThrownBy(() -> live.getBean("lateClashing")).rootCause()
                            .hasMessageContaining("@KafkoListener 'clashing'")
                            .hasMessageContaining("a ContainerGroup of the application's");
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("clashing"))
                            .isNull();
                    assertThat(STARTING).doesNotContain("clashing");
                });
    }

    static class LateGrouped {
        @KafkoListener(id = "lateGrouped", topics = "grouped-late", containerGroup = "tenant",
                containerFactory = "holdingFactory")
        void on(String value) {
            SEEN.add("lateGrouped:" + value);
        }
    }

    /**
     * Launches member threads as the auto-configured factory does, but holds the first launch's caller, the thread
     * starting the container, until released: the container's start has begun (its member runs) and not returned.
     */
    static final class HoldingExecutor implements TaskExecutor {

        private final SimpleAsyncTaskExecutor threads = new SimpleAsyncTaskExecutor("held-");
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HoldingExecutor() {
            threads.setDaemon(true);
        }

        @Override
        public void execute(Runnable task) {
            threads.execute(task);
            if (held.getCount() > 0) {
                held.countDown();
                try {
                    assertThat(release.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Test
    void aListenerAddedAtRunTimeIsInItsContainerGroupBeforeItStartsSoAGroupStopThenStopsIt() throws Exception {
        runner.withBean(Grouped.class).withPropertyValues("group.name=tenant").run(context -> {
            GenericApplicationContext live = (GenericApplicationContext) context.getSourceApplicationContext();
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            ContainerGroup group = context.getBean("tenant.group", ContainerGroup.class);
            HoldingExecutor executor = new HoldingExecutor();
            KafkoListenerContainerFactory holding = context.getBean(KafkoListenerContainerFactory.class).copy();
            holding.setTaskExecutor(executor);
            live.registerBean("holdingFactory", KafkoListenerContainerFactory.class, () -> holding);
            live.registerBean("lateGrouped", LateGrouped.class);
            CompletableFuture<Object> adding = CompletableFuture.supplyAsync(() -> live.getBean("lateGrouped"));
            assertThat(executor.held.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            // its start is under way: the container is in its group already (it joined only after its start)
            MessageListenerContainer late = registry.getListenerContainer("lateGrouped");
            assertThat(late).isNotNull();
            assertThat(group.getListenerIds()).containsExactlyInAnyOrder("first", "second", "lateGrouped");
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(group::stop);
            executor.release.countDown();
            adding.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            stopping.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(group.allStopped()).isTrue();
            assertThat(late.isRunning()).isFalse();
            assertThat(registry.getListenerContainer("outside").isRunning()).isTrue();

            // and a group.start() starts it with the others
            template(context).send("grouped-late", "after").join();
            group.start();
            await().atMost(WAIT).until(() -> SEEN.contains("lateGrouped:after"));
        });
    }

    @Test
    void aContainerMadeInCodeJoinsAGroupOnceRegisteredAndBeforeItsStartAsTheReadmeSays() {
        runner.withBean(Grouped.class).withPropertyValues("group.name=tenant").run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            MessageListenerContainer coded = factory.createListenerContainer("coded", "coded", List.of("grouped-coded"),
                    (records, ack) -> records.forEach(r -> SEEN.add("coded:" + new String(r.value()))));
            registry.registerListenerContainer(coded, false);
            ContainerGroup group = registry.addToGroup("tenant", coded);
            coded.start();
            assertThat(group).isSameAs(context.getBean("tenant.group", ContainerGroup.class));
            assertThat(group.getListenerIds()).containsExactlyInAnyOrder("first", "second", "coded");
            group.stop();
            assertThat(coded.isRunning()).isFalse();
            template(context).send("grouped-coded", "after").join();
            group.start();
            await().atMost(WAIT).until(() -> SEEN.contains("coded:after"));
        });
    }

    // splitIterables

    static class Replying {
        @KafkoListener(id = "whole", topics = "split-in", splitIterables = false)
        @SendTo("whole-out")
        List<String> whole(String value) {
            return List.of(value + "-1", value + "-2");
        }

        @KafkoListener(id = "split", topics = "split-in")
        @SendTo("split-out")
        List<String> split(String value) {
            return List.of(value + "-1", value + "-2");
        }

        @KafkoListener(id = "messages", topics = "split-in", splitIterables = false)
        @SendTo("messages-out")
        List<Message<String>> messages(String value) {
            return List.of(MessageBuilder.withPayload(value + "-m1").build(),
                    MessageBuilder.withPayload(value + "-m2").build());
        }

        @KafkoListener(id = "wholeOut", topics = {"whole-out", "split-out", "messages-out"})
        void out(String value, @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_TOPIC)
                String topic) {
            SEEN.add(topic + ":" + value);
        }
    }

    @Test
    void anIterableResultIsOneRecordWithoutSplittingAndARecordPerElementByDefault() {
        runner.withBean(Replying.class).run(context -> {
            template(context).send("split-in", "v").join();
            await().atMost(WAIT).until(() -> SEEN.size() >= 5);
            KafkoTestUtils.waitForListeners(context, WAIT);
            List<String> seen = new ArrayList<>(SEEN);
            assertThat(seen).containsExactlyInAnyOrder("whole-out:[\"v-1\",\"v-2\"]", "split-out:v-1", "split-out:v-2",
                    "messages-out:v-m1", "messages-out:v-m2");
        });
    }

    static class MixedReplying {
        @KafkoListener(id = "messageFirst", topics = "mixed-in", splitIterables = false)
        @SendTo("message-first-out")
        List<Object> messageFirst(String value) {
            return List.of(MessageBuilder.withPayload(value + "-m").build(), value + "-plain");
        }

        @KafkoListener(id = "plainFirst", topics = "mixed-in", splitIterables = false)
        @SendTo("plain-first-out")
        List<Object> plainFirst(String value) {
            return List.of(value + "-plain", MessageBuilder.withPayload(value + "-m").build());
        }

        @KafkoListener(id = "mixedOut", topics = {"message-first-out", "plain-first-out"})
        void out(String value, @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_TOPIC)
                String topic) {
            SEEN.add(topic + ":" + value);
        }
    }

    @Test
    void withoutSplittingAMixedResultIsSplitWhenItsFirstElementIsAMessageAsSpringKafkaDecides() {
        // spring-kafka's sendResponse looks at the first element only: a Message first splits the whole result, its
        // plain values too; a plain value first sends it whole (kafko split only results of Messages alone)
        runner.withBean(MixedReplying.class).run(context -> {
            template(context).send("mixed-in", "v").join();
            await().atMost(WAIT).until(() -> SEEN.size() >= 3);
            KafkoTestUtils.waitForListeners(context, WAIT);
            List<String> seen = new ArrayList<>(SEEN);
            assertThat(seen).filteredOn(e -> e.startsWith("message-first-out:"))
                    .containsExactlyInAnyOrder("message-first-out:v-m", "message-first-out:v-plain");
            assertThat(seen).filteredOn(e -> e.startsWith("plain-first-out:")).singleElement(as(STRING))
                    .startsWith("plain-first-out:[\"v-plain\",{");
        });
    }

    static class OneShotReplying {
        @KafkoListener(id = "oneShotMessageFirst", topics = "one-shot-in", splitIterables = false)
        @SendTo("one-shot-split-out")
        Iterable<Object> messageFirst(String value) {
            return java.util.stream.Stream.<Object>of(MessageBuilder.withPayload(value + "-m").build(), value + "-plain")
                    ::iterator;
        }

        @KafkoListener(id = "oneShotPlainFirst", topics = "one-shot-in", splitIterables = false)
        @SendTo("one-shot-whole-out")
        Iterable<Object> plainFirst(String value) {
            return java.util.stream.Stream.<Object>of(value + "-1", value + "-2")::iterator;
        }

        @KafkoListener(id = "oneShotOut", topics = {"one-shot-split-out", "one-shot-whole-out"})
        void out(String value, @org.springframework.messaging.handler.annotation.Header(KafkoHeaders.RECEIVED_TOPIC)
                String topic) {
            SEEN.add(topic + ":" + value);
        }
    }

    @Test
    void withoutSplittingAnIterableThatGivesOneIteratorIsReadOnceAndSentWhole() {
        // a stream's iterator can be asked for once: the look at its first element must not use it up
        runner.withBean(OneShotReplying.class).run(context -> {
            template(context).send("one-shot-in", "v").join();
            await().atMost(WAIT).until(() -> SEEN.size() >= 3);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(new ArrayList<>(SEEN)).containsExactlyInAnyOrder("one-shot-split-out:v-m",
                    "one-shot-split-out:v-plain", "one-shot-whole-out:[\"v-1\",\"v-2\"]");
        });
    }

    // info

    static class Informed {
        @KafkoListener(id = "informed", topics = "info-in", info = "${app.info}")
        @SendTo("info-out")
        Message<?> on(Message<String> in, @org.springframework.messaging.handler.annotation.Header(
                KafkoHeaders.LISTENER_INFO) String info) {
            SEEN.add("informed:" + in.getPayload() + "/" + info);
            return MessageBuilder.fromMessage(in).build(); // the received headers, the info among them
        }

        @KafkoListener(id = "informedBatch", topics = "info-in", batch = "true", info = "#{'in bytes'.getBytes()}")
        void batch(List<String> values, @org.springframework.messaging.handler.annotation.Header(
                KafkoHeaders.LISTENER_INFO) String info) {
            SEEN.add("informedBatch:" + values + "/" + info);
        }

        @KafkoListener(id = "uninformed", topics = "info-out")
        void out(dev.kafko.KafkoRecord record, @org.springframework.messaging.handler.annotation.Header(
                name = KafkoHeaders.LISTENER_INFO, required = false) String info) {
            SEEN.add("uninformed:" + new String(record.value()) + "/" + info + "/"
                    + (record.headers().lastValue(KafkoHeaders.LISTENER_INFO) != null));
        }
    }

    @Test
    void theInfoIsAHeaderOfTheListenersMessagesAndIsNeverSentOn() {
        runner.withBean(Informed.class).withPropertyValues("app.info=billing v2").run(context -> {
            template(context).send("info-in", "x").join();
            await().atMost(WAIT).until(() -> SEEN.size() >= 3);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactlyInAnyOrder("informed:x/billing v2", "informedBatch:[x]/in bytes",
                    "uninformed:x/null/false");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }
}
