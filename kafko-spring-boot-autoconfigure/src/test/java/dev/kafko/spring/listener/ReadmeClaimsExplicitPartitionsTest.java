package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.PartitionOffset;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;

/** Claims of the README's section "Explicit partitions", each test quoting the sentence it checks. */
class ReadmeClaimsExplicitPartitionsTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch entered = new CountDownLatch(0);
    static volatile CountDownLatch release = new CountDownLatch(0);

    @RegisterExtension
    final LogCapture log = new LogCapture(ConcurrentMessageListenerContainer.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.topics.orders.partitions=4");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        entered = new CountDownLatch(0);
        release = new CountDownLatch(0);
    }

    /** "instead of {@code topics} or {@code topicPattern} (giving two of them fails start-up naming the listener)". */
    @Test
    void topicPartitionsWithATopicPatternFailsTheStartNamingTheListener() {
        runner.withBean(PatternAndPartitions.class).run(context -> {
            Throwable failure = context.getStartupFailure();
            Throwable invalid = failure;
            while (invalid != null && !(invalid instanceof InvalidKafkoListenerException)) {
                invalid = invalid.getCause();
            }
            assertThat(invalid).as("an InvalidKafkoListenerException in %s", failure).isNotNull()
                    .hasMessageContaining("'mixed'").hasMessageContaining("one of topics, topicPattern and topicPartitions");
        });
    }

    /** "partitions as numbers, comma-separated lists and ranges ({@code "0-5, 7"}), placeholders and SpEL resolved". */
    @Test
    void spelAndACommaSeparatedListOfRangesResolve() {
        runner.withBean(SpelPartitions.class).withPropertyValues("kafko.topics.orders.partitions=8").run(context -> {
            await().atMost(WAIT).until(() -> container(context, "spel").getAssignedPartitions()
                    .equals(Map.of("orders", Set.of(0, 1, 2, 3, 4, 5, 7))));
        });
    }

    /**
     * "Unlike spring-kafka, the position sought is committed at once": the group's commit goes back to the initial
     * offset before the first record after it is processed.
     */
    @Test
    void theInitialOffsetIsCommittedAtOnce() {
        runner.withBean(Rewinding.class).run(context -> {
            for (String value : List.of("a", "b", "c")) {
                template(context).send("orders", 0, null, value).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groupInfo("orders", "rewinding").committed()).containsEntry(0, 3L);
            ConcurrentMessageListenerContainer container = container(context, "rewinding");
            container.stop();

            entered = new CountDownLatch(1);
            release = new CountDownLatch(1);
            container.start();
            assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
            // the listener holds the first record: nothing processed yet, the seek is committed already
            assertThat(kafko.groupInfo("orders", "rewinding").committed()).containsEntry(0, 0L);
            release.countDown();
        });
    }

    /** "and {@code @PartitionOffset} has no {@code seekPosition}". */
    @Test
    void partitionOffsetHasNoSeekPosition() {
        assertThat(Arrays.stream(PartitionOffset.class.getDeclaredMethods()).map(Method::getName))
                .doesNotContain("seekPosition").contains("partition", "initialOffset", "relativeToCurrent");
    }

    /** "A partition without an initial offset starts at the group's commit (else where a group without one starts)". */
    @Test
    void aPartitionWithoutInitialOffsetOrCommitStartsWhereTheResetPolicySays() {
        runner.withPropertyValues("kafko.offset-reset=latest").withBean(LatestReader.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "latest");
            template(context).send("orders", 1, null, "before").join();
            container.start();
            await().atMost(WAIT).until(() -> !container.getAssignedPartitions().isEmpty());
            KafkoTestUtils.waitForListeners(context, WAIT);
            template(context).send("orders", 1, null, "after").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).containsExactly("1:after");
        });
    }

    /** "with fewer partitions than {@code concurrency}, one member each (logged)". */
    @Test
    void fewerPartitionsThanConcurrencyIsLogged() {
        runner.withBean(Narrow.class).run(context -> {
            assertThat(container(context, "narrow").getMembers()).hasSize(2);
            assertThat(log.events()).map(ILoggingEvent::getFormattedMessage).anySatisfy(m -> assertThat(m)
                    .contains("Listener 'narrow' has concurrency 3").contains("2 partition(s) of topic 'orders'"));
        });
    }

    /** "{@code KafkoTestUtils.waitForListeners} (which waits for the listed partitions only)". */
    @Test
    void waitForListenersWaitsForTheListedPartitionsOnly() {
        runner.withBean(Narrow.class).run(context -> {
            template(context).send("orders", 0, null, "not listed").join();
            template(context).send("orders", 1, null, "listed").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).containsExactly("1:listed");
        });
    }

    /**
     * "The topic is created on first use where topics are (with its configured partition count: a listener never grows
     * it)".
     */
    @Test
    void theTopicIsCreatedWithItsConfiguredPartitionCount() {
        runner.withBean(Narrow.class).withPropertyValues("kafko.topics.orders.partitions=5").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(WAIT).until(() -> kafko.topic("orders").isPresent());
            assertThat(kafko.topic("orders").orElseThrow().partitions()).hasSize(5);
        });
    }

    static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class PatternAndPartitions {
        @KafkoListener(id = "mixed", topicPattern = "orders-.*",
                topicPartitions = @TopicPartition(topic = "orders", partitions = "0"))
        void read(String value) {
        }
    }

    static class SpelPartitions {
        @KafkoListener(id = "spel", topicPartitions = @TopicPartition(topic = "#{'ord' + 'ers'}",
                partitions = "#{'0-5, ' + 7}"))
        void read(String value) {
        }
    }

    static class Rewinding {
        @KafkoListener(id = "rewinding", topicPartitions = @TopicPartition(topic = "orders",
                partitionOffsets = @PartitionOffset(partition = "0", initialOffset = "0")))
        void read(String value) throws InterruptedException {
            entered.countDown();
            assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    static class LatestReader {
        @KafkoListener(id = "latest", autoStartup = "false",
                topicPartitions = @TopicPartition(topic = "orders", partitions = "1"))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }

    static class Narrow {
        @KafkoListener(id = "narrow", concurrency = "3",
                topicPartitions = @TopicPartition(topic = "orders", partitions = {"1", "3"}))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition) {
            RECEIVED.add(partition + ":" + value);
        }
    }
}
