package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoStorageException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.transaction.KafkoTransactionManager;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A record that fails in the middle of a poll: the records of the poll processed before it are committed before its
 * retries' back-off, as spring-kafka's container commits (under the ack mode's rules) before its error handler
 * seeks and backs off; a crash during a long back-off then repeats the failing record, not those. Nothing from the
 * failing record on is committed while it is being retried.
 */
class CommitBeforeBackOffTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The values delivered, in order, attempts included. */
    static final List<String> DELIVERED = new CopyOnWriteArrayList<>();
    /** The failed deliveries of the failing record. */
    static final AtomicInteger FAILURES = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                    "kafko.listener.max-poll-records=10", "kafko.listener.retry.max-attempts=3",
                    "kafko.listener.retry.backoff=1h");

    @BeforeEach
    void reset() {
        DELIVERED.clear();
        FAILURES.set(0);
        FULL.set(false);
        COMMITS_REFUSED.set(0);
    }

    @Test
    void batchCommitsTheRecordsBeforeTheFailingOneBeforeItsBackOff() {
        runner.withBean(FailsOnTwo.class).run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void countCommitsTheRecordsBeforeTheFailingOneBeforeItsBackOffOnceAckCountIsReached() {
        runner.withBean(FailsOnTwo.class)
                .withPropertyValues("kafko.listener.ack-mode=count", "kafko.listener.ack-count=2")
                .run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void timeCommitsTheRecordsBeforeTheFailingOneBeforeItsBackOffOnceAckTimePassed() {
        runner.withBean(FailsOnTwo.class)
                .withPropertyValues("kafko.listener.ack-mode=time", "kafko.listener.ack-time=1ms")
                .run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void manualCommitsWhatWasAcknowledgedBeforeTheFailingRecordBeforeItsBackOff() {
        runner.withBean(AcknowledgesAndFailsOnTwo.class).withPropertyValues("kafko.listener.ack-mode=manual")
                .run(context -> assertCommittedBeforeTheBackOff(context, "acknowledging"));
    }

    @Test
    void manualCommitsWhatWasAcknowledgedOnAnotherThreadBeforeTheFailingRecordBeforeItsBackOff() {
        // the acknowledgments queued for the polling thread are taken before the error handler gets the failed record
        runner.withBean(AcknowledgesElsewhereAndFailsOnTwo.class).withPropertyValues("kafko.listener.ack-mode=manual")
                .run(context -> assertCommittedBeforeTheBackOff(context, "acknowledging-elsewhere"));
    }

    @Test
    void manualDoesNotCommitTheAcknowledgmentOfTheFailingRecordBeforeItsBackOff() {
        // acknowledged in a finally block, then thrown: the record is not dealt with until its retries are
        runner.withBean(AcknowledgesAlwaysAndFailsOnTwo.class).withPropertyValues("kafko.listener.ack-mode=manual")
                .run(context -> assertCommittedBeforeTheBackOff(context, "acknowledging-always", false));
    }

    @Test
    void aBatchAcknowledgedWholeThatNamesTheFailedRecordHasOnlyTheRecordsBeforeItCommittedBeforeItsBackOff() {
        runner.withBean(BatchAcknowledgesAndFailsOnTwo.class).withPropertyValues("kafko.listener.ack-mode=manual")
                .run(context -> assertCommittedBeforeTheBackOff(context, "batch-acknowledging", false));
    }

    @Test
    void inATransactionTheRecordsBeforeTheFailingOneAreCommittedBeforeItsBackOff() {
        // each attempt's transaction committed before the container commits its offsets
        runner.withUserConfiguration(WithManager.class).withBean(FailsOnTwo.class)
                .withPropertyValues("kafko.template.transactional=true",
                        "kafko.template.allow-non-transactional=true")
                .run(context -> assertCommittedBeforeTheBackOff(context, "failing"));
    }

    @Test
    void aBatchThatNamesTheFailedRecordHasTheRecordsBeforeItCommittedBeforeItsBackOff() {
        runner.withBean(BatchFailsOnTwo.class).run(context -> assertCommittedBeforeTheBackOff(context, "batcher"));
    }

    @Test
    void aBatchThatNamesTheFailedRecordHasTheRecordsBeforeItCommittedBeforeItsBackOffWhateverTheAckMode() {
        // spring-kafka's error handler commits them itself, before it seeks and backs off
        runner.withBean(BatchFailsOnTwo.class)
                .withPropertyValues("kafko.listener.ack-mode=time", "kafko.listener.ack-time=1h")
                .run(context -> assertCommittedBeforeTheBackOff(context, "batcher"));
    }

    /**
     * Two partitions in one poll, read partition by partition: what the poll holds after the failing record (the rest
     * of its partition, and the other partition's records when that comes after it) is not processed and not
     * committed; what came before it in the poll is, partition by partition.
     */
    @Test
    void onlyWhatThePollDeliveredBeforeTheFailingRecordIsCommittedInEachPartition() {
        runner.withBean(FailsOnTwoOfTwoPartitions.class).withPropertyValues("kafko.topics.two-parts.partitions=2")
                .run(context -> assertEachPartitionCommittedUpToTheFailingRecord(context, "two-parts-listener"));
    }

    @Test
    void aBatchNamingItsFailedRecordCommitsOnlyWhatComesBeforeItInEachPartition() {
        runner.withBean(BatchFailsOnTwoOfTwoPartitions.class)
                .withPropertyValues("kafko.topics.two-parts.partitions=2")
                .run(context -> assertEachPartitionCommittedUpToTheFailingRecord(context, "two-parts-batcher"));
    }

    /** A commit that fails at this point (a full disk) is logged: the failed record still goes to its retries. */
    @Test
    void aCommitFailingBeforeTheErrorHandlerLeavesTheRetriesAndTheMemberAsTheyWere() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(FailingCommits.class).withBean(FailsOnTwo.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms",
                        "kafko.listener.max-poll-records=10", "kafko.listener.retry.max-attempts=3",
                        "kafko.listener.retry.backoff=10ms")
                .run(context -> {
                    FULL.set(true);
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    for (int i = 0; i < 5; i++) {
                        template.send("backed-off", "v" + i).join();
                    }
                    MessageListenerContainer container =
                            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("failing");
                    container.start();
                    // the three attempts of v2, then v3 and v4: the failed commit did not end the member
                    await().atMost(WAIT).until(() -> DELIVERED.size() == 7);
                    assertThat(DELIVERED).containsExactly("v0", "v1", "v2", "v2", "v2", "v3", "v4");
                    assertThat(FAILURES).hasValue(3);
                    assertThat(COMMITS_REFUSED.get()).isPositive();
                    assertThat(container.isRunning()).isTrue();

                    FULL.set(false);
                    template.send("backed-off", "v5").join();
                    await().atMost(WAIT).until(() -> committed(context, "failing") == 6L);
                });
    }

    private static void assertEachPartitionCommittedUpToTheFailingRecord(ApplicationContext context, String id) {
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < 5; i++) {
                template.send("two-parts", p, null, "p" + p + "v" + i).join();
            }
        }
        MessageListenerContainer container =
                context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id);
        container.start();
        await().atMost(WAIT).until(() -> FAILURES.get() == 1); // the first partition's third record failed

        // delivered before it: its partition's first two, and the other partition's records if that came first
        Map<Integer, Long> expected = new HashMap<>();
        String failed = DELIVERED.get(DELIVERED.size() - 1);
        for (String value : DELIVERED.subList(0, DELIVERED.size() - 1)) {
            expected.merge(value.charAt(1) - '0', 1L, Long::sum);
        }
        assertThat(failed).endsWith("v2");
        for (Map.Entry<Integer, Long> next : expected.entrySet()) {
            await().atMost(WAIT).until(() -> committed(context, "two-parts", id, next.getKey()) >= next.getValue());
        }
        assertThat(DELIVERED).as("nothing after the failing record was delivered").hasSize(expected.values()
                .stream().mapToInt(Long::intValue).sum() + 1);

        container.stop(); // ends the back-off
        for (int p = 0; p < 2; p++) {
            assertThat(committed(context, "two-parts", id, p)).as("partition %d", p)
                    .isEqualTo(expected.getOrDefault(p, -1L));
        }
    }

    private static long committed(ApplicationContext context, String topic, String group, int partition) {
        return context.getBean(Kafko.class).groupInfo(topic, group).committed().getOrDefault(partition, -1L);
    }

    private static void assertCommittedBeforeTheBackOff(ApplicationContext context, String id) {
        assertCommittedBeforeTheBackOff(context, id, true);
    }

    /**
     * {@code stopLeavesIt}: a stop leaves the failing record uncommitted; false where the listener acknowledged it
     * before it threw, which a stop commits as the listener asked.
     */
    private static void assertCommittedBeforeTheBackOff(ApplicationContext context, String id, boolean stopLeavesIt) {
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (int i = 0; i < 5; i++) {
            template.send("backed-off", "v" + i).join();
        }
        MessageListenerContainer container =
                context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(id);
        container.start();
        await().atMost(WAIT).until(() -> FAILURES.get() == 1); // v2 failed: an hour's back-off begins

        // v0 and v1 are committed while v2 waits for its retry, not an hour later (in one commit: never v2 with them)
        await().atMost(WAIT).until(() -> committed(context, id) >= 2L);
        assertThat(committed(context, id)).as("nothing from the failing record on").isEqualTo(2L);
        assertThat(DELIVERED).containsExactly("v0", "v1", "v2");

        container.stop(); // ends the back-off: v2 was not dealt with
        if (stopLeavesIt) {
            assertThat(committed(context, id)).as("nothing from the failing record on").isEqualTo(2L);
        }
        assertThat(DELIVERED).containsExactly("v0", "v1", "v2");
    }

    private static long committed(ApplicationContext context, String group) {
        return context.getBean(Kafko.class).groupInfo("backed-off", group).committed().getOrDefault(0, -1L);
    }

    static class FailsOnTwoOfTwoPartitions {

        @KafkoListener(id = "two-parts-listener", topics = "two-parts", autoStartup = "false")
        void on(String value) {
            DELIVERED.add(value);
            if (value.endsWith("v2")) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("no " + value);
            }
        }
    }

    static class BatchFailsOnTwoOfTwoPartitions {

        @KafkoListener(id = "two-parts-batcher", topics = "two-parts", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            for (int i = 0; i < values.size(); i++) {
                String value = values.get(i);
                DELIVERED.add(value);
                if (value.endsWith("v2")) {
                    FAILURES.incrementAndGet();
                    throw new BatchListenerFailedException("no " + value, i);
                }
            }
        }
    }

    static class FailsOnTwo {

        @KafkoListener(id = "failing", topics = "backed-off", autoStartup = "false")
        void on(String value) {
            DELIVERED.add(value);
            if (value.equals("v2")) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("no " + value);
            }
        }
    }

    static class BatchFailsOnTwo {

        @KafkoListener(id = "batcher", topics = "backed-off", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            for (int i = 0; i < values.size(); i++) {
                String value = values.get(i);
                DELIVERED.add(value);
                if (value.equals("v2")) {
                    FAILURES.incrementAndGet();
                    throw new BatchListenerFailedException("no " + value, i);
                }
            }
        }
    }

    static class AcknowledgesAndFailsOnTwo {

        @KafkoListener(id = "acknowledging", topics = "backed-off", autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            DELIVERED.add(value);
            if (value.equals("v2")) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("no " + value);
            }
            ack.acknowledge();
        }
    }

    /** Whether the commits fail as on a full disk ({@link FailingCommits}), and how many did. */
    static final AtomicBoolean FULL = new AtomicBoolean();
    static final AtomicInteger COMMITS_REFUSED = new AtomicInteger();

    @Configuration(proxyBeanMethods = false)
    static class FailingCommits {

        @Bean
        LogBackend failingCommitsBackend(Kafko kafko, KafkoTopicProvisioner topics) {
            return new DelegatingBackend(new KafkoBackend(kafko, topics),
                    c -> new DelegatingBackend.DelegatingConsumer(c) {
                        @Override
                        public void commit(Map<Integer, Long> offsets) {
                            if (FULL.get()) {
                                COMMITS_REFUSED.incrementAndGet();
                                throw new KafkoStorageException("write offsets failed: No space left on device");
                            }
                            super.commit(offsets);
                        }
                    });
        }
    }

    static class AcknowledgesElsewhereAndFailsOnTwo {

        @KafkoListener(id = "acknowledging-elsewhere", topics = "backed-off", autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            DELIVERED.add(value);
            if (value.equals("v2")) {
                FAILURES.incrementAndGet();
                throw new IllegalStateException("no " + value);
            }
            CompletableFuture.runAsync(ack::acknowledge).join();
        }
    }

    static class AcknowledgesAlwaysAndFailsOnTwo {

        @KafkoListener(id = "acknowledging-always", topics = "backed-off", autoStartup = "false")
        void on(String value, Acknowledgment ack) {
            try {
                DELIVERED.add(value);
                if (value.equals("v2")) {
                    FAILURES.incrementAndGet();
                    throw new IllegalStateException("no " + value);
                }
            } finally {
                ack.acknowledge();
            }
        }
    }

    static class BatchAcknowledgesAndFailsOnTwo {

        @KafkoListener(id = "batch-acknowledging", topics = "backed-off", batch = "true", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            ack.acknowledge();
            for (int i = 0; i < values.size(); i++) {
                String value = values.get(i);
                DELIVERED.add(value);
                if (value.equals("v2")) {
                    FAILURES.incrementAndGet();
                    throw new BatchListenerFailedException("no " + value, i);
                }
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class WithManager {

        @Bean
        KafkoTransactionManager kafkoTransactionManager(LogBackend backend) {
            return new KafkoTransactionManager(backend);
        }
    }
}
