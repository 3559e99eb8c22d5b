package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.OffsetResetPolicy;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerProperties;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * {@link KafkoListener#properties()} entries as spring-kafka reads them: an entry that resolves to several lines, to
 * a {@code String[]} or to a {@code Collection} of text (spring-kafka's {@code resolveKafkaProperties}), comment
 * lines skipped; anything else refused with a message that says what an entry may resolve to.
 */
class ListenerPropertiesReviewTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.shapes.partitions=1");

    @Test
    void anEntryOfSeveralLinesSetsEachKey() {
        runner.withPropertyValues("listener.props=# tuned for the batch job\nmax.poll.records=7\nauto.offset.reset=latest")
                .withBean(Lines.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    ContainerProperties properties = properties(context, "lines");
                    assertThat(properties.maxPollRecords()).isEqualTo(7);
                    assertThat(properties.offsetReset()).isEqualTo(OffsetResetPolicy.LATEST);
                });
    }

    @Test
    void anEntryResolvingToAStringArraySetsEachElement() {
        runner.withPropertyValues("listener.props=max.poll.records=4,auto.offset.reset=latest")
                .withBean(Array.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    ContainerProperties properties = properties(context, "array");
                    assertThat(properties.maxPollRecords()).isEqualTo(4);
                    assertThat(properties.offsetReset()).isEqualTo(OffsetResetPolicy.LATEST);
                });
    }

    @Test
    void anEntryResolvingToACollectionSetsEachElement() {
        runner.withBean("props", List.class, () -> List.of("max.poll.records=3", "auto.offset.reset=latest"))
                .withBean(Listed.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    ContainerProperties properties = properties(context, "listed");
                    assertThat(properties.maxPollRecords()).isEqualTo(3);
                    assertThat(properties.offsetReset()).isEqualTo(OffsetResetPolicy.LATEST);
                });
    }

    @Test
    void aKeyKafkoCannotHonourInAnArrayFailsTheStartNamingIt() {
        runner.withPropertyValues("listener.props=max.poll.records=4,session.timeout.ms=1000")
                .withBean(Array.class).run(context -> assertThat(context).getFailure()
                        .hasStackTraceContaining("properties names 'session.timeout.ms'"));
    }

    @Test
    void anEntryResolvingToAnythingElseFailsSayingWhatItMayResolveTo() {
        runner.withBean(Mapped.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'mapped'")
                .hasStackTraceContaining("Map; an entry resolves to text (key=value lines), a String[] or a"
                        + " Collection of text, as in spring-kafka"));
    }

    @Test
    void theMainContainerOfARetryableTopicListenerAClassLevelOneAndOneBehindALateProxyKeepTheirProperties() {
        runner.withPropertyValues("kafko.topics.kept.partitions=1")
                .withBean(ProxiedListenerTest.LateProxying.class, () -> new ProxiedListenerTest.LateProxying(true,
                        "proxied"))
                .withBean(Retried.class).withBean(ClassLevel.class).withBean("proxied", Proxied.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("proxied").getClass().getName()).contains("SpringCGLIB");
                    for (String id : List.of("retried", "class-level", "proxied")) {
                        ContainerProperties properties = properties(context, id);
                        assertThat(properties.maxPollRecords()).as(id).isEqualTo(6);
                        assertThat(properties.offsetReset()).as(id).isEqualTo(OffsetResetPolicy.LATEST);
                    }
                });
    }

    /**
     * Its retry and dead-letter containers take its {@code max.poll.records}, as spring-kafka's take its properties,
     * but not an {@code auto.offset.reset}: a retry topic's group that started at the end would skip what was forwarded
     * to it before its first poll.
     */
    @Test
    void theRetryAndDeadLetterContainersTakeTheMaxPollRecordsButNotTheOffsetReset() {
        runner.withPropertyValues("kafko.topics.kept.partitions=1").withBean(Retried.class).run(context -> {
            assertThat(context).hasNotFailed();
            for (String id : List.of("retried-retry", "retried-dlt")) {
                ContainerProperties properties = properties(context, id);
                assertThat(properties.maxPollRecords()).as(id).isEqualTo(6);
                assertThat(properties.offsetReset()).as(id).isNull();
            }
        });
    }

    private static ContainerProperties properties(ApplicationContext context, String id) {
        return ((ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id)).getContainerProperties();
    }

    static class Lines {
        @KafkoListener(id = "lines", topics = "shapes", autoStartup = "false", properties = "${listener.props}")
        void on(String value) {
        }
    }

    static class Array {
        @KafkoListener(id = "array", topics = "shapes", autoStartup = "false",
                properties = "#{'${listener.props}'.split(',')}")
        void on(String value) {
        }
    }

    static class Listed {
        @KafkoListener(id = "listed", topics = "shapes", autoStartup = "false", properties = "#{@props}")
        void on(String value) {
        }
    }

    static class Mapped {
        @KafkoListener(id = "mapped", topics = "shapes", autoStartup = "false",
                properties = "#{{'max.poll.records': '3', 'auto.offset.reset': 'latest'}}")
        void on(String value) {
        }
    }

    static class Retried {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "retried", topics = "kept", autoStartup = "false",
                properties = {"max.poll.records=6", "auto.offset.reset=latest"})
        void on(String value) {
        }
    }

    @KafkoListener(id = "class-level", topics = "kept", autoStartup = "false",
            properties = {"max.poll.records=6", "auto.offset.reset=latest"})
    static class ClassLevel {
        @KafkoHandler
        void on(String value) {
        }
    }

    static class Proxied {
        @KafkoListener(id = "proxied", topics = "kept", autoStartup = "false",
                properties = {"max.poll.records=6", "auto.offset.reset=latest"})
        public void on(String value) {
        }
    }
}
