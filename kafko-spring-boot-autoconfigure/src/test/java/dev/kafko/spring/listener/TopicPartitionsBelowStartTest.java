package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.TopicPartitionsTest.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.PartitionInfo;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.PartitionOffset;
import dev.kafko.spring.annotation.TopicPartition;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoOptionsCustomizer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;

/**
 * {@link PartitionOffset#initialOffset()} below the log start, after retention deleted the records there: the
 * listener starts at the log start, whatever the offset reset policy, as a position past the end starts at the end
 * ({@link TopicPartitionsPastEndTest}). The engine's consumer would otherwise reset the position as the policy says:
 * to the end under {@code latest}, skipping every record the log keeps, or, under {@code fail}, fail every poll for
 * good.
 */
class TopicPartitionsBelowStartTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.topics.orders.partitions=3", "kafko.topics.orders.segment-size=1KB",
                    "kafko.topics.orders.retention-bytes=1KB")
            .withBean(KafkoOptionsCustomizer.class,
                    () -> builder -> builder.retentionCheckInterval(Duration.ofMillis(50)));

    @BeforeEach
    void reset() {
        RECEIVED.clear();
    }

    @ParameterizedTest
    @ValueSource(strings = {"earliest", "latest", "fail"})
    void anInitialOffsetBelowTheLogStartStartsAtTheLogStart(String policy) {
        eachPartitionIsReadFromItsLogStart(policy, BelowStartReader.class, "below");
    }

    @ParameterizedTest
    @ValueSource(strings = {"earliest", "latest", "fail"})
    void aRestartRelativeToACommitRetentionPassedStartsAtTheLogStart(String policy) {
        runner.withPropertyValues("kafko.offset-reset=" + policy).withBean(RelativeToCommitReader.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            String value = "x".repeat(200);
            template.send("orders", 0, null, value).join();
            template.send("orders", 0, null, value).join();
            ConcurrentMessageListenerContainer container = container(context, "fromCommit");
            container.start();
            KafkoTestUtils.waitForListeners(context, WAIT);
            // (under latest, without a commit, the first start was at the end: the same commit)
            assertThat(kafko.groupInfo("orders", "fromCommit").committed()).isEqualTo(Map.of(0, 2L));
            container.stop();
            await().atMost(WAIT).until(() -> !container.isRunning());
            for (int i = 0; i < 48; i++) {
                template.send("orders", 0, null, value).join();
            }
            await().atMost(WAIT).until(() -> kafko.topic("orders").orElseThrow().partitions().get(0)
                    .logStartOffset() > 2); // retention deleted records past the group's commit
            PartitionInfo p = kafko.topic("orders").orElseThrow().partitions().get(0);
            RECEIVED.clear();

            container.start();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(RECEIVED).as("its log kept from %s", p.logStartOffset())
                    .containsExactlyElementsOf(LongStream.range(p.logStartOffset(), 50)
                            .mapToObj(offset -> "0@" + offset).toList());
            assertThat(kafko.groupInfo("orders", "fromCommit").committed()).isEqualTo(Map.of(0, 50L));
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"latest", "fail"})
    void membersOfAConcurrentContainerEachStartTheirPartitionsAtTheLogStart(String policy) {
        eachPartitionIsReadFromItsLogStart(policy, ConcurrentReader.class, "split");
    }

    /**
     * Fills the three partitions until retention deleted their first segments, starts listener {@code id} and checks
     * that it read each partition from its log start to its end, and committed the end.
     */
    private void eachPartitionIsReadFromItsLogStart(String policy, Class<?> reader, String id) {
        runner.withPropertyValues("kafko.offset-reset=" + policy).withBean(reader).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            String value = "x".repeat(200);
            for (int partition = 0; partition < 3; partition++) {
                for (int i = 0; i < 50; i++) {
                    template.send("orders", partition, null, value).join();
                }
            }
            await().atMost(WAIT).until(() -> kafko.topic("orders").orElseThrow().partitions().stream()
                    .allMatch(p -> p.logStartOffset() > 0)); // retention deleted the first segments
            List<PartitionInfo> partitions = kafko.topic("orders").orElseThrow().partitions();

            container(context, id).start();
            KafkoTestUtils.waitForListeners(context, WAIT);

            for (PartitionInfo p : partitions) {
                assertThat(RECEIVED.stream().filter(r -> r.startsWith(p.partition() + "@")))
                        .as("partition %s, its log kept from %s", p.partition(), p.logStartOffset())
                        .containsExactlyElementsOf(LongStream.range(p.logStartOffset(), p.endOffset())
                                .mapToObj(offset -> p.partition() + "@" + offset).toList());
            }
            assertThat(kafko.groupInfo("orders", id).committed()).isEqualTo(Map.of(0, 50L, 1, 50L, 2, 50L));
        });
    }

    static class RelativeToCommitReader {
        @KafkoListener(id = "fromCommit", autoStartup = "false", topicPartitions = @TopicPartition(topic = "orders",
                partitionOffsets = @PartitionOffset(partition = "0", initialOffset = "0", relativeToCurrent = "true")))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                  @Header(KafkoHeaders.OFFSET) long offset) {
            RECEIVED.add(partition + "@" + offset);
        }
    }

    static class ConcurrentReader {
        @KafkoListener(id = "split", autoStartup = "false", concurrency = "2", topicPartitions = @TopicPartition(
                topic = "orders", partitions = "0-2",
                partitionOffsets = @PartitionOffset(partition = "*", initialOffset = "0")))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                  @Header(KafkoHeaders.OFFSET) long offset) {
            RECEIVED.add(partition + "@" + offset);
        }
    }

    static class BelowStartReader {
        @KafkoListener(id = "below", autoStartup = "false", topicPartitions = @TopicPartition(topic = "orders",
                partitionOffsets = {
                        @PartitionOffset(partition = "0", initialOffset = "0"),
                        @PartitionOffset(partition = "1", initialOffset = "-1000"),
                        @PartitionOffset(partition = "2", initialOffset = "-1000", relativeToCurrent = "true")}))
        void read(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                  @Header(KafkoHeaders.OFFSET) long offset) {
            RECEIVED.add(partition + "@" + offset);
        }
    }
}
