package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** {@link KafkoListener#properties()}: {@code max.poll.records} and {@code auto.offset.reset} per listener. */
class ListenerPropertiesTest {

    static final List<Integer> SMALL_BATCHES = new CopyOnWriteArrayList<>();
    static final List<Integer> DEFAULT_BATCHES = new CopyOnWriteArrayList<>();
    static final List<String> LATEST = new CopyOnWriteArrayList<>();
    static final List<String> EARLIEST = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.offset-reset=earliest");

    @BeforeEach
    void reset() {
        SMALL_BATCHES.clear();
        DEFAULT_BATCHES.clear();
        LATEST.clear();
        EARLIEST.clear();
    }

    @Test
    void maxPollRecordsBoundsThisListenersPollsAlone() {
        runner.withPropertyValues("kafko.topics.polls.partitions=1", "polls.max=3").withBean(Polls.class)
                .run(context -> {
                    for (int i = 0; i < 20; i++) {
                        template(context).send("polls", "k", "v" + i).join();
                    }
                    registry(context).getListenerContainer("small").start();
                    registry(context).getListenerContainer("default").start();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(SMALL_BATCHES.stream().mapToInt(Integer::intValue).sum()).isEqualTo(20);
                    assertThat(SMALL_BATCHES).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(3))
                            .contains(3);
                    assertThat(DEFAULT_BATCHES).containsExactly(20); // the factory's 500
                });
    }

    @Test
    void autoOffsetResetLatestStartsThisListenersGroupAtTheEndAndCommitsThatStart() {
        runner.withPropertyValues("kafko.topics.resets.partitions=2").withBean(Resets.class).run(context -> {
            template(context).send("resets", 0, "k", "before-0").join();
            template(context).send("resets", 1, "k", "before-1").join();
            KafkoListenerEndpointRegistry registry = registry(context);
            for (String id : List.of("latest", "earliest")) {
                MessageListenerContainer container = registry.getListenerContainer(id);
                container.start();
                KafkoTestUtils.waitForAssignment(container, 2, Duration.ofSeconds(30));
            }
            template(context).send("resets", 0, "k", "after").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(LATEST).containsExactly("after");
            assertThat(EARLIEST).containsExactlyInAnyOrder("before-0", "before-1", "after");
            // the start at the end is committed, so what comes while the listener is stopped is read at its restart
            assertThat(context.getBean(Kafko.class).groupInfo("resets", "latest").committed())
                    .containsEntry(0, 2L).containsEntry(1, 1L);
        });
    }

    @Test
    void theThreeSpellingsOfAnEntryAreRead() {
        runner.withPropertyValues("kafko.topics.spellings.partitions=1").withBean(Spellings.class).run(context -> {
            assertThat(context).hasNotFailed();
            for (int i = 0; i < 7; i++) {
                template(context).send("spellings", "k", "v" + i).join();
            }
            registry(context).getListenerContainer("spellings").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            assertThat(SMALL_BATCHES).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2)).contains(2);
        });
    }

    @Test
    void anEntryKafkoCannotHonourFailsTheStartNamingIt() {
        runner.withPropertyValues("kafko.topics.bad.partitions=1", "bad.entry=max.poll.interval.ms=600000")
                .withBean(Bad.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("@KafkoListener 'bad'")
                        .hasStackTraceContaining("properties names 'max.poll.interval.ms', which kafko has no"
                                + " counterpart of; it takes max.poll.records, auto.offset.reset and isolation.level"));
        runner.withPropertyValues("kafko.topics.bad.partitions=1", "bad.entry=auto.offset.reset=none")
                .withBean(Bad.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("auto.offset.reset 'none' is neither earliest nor latest: a listener"
                                + " whose group has no commit starts somewhere in kafko"));
        runner.withPropertyValues("kafko.topics.bad.partitions=1", "bad.entry=max.poll.records=0")
                .withBean(Bad.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("properties max.poll.records '0' must be at least 1"));
        runner.withPropertyValues("kafko.topics.bad.partitions=1", "bad.entry=max.poll.records")
                .withBean(Bad.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("properties entry 'max.poll.records' is not key=value"));
        runner.withPropertyValues("kafko.topics.bad.partitions=1", "bad.entry=")
                .withBean(Bad.class).run(context -> assertThat(context).hasNotFailed());
    }

    private static KafkoListenerEndpointRegistry registry(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<String, String> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Polls {
        @KafkoListener(id = "small", topics = "polls", batch = "true", autoStartup = "false",
                properties = "max.poll.records=${polls.max}")
        void small(List<String> values) {
            SMALL_BATCHES.add(values.size());
        }

        @KafkoListener(id = "default", topics = "polls", batch = "true", autoStartup = "false")
        void whole(List<String> values) {
            DEFAULT_BATCHES.add(values.size());
        }
    }

    static class Resets {
        @KafkoListener(id = "latest", topics = "resets", autoStartup = "false", properties = "auto.offset.reset=latest")
        void latest(String value) {
            LATEST.add(value);
        }

        @KafkoListener(id = "earliest", topics = "resets", autoStartup = "false")
        void earliest(String value) {
            EARLIEST.add(value);
        }
    }

    static class Spellings {
        @KafkoListener(id = "spellings", topics = "spellings", batch = "true", autoStartup = "false",
                properties = {"max.poll.records:5", "auto.offset.reset earliest", " max.poll.records = 2 "})
        void on(List<String> values) {
            SMALL_BATCHES.add(values.size());
        }
    }

    static class Bad {
        @KafkoListener(id = "bad", topics = "bad", properties = "${bad.entry}")
        void on(String value) {
        }
    }
}
