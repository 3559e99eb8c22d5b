package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.Compression;
import dev.kafko.InvalidConfigException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Topic;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.health.KafkoHealthIndicator;
import dev.kafko.spring.listener.DeadLetterPublishingRecoverer;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.LoggingRecordRecoverer;
import dev.kafko.spring.metrics.KafkoMetrics;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.util.FileSystemUtils;

@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
class KafkoAutoConfigurationTest {

    static final AutoConfigurations ALL = AutoConfigurations.of(KafkoAutoConfiguration.class,
            KafkoMetricsAutoConfiguration.class, KafkoHealthAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(ALL).withPropertyValues("kafko.ephemeral=true");

    @Test
    void ephemeralContextHasEveryBeanAndDeletesItsDirectoryOnClose() {
        AtomicReference<Path> dir = new AtomicReference<>();
        runner.run(context -> {
            assertThat(context).hasNotFailed()
                    .hasSingleBean(Kafko.class).hasSingleBean(KafkoTemplate.class).hasSingleBean(LogBackend.class)
                    .hasSingleBean(KafkoListenerEndpointRegistry.class)
                    .hasSingleBean(KafkoListenerContainerFactory.class).hasSingleBean(KafkoErrorHandler.class)
                    .hasBean(KafkoListenerAnnotationBeanPostProcessor.BEAN_NAME)
                    .hasBean(KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME)
                    .hasBean("kafkoHealthIndicator")
                    .doesNotHaveBean(KafkoMetrics.class);
            dir.set(context.getBean(Kafko.class).dataDir());
            // the directory is deleted on close: neither its topic metadata nor its close is forced to disk
            assertThat(context.getBean(Kafko.class).options().fsyncMetadata()).isFalse();
            assertThat(context.getBean(Kafko.class).options().durableClose()).isFalse();
            assertThat(dir.get()).isDirectory();
        });
        assertThat(dir.get()).doesNotExist();
    }

    @Test
    void dataDirPropertyPlacesTheLogAndKeepsItAfterClose(@TempDir Path tmp) {
        Path dir = tmp.resolve("log");
        new ApplicationContextRunner().withConfiguration(ALL)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.linger=250us",
                        "kafko.max-queued-bytes=2MB", "kafko.max-block=5s", "kafko.compaction-buffer-size=4MB")
                .run(context -> {
                    assertThat(context.getBean(Kafko.class).dataDir()).isEqualTo(dir);
                    assertThat(context.getBean(Kafko.class).options().fsyncMetadata()).isTrue();
                    assertThat(context.getBean(Kafko.class).options().durableClose()).isTrue();
                    assertThat(context.getBean(Kafko.class).options().linger()).isEqualTo(Duration.ofNanos(250_000));
                    assertThat(context.getBean(Kafko.class).options().maxQueuedBytes()).isEqualTo(2L << 20);
                    assertThat(context.getBean(Kafko.class).options().maxBlock()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(context.getBean(Kafko.class).options().compactionBufferBytes()).isEqualTo(4L << 20);
                    context.getBean(Kafko.class).createTopic("kept");
                });
        assertThat(dir).isDirectory();
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.topics()).contains("kept");
        }
    }

    @Test
    void enabledFalseSwitchesEverythingOff() {
        runner.withPropertyValues("kafko.enabled=false").withBean(SimpleMeterRegistry.class).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(Kafko.class).doesNotHaveBean(KafkoTemplate.class)
                        .doesNotHaveBean(KafkoListenerEndpointRegistry.class).doesNotHaveBean(KafkoMetrics.class)
                        .doesNotHaveBean("kafkoHealthIndicator"));
    }

    @Test
    void applicationBeansReplaceTheDefaults() {
        runner.withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context.getBean(KafkoErrorHandler.class)).isSameAs(OwnBeans.HANDLER);
            assertThat(context.getBean(Kafko.class).dataDir()).isEqualTo(context.getBean(OwnDir.class).path());
            assertThat(context).doesNotHaveBean(KafkoDataDirectory.class);
        });
    }

    @Test
    void defaultErrorHandlerLogsAndSkipsUnlessDeadLettersAreEnabled() {
        runner.run(context -> assertThat(((DefaultErrorHandler) context.getBean(KafkoErrorHandler.class))
                .getRecoverer()).isInstanceOf(LoggingRecordRecoverer.class));
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true").run(context ->
                assertThat(((DefaultErrorHandler) context.getBean(KafkoErrorHandler.class)).getRecoverer())
                        .isInstanceOf(DeadLetterPublishingRecoverer.class));
    }

    @Test
    void retryAttemptsBelowOneFailStartUp() {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=0").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("max-attempts must be at least 1"));
    }

    @Test
    void aKeyThatNamesNoPropertyFailsStartUpNamingIt() {
        for (String typo : List.of("kafko.topics.small.max-record-bytes=200", "kafko.defaults.retention-ms=1000",
                "kafko.linger-ms=1", "kafko.listener.retry.max-attempt=3")) {
            String key = typo.substring(0, typo.indexOf('='));
            runner.withPropertyValues(typo).run(context -> assertThat(context).getFailure().as(typo)
                    .hasStackTraceContaining(key));
        }
        // an environment variable of the same prefix that is not kafko's (KAFKO_HOME of an installation script)
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addLast(
                        new org.springframework.core.env.SystemEnvironmentPropertySource("env",
                                java.util.Map.of("KAFKO_HOME", "/opt/kafko", "KAFKO_DATA_DIR", "/tmp/x"))))
                .run(context -> assertThat(context).hasNotFailed());
        // a dotted topic name without brackets: the analysis names the topic and gives the bracket form
        runner.withPropertyValues("kafko.topics.orders.DLT.partitions=2").run(context -> {
            org.springframework.boot.diagnostics.FailureAnalysis analysis =
                    new DottedTopicKeyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("kafko.topics.orders.DLT.partitions", "'orders.DLT'");
            assertThat(analysis.getAction()).contains("kafko.topics[orders.DLT].partitions", "\"[orders.DLT]\":");
        });
        // other unbound keys are left to the analysis of unknown keys (UnknownKafkoKeyFailureAnalyzer)
        runner.withPropertyValues("kafko.topics.small.max-record-bytes=200").run(context ->
                assertThat(new DottedTopicKeyFailureAnalyzer().analyze(context.getStartupFailure())).isNull());
        // declared topic names with dots go in brackets, and bind
        runner.withPropertyValues("kafko.topics[orders.DLT].partitions=2", "kafko.topics.orders.max-record-size=200")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void listenerValuesOutOfRangeFailStartUpNamingTheirProperty() {
        runner.withPropertyValues("kafko.listener.concurrency=0").run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("kafko.listener.concurrency must be at least 1, was 0"));
        runner.withPropertyValues("kafko.listener.max-poll-records=-1").run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("kafko.listener.max-poll-records must be at least 1, was -1"));
        runner.withPropertyValues("kafko.listener.poll-timeout=0s").run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("kafko.listener.poll-timeout must be positive, was PT0S"));
        for (String negative : List.of("kafko.listener.shutdown-timeout=-5s", "kafko.listener.retry.backoff=-1s",
                "kafko.linger=-1ms", "kafko.max-block=-1s", "kafko.health.min-free-disk=-1MB")) {
            String property = negative.substring(0, negative.indexOf('='));
            runner.withPropertyValues(negative).run(context -> {
                assertThat(context).getFailure().as(negative)
                        .hasStackTraceContaining(property + " must not be negative, was");
                InvalidKafkoPropertyException cause = findCause(context.getStartupFailure(),
                        InvalidKafkoPropertyException.class);
                assertThat(cause.getProperty()).isEqualTo(property);
                assertThat(new InvalidKafkoPropertyFailureAnalyzer(null).analyze(context.getStartupFailure()).getAction())
                        .contains("Update " + property);
            });
        }
    }

    @Test
    void aDataDirThatIsAFileFailsStartUpNamingTheProperty(@TempDir Path tmp) throws Exception {
        Path file = Files.createFile(tmp.resolve("not-a-dir"));
        runner.withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + file).run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("kafko.data-dir names " + file
                        + ", which is a file, not a directory"));
    }

    @Test
    void kafkosOwnStartUpFailuresGetAnAnalysisAtTheTopOfTheReport(@TempDir Path dir) throws Exception {
        ApplicationContextRunner onDir = new ApplicationContextRunner().withConfiguration(ALL)
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withPropertyValues("kafko.topics.t.partitions=2").run(context -> assertThat(context).hasNotFailed());
        onDir.withPropertyValues("kafko.topics.t.partitions=1").run(context -> {
            assertThat(context).hasFailed();
            org.springframework.boot.diagnostics.FailureAnalysis analysis =
                    new KafkoStartupFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .startsWith("kafko could not start: kafko.topics.t.partitions=1 would shrink topic 't'");
        });
        try (Kafko log = Kafko.open(dir)) {
            log.producer("t").send(null, new byte[] {1}).join();
        }
        Files.delete(dir.resolve("t").resolve("topic.conf")); // records left without their topic's config
        onDir.withPropertyValues("kafko.topics.t.partitions=2").run(context -> {
            assertThat(context).hasFailed();
            assertThat(new KafkoStartupFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                    .as("the type, as a stack trace would begin")
                    .startsWith("kafko could not start: InvalidTopicLayoutException: ").contains("'t'", "holds data");
        });
        runner.withPropertyValues("kafko.defaults.segment-size=1B").run(context -> {
            assertThat(new KafkoStartupFailureAnalyzer().analyze(context.getStartupFailure()))
                    .as("left to the analysis of invalid properties").isNull();
            assertThat(new InvalidKafkoPropertyFailureAnalyzer(null).analyze(context.getStartupFailure())
                    .getDescription()).contains("kafko.defaults.segment-size is refused: segmentBytes must be");
        });
    }

    static class UndeclaredRetryTopics {
        @RetryableTopic(attempts = "4", backOff = @BackOff(delay = 10, multiplier = 2))
        @KafkoListener(id = "payments", topics = "payments")
        void on(String value) {
        }
    }

    @Test
    void undeclaredRetryTopicsUnderNoAutoCreationAreNamedAllAtOnceAtTheTopOfTheReport() {
        // a multiplied back-off of four attempts reads and writes three retry topics and a dead-letter topic: a user
        // who declared none must be told of all four, and the analysis at the top of the report must say so (not the
        // first topic alone, found by the engine, which would take four starts to find them all)
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.payments.partitions=6")
                .withBean(UndeclaredRetryTopics.class).run(context -> {
                    assertThat(context).hasFailed();
                    org.springframework.boot.diagnostics.FailureAnalysis analysis =
                            new KafkoStartupFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("@RetryableTopic listener of topic 'payments'")
                            .contains("kafko.topics.payments-retry-10.partitions=6",
                                    "kafko.topics.payments-retry-20.partitions=6",
                                    "kafko.topics.payments-retry-40.partitions=6",
                                    "kafko.topics.payments-dlt.partitions=6")
                            .contains("or set kafko.auto-create-topics=true");
                });
    }

    static class DeadLettered {
        @KafkoListener(id = "orders", topics = "orders")
        void on(String value) {
        }
    }

    @Test
    void anUndeclaredDeadLetterTopicUnderNoAutoCreationIsNamedWithItsPropertyAtTheTopOfTheReport() {
        // the analysis at the top of the report must say which property to declare, not only the engine's "no such
        // topic", which it found as the cause
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.orders.partitions=3",
                "kafko.listener.dead-letter.enabled=true").withBean(DeadLettered.class).run(context -> {
                    assertThat(context).hasFailed();
                    org.springframework.boot.diagnostics.FailureAnalysis analysis =
                            new KafkoStartupFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("Dead letters of topic 'orders' go to 'orders.DLT', which does not exist")
                            .contains("kafko.topics[orders.DLT].partitions")
                            .contains("or set kafko.auto-create-topics=true");
                });
    }

    @Test
    void theOffsetResetPropertyDecidesWhereANewGroupStarts() {
        runner.withPropertyValues("kafko.offset-reset=latest").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.options().offsetReset()).isEqualTo(dev.kafko.OffsetResetPolicy.LATEST);
            kafko.createTopic("t");
            kafko.producer("t").send(null, new byte[] {1}).join();
            try (dev.kafko.Consumer c = kafko.groupConsumer("t", "new-group")) {
                assertThat(c.poll(Duration.ofMillis(200))).isEmpty();
                kafko.producer("t").send(null, new byte[] {2}).join();
                assertThat(c.poll(Duration.ofSeconds(5))).extracting(KafkoRecord::offset).containsExactly(1L);
            }
        });
    }

    @Test
    void aListenerWithAnInvalidTopicOrGroupFailsAtRegistrationNamingIt() {
        runner.withBean(BadTopic.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'bad-topic' on BadTopic.on: topic name 'bad!' is invalid"));
        runner.withBean(BadGroup.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'bad-group' on BadGroup.on: group name 'a group' is invalid"));
        runner.withBean(BadReply.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'bad-reply' on BadReply.on: topic name 'no/slash' is invalid"));
    }

    /**
     * A suspend function is run as a coroutine through kotlinx-coroutines-reactor (kafko-kotlin-tests proves that with
     * real Kotlin); this module's tests have neither it nor kotlin-reflect, as an application that forgot them: the
     * listener fails start-up naming both, instead of having its records fail unrun and be committed.
     */
    @Test
    void aKotlinSuspendFunctionListenerFailsStartUpInsteadOfHavingItsRecordsCommittedUnrun() {
        runner.withBean(SuspendListener.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'suspended' on SuspendListener.on is a Kotlin suspend function")
                .hasStackTraceContaining("add org.jetbrains.kotlinx:kotlinx-coroutines-reactor and"
                        + " org.jetbrains.kotlin:kotlin-reflect to the application's dependencies"));
    }

    @Test
    void aListenerDeclaredToReturnAFluxFailsStartUpInsteadOfFailingEveryRecord() {
        runner.withBean(FluxListener.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@KafkoListener 'fluxed' on FluxListener.on returns a reactor.core.publisher.Flux,"
                        + " which may hold many values"));
    }

    static class FluxListener {
        @dev.kafko.spring.annotation.KafkoListener(id = "fluxed", topics = "fluxed")
        reactor.core.publisher.Flux<String> on(String value) {
            return reactor.core.publisher.Flux.just(value, value);
        }
    }

    /** What a Kotlin {@code suspend fun on(value: String)} compiles to. */
    static class SuspendListener {
        @dev.kafko.spring.annotation.KafkoListener(id = "suspended", topics = "suspended")
        Object on(String value, kotlin.coroutines.Continuation<Object> continuation) {
            return null;
        }
    }

    @Test
    void anInvalidListenerGetsAFailureAnalysisNamingItAndItsAttribute() {
        runner.withBean(BadTopic.class).run(context -> {
            org.springframework.boot.diagnostics.FailureAnalysis analysis =
                    new InvalidKafkoListenerFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains("@KafkoListener 'bad-topic' on BadTopic.on: topic name 'bad!' is invalid");
            assertThat(new KafkoStartupFailureAnalyzer().analyze(context.getStartupFailure()))
                    .as("not reported as a failure of kafko's directory or properties").isNull();
        });
        runner.withBean(BadExpression.class).run(context -> assertThat(
                new InvalidKafkoListenerFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                .contains("@KafkoListener 'bad-expression' on BadExpression.on: topics '#{__listener.nothing}' could not be resolved"));
        runner.withPropertyValues("kafko.listener.retry.not-retryable=com.example.NoSuchException").run(context ->
                assertThat(new InvalidKafkoPropertyFailureAnalyzer(null).analyze(context.getStartupFailure()).getDescription())
                        .contains("kafko.listener.retry.not-retryable names com.example.NoSuchException"));
    }

    @Test
    void listenerAttributesReachTheirBeanAsListener() {
        runner.withBean(SelfNamed.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("self").getGroupId()).isEqualTo("self-group");
            assertThat(context.getBean(Kafko.class).topic("from-the-bean")).isPresent();
        });
    }

    static class BadExpression {
        @dev.kafko.spring.annotation.KafkoListener(id = "bad-expression", topics = "#{__listener.nothing}")
        void on(String value) {
        }
    }

    public static class SelfNamed {
        public String getTopic() {
            return "from-the-bean";
        }

        @dev.kafko.spring.annotation.KafkoListener(id = "self", topics = "#{__listener.topic}",
                groupId = "#{__listener.topic == 'from-the-bean' ? 'self-group' : 'other'}")
        void on(String value) {
        }
    }

    @Test
    void theStartUpLogNamesTheDataDirectory(org.springframework.boot.test.system.CapturedOutput output) {
        runner.run(context -> assertThat(output).contains("kafko opened " + context.getBean(Kafko.class).dataDir()
                + " (ephemeral: deleted on close): 0 existing topic(s)"));
    }

    @Test
    void springKafkaPropertiesLeftFromAMigrationAreNamedInAWarning(
            org.springframework.boot.test.system.CapturedOutput output) {
        ApplicationContextRunner withoutSpringKafka = runner.withClassLoader(
                new org.springframework.boot.test.context.FilteredClassLoader("org.springframework.kafka."));
        withoutSpringKafka.run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("spring.kafka.* properties are set");
        withoutSpringKafka.withPropertyValues("spring.kafka.consumer.group-id=billing",
                "spring.kafka.bootstrap-servers=localhost:9092").run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("spring.kafka.* properties are set but kafko reads only kafko.* ones")
                .contains("spring.kafka.bootstrap-servers, spring.kafka.consumer.group-id");
        // beside spring-kafka (a stand-in of its template on this class path), they are its own
        runner.withPropertyValues("spring.kafka.listener.ack-mode=record").run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("spring.kafka.listener.ack-mode");
    }

    @Test
    void aManualAckListenerThatCannotAcknowledgeIsWarnedAbout(
            org.springframework.boot.test.system.CapturedOutput output) {
        runner.withBean(ManualWithoutAck.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("Listener 'manual-no-ack' (ManualWithoutAck.on) has ack mode MANUAL but takes no"
                + " Acknowledgment");
        runner.withBean(ManualWithMessage.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("Listener 'manual-message'");
    }

    static class BadTopic {
        @dev.kafko.spring.annotation.KafkoListener(id = "bad-topic", topics = "bad!")
        void on(String value) {
        }
    }

    static class BadGroup {
        @dev.kafko.spring.annotation.KafkoListener(id = "bad-group", topics = "fine", groupId = "a group")
        void on(String value) {
        }
    }

    static class BadReply {
        @dev.kafko.spring.annotation.KafkoListener(id = "bad-reply", topics = "fine")
        @org.springframework.messaging.handler.annotation.SendTo("no/slash")
        String on(String value) {
            return value;
        }
    }

    static class ManualWithoutAck {
        @dev.kafko.spring.annotation.KafkoListener(id = "manual-no-ack", topics = "m", ackMode = "manual")
        void on(String value) {
        }
    }

    static class ManualWithMessage {
        @dev.kafko.spring.annotation.KafkoListener(id = "manual-message", topics = "m", ackMode = "manual")
        void on(org.springframework.messaging.Message<String> message) {
        }
    }

    @Test
    void declaredTopicsAreCreatedWithTheirOwnKeysOverTheDefaults() {
        runner.withPropertyValues("kafko.defaults.partitions=2", "kafko.topics.orders.partitions=3",
                "kafko.topics.orders.compression=lz4", "kafko.topics.audit.retention=7d").run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    Topic orders = kafko.topic("orders").orElseThrow();
                    assertThat(orders.partitionCount()).isEqualTo(3);
                    assertThat(orders.config().compression()).isEqualTo(Compression.LZ4);
                    Topic audit = kafko.topic("audit").orElseThrow();
                    assertThat(audit.partitionCount()).isEqualTo(2);
                    assertThat(audit.config().retention()).isEqualTo(Duration.ofDays(7));
                });
    }

    @Test
    void aDeclaredTopicGrowsButAShrinkFailsStartUpNamingTheTopic(@TempDir Path dir) {
        ApplicationContextRunner onDir = new ApplicationContextRunner().withConfiguration(ALL)
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withPropertyValues("kafko.topics.orders.partitions=2").run(context -> assertThat(context).hasNotFailed());
        onDir.withPropertyValues("kafko.topics.orders.partitions=4").run(context ->
                assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().partitionCount()).isEqualTo(4));
        onDir.withPropertyValues("kafko.topics.orders.partitions=3").run(context ->
                assertThat(context).getFailure().hasStackTraceContaining(
                        "kafko.topics.orders.partitions=3 would shrink topic 'orders', which has 4 partitions"));
    }

    @Test
    void aStartThatFailsOnAShrinkGrowsNoOtherTopic(@TempDir Path dir) {
        ApplicationContextRunner onDir = new ApplicationContextRunner().withConfiguration(ALL)
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withPropertyValues("kafko.topics.a.partitions=2", "kafko.topics.b.partitions=4")
                .run(context -> assertThat(context).hasNotFailed());
        onDir.withPropertyValues("kafko.topics.a.partitions=3", "kafko.topics.b.partitions=2", "kafko.topics.c.partitions=1")
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining(
                        "kafko.topics.b.partitions=2 would shrink topic 'b', which has 4 partitions"));
        // nothing changed: the previous configuration still starts, and 'c' was not created
        onDir.withPropertyValues("kafko.topics.a.partitions=2", "kafko.topics.b.partitions=4").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Kafko.class).topic("a").orElseThrow().partitionCount()).isEqualTo(2);
            assertThat(context.getBean(Kafko.class).topics()).containsExactlyInAnyOrder("a", "b");
        });
    }

    @Test
    void aTopicDeclaredWithoutPartitionsKeepsTheOnesItHas(@TempDir Path dir) {
        ApplicationContextRunner onDir = new ApplicationContextRunner().withConfiguration(ALL)
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withPropertyValues("kafko.topics.orders.partitions=4").run(context -> assertThat(context).hasNotFailed());
        onDir.withPropertyValues("kafko.topics.orders.retention=7d").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().partitionCount()).isEqualTo(4);
        });
        // the defaults still grow it, as for a topic that set the count itself
        onDir.withPropertyValues("kafko.topics.orders.retention=7d", "kafko.defaults.partitions=6").run(context ->
                assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().partitionCount()).isEqualTo(6));
    }

    @Test
    void aBadValueFailsTheStartNamingItsPropertyBeforeTheDataDirIsCreated(@TempDir Path tmp) {
        Path dir = tmp.resolve("data");
        ApplicationContextRunner onDir = new ApplicationContextRunner().withConfiguration(ALL)
                .withPropertyValues("kafko.data-dir=" + dir);
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("kafko.listener.concurrency=0", "kafko.listener.concurrency must be at least 1, was 0");
        cases.put("kafko.listener.poll-timeout=0s", "kafko.listener.poll-timeout must be positive, was PT0S");
        cases.put("kafko.listener.ack-count=0", "kafko.listener.ack-count must be at least 1, was 0");
        cases.put("kafko.listener.ack-time=0s", "kafko.listener.ack-time must be positive, was PT0S");
        cases.put("kafko.listener.retry.max-attempts=0", "kafko.listener.retry.max-attempts must be at least 1, was 0");
        cases.put("kafko.listener.retry.not-retryable=com.nope.Missing", "kafko.listener.retry.not-retryable names com.nope.Missing");
        cases.put("kafko.template.default-topic=bad topic!", "kafko.template.default-topic ");
        cases.put("kafko.topics[bad!name].partitions=1", "kafko.topics[bad!name] ");
        cases.put("kafko.max-queued-bytes=0", "kafko.max-queued-bytes must be at least 1 byte, was 0 bytes");
        cases.put("kafko.compaction-buffer-size=2GB",
                "kafko.compaction-buffer-size must be between 64KB and 1GB, was 2GB");
        cases.put("kafko.topics.t.partitions=0", "kafko.topics.t.partitions is refused: partitions must be between 1 and 10000");
        cases.forEach((property, message) -> onDir.withPropertyValues(property).run(context -> {
            assertThat(context).as(property).getFailure().hasStackTraceContaining(message);
            assertThat(dir).as(property + " created nothing").doesNotExist();
        }));
    }

    @Test
    void aTopicValueOutOfRangeFailsTheStartNamingItsProperty() {
        runner.withPropertyValues("kafko.topics.inv.partitions=-3").run(context -> assertThat(
                invalidProperty(context.getStartupFailure(), "kafko.topics.inv.partitions"))
                .hasMessage("kafko.topics.inv.partitions is refused: partitions must be between 1 and 10000, was -3")
                .hasCauseInstanceOf(InvalidConfigException.class));
        runner.withPropertyValues("kafko.topics[in.valid].segment-size=1B").run(context -> assertThat(
                invalidProperty(context.getStartupFailure(), "kafko.topics[in.valid].segment-size")).hasMessageStartingWith(
                        "kafko.topics[in.valid].segment-size is refused: segmentBytes must be between 1024 and"));
        runner.withPropertyValues("kafko.defaults.max-record-size=0B").run(context -> assertThat(
                invalidProperty(context.getStartupFailure(), "kafko.defaults.max-record-size")).hasMessageStartingWith(
                        "kafko.defaults.max-record-size is refused: maxRecordBytes must be between 8 (a record with no key, value or headers) and"));
        // beyond an int either way: the engine's range and the value set, not an overflow
        runner.withPropertyValues("kafko.topics.big.max-record-size=3GB").run(context -> assertThat(
                invalidProperty(context.getStartupFailure(), "kafko.topics.big.max-record-size")).hasMessage(
                        "kafko.topics.big.max-record-size is refused: maxRecordBytes must be between 8"
                                + " (a record with no key, value or headers) and 67108864, was 3221225472"));
        runner.withPropertyValues("kafko.defaults.max-record-size=-3GB").run(context -> assertThat(
                invalidProperty(context.getStartupFailure(), "kafko.defaults.max-record-size")).hasMessageEndingWith(
                        "and 67108864, was -3221225472"));
        runner.withPropertyValues("kafko.defaults.fsync=sometimes").run(context -> assertThat(
                invalidProperty(context.getStartupFailure(), "kafko.defaults.fsync")).hasMessageStartingWith(
                        "kafko.defaults.fsync is refused: fsync policy 'sometimes'"));
    }

    /** The {@link InvalidKafkoPropertyException} in the cause chain of a failed start, checked to name {@code property}. */
    private static Throwable invalidProperty(Throwable failure, String property) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidKafkoPropertyException invalid) {
                assertThat(invalid.getProperty()).isEqualTo(property);
                return t;
            }
        }
        throw new AssertionError("no InvalidKafkoPropertyException in " + failure, failure);
    }

    @Test
    void unknownTopicsAreCreatedOnFirstSendWithTheDefaults() {
        runner.withPropertyValues("kafko.defaults.partitions=3").run(context -> {
            context.getBean(KafkoTemplate.class).send("fresh", "v").join();
            assertThat(context.getBean(Kafko.class).topic("fresh").orElseThrow().partitionCount()).isEqualTo(3);
        });
    }

    @Test
    void withAutoCreationOffAnUnknownTopicIsAClearError() {
        runner.withPropertyValues("kafko.auto-create-topics=false").run(context ->
                assertThatThrownBy(() -> context.getBean(KafkoTemplate.class).send("nope", "v"))
                        .isInstanceOf(UnknownTopicException.class)
                        .hasMessageContaining("topic 'nope' does not exist and kafko.auto-create-topics is false"));
    }

    @Test
    void theTemplateInjectsWithTheApplicationsOwnTypesAndTellsItsProducerListener() {
        runner.withUserConfiguration(TypedUser.class).run(context -> {
            TypedUser user = context.getBean(TypedUser.class);
            user.template.send("typed", "k", new dev.kafko.spring.Order("o", 1)).join();
            assertThat(TypedUser.RESULTS).singleElement().satisfies(r -> {
                assertThat(r.topic()).isEqualTo("typed");
                assertThat(r.key()).isEqualTo("k");
                assertThat(r.offset()).isZero();
            });
        });
    }

    @Test
    void listenerThreadsAreDaemonsSoAStuckOneCannotKeepTheJvmAliveButOneThreadKeepsItAliveWhileTheyRun() {
        runner.withBean(DaemonProbe.class).run(context -> {
            context.getBean(KafkoTemplate.class).send("daemons", "x").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(DaemonProbe.SEEN).containsExactly(true);
            // an application whose only work is its listeners must not exit once started: one thread for
            // every running container of the JVM (KeepAliveProcessTest sees the JVM exit without them); the one of a
            // context closed just before (an earlier test's) ends on its own once released, and may still be ending
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(keepAliveThreads()).singleElement()
                    .satisfies(t -> assertThat(t.isDaemon()).isFalse()));
        });
    }

    private static List<Thread> keepAliveThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("kafko-keep-alive") && t.isAlive()).toList();
    }

    static class DaemonProbe {
        static final List<Boolean> SEEN = new java.util.concurrent.CopyOnWriteArrayList<>();

        @dev.kafko.spring.annotation.KafkoListener(id = "daemons", topics = "daemons")
        void on(String value) {
            SEEN.add(Thread.currentThread().isDaemon());
        }
    }

    @Test
    void aListenerOnAnUnknownTopicFailsStartUpWhenAutoCreationIsOff() {
        runner.withPropertyValues("kafko.auto-create-topics=false").withBean(Listening.class).run(context ->
                assertThat(context).getFailure().hasStackTraceContaining("Listener 'absent' cannot start: "
                        + "topic 'absent' does not exist and kafko.auto-create-topics is false"));
    }

    @Test
    void withoutJacksonStringsAndBytesSendButObjectsAreRefusedClearly() {
        runner.withClassLoader(new FilteredClassLoader("tools.jackson")).run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("t", "text").join();
            template.send("t", new byte[] {1, 2}).join();
            assertThatThrownBy(() -> template.send("t", List.of(1, 2)))
                    .isInstanceOf(MessageConversionException.class).hasMessageContaining("Jackson");
            List<KafkoRecord> records = context.getBean(Kafko.class).consumer("t").poll(Duration.ofSeconds(1));
            assertThat(records).hasSize(2);
        });
    }

    @Test
    void metricsNeedMicrometerAndAMeterRegistryBean() {
        runner.run(context -> assertThat(context).doesNotHaveBean(KafkoMetrics.class));
        runner.withBean(SimpleMeterRegistry.class).run(context -> assertThat(context).hasSingleBean(KafkoMetrics.class));
        runner.withBean(SimpleMeterRegistry.class).withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(KafkoMetrics.class));
    }

    @Test
    void healthNeedsSpringBootHealthAndCanBeSwitchedOff() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean("kafkoHealthIndicator").hasSingleBean(Kafko.class));
        runner.withPropertyValues("management.health.kafko.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(KafkoHealthIndicator.class));
    }

    @Test
    void theHealthContributorIsNamedKafko() {
        runner.withConfiguration(AutoConfigurations.of(
                org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration.class))
                .run(context -> assertThat(context.getBean(
                        org.springframework.boot.health.registry.HealthContributorRegistry.class)
                        .getContributor("kafko")).isInstanceOf(KafkoHealthIndicator.class));
    }

    @Test
    void autoConfigurationClassesAreFinal() {
        for (Class<?> c : List.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class,
                KafkoHealthAutoConfiguration.class)) {
            assertThat(Modifier.isFinal(c.getModifiers())).as(c.getName()).isTrue();
        }
    }

    @Test
    void autoConfigurationImportsListEveryAutoConfiguration() throws Exception {
        String imports = new String(getClass().getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports").readAllBytes());
        assertThat(imports).contains(KafkoAutoConfiguration.class.getName(),
                KafkoMetricsAutoConfiguration.class.getName(), KafkoHealthAutoConfiguration.class.getName());
    }

    @Test
    void listenersAreRegisteredUnderLazyInitialization() {
        LazyListening.SEEN.clear();
        runner.withInitializer(context -> context.addBeanFactoryPostProcessor(
                        new org.springframework.boot.LazyInitializationBeanFactoryPostProcessor()))
                .withBean(LazyListening.class).withBean(Unrelated.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
                    assertThat(registry.getListenerContainerIds()).containsExactly("lazy");
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("lazy", "seen").join();
                    dev.kafko.spring.test.KafkoTestUtils.waitForListeners(registry, Duration.ofSeconds(20));
                    assertThat(LazyListening.SEEN).containsExactly("seen");
                    // only the listener's bean is kept out of lazy initialization
                    String unrelated = context.getBeanNamesForType(Unrelated.class)[0];
                    assertThat(context.getBeanFactory().getBeanDefinition(unrelated).isLazyInit()).isTrue();
                    assertThat(context.getBeanFactory().containsSingleton(unrelated)).isFalse();
                });
    }

    @Test
    void aDataDirOpenElsewhereFailsTheStartWithAnAnalysisThatPointsAtEphemeralLogs(@TempDir Path dir) {
        try (Kafko holder = Kafko.open(dir)) {
            runner.withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + dir).run(context -> {
                Throwable failure = context.getStartupFailure();
                dev.kafko.AlreadyOpenException cause = findCause(failure, dev.kafko.AlreadyOpenException.class);
                assertThat(cause).isNotNull();
                org.springframework.boot.diagnostics.FailureAnalysis analysis =
                        new AlreadyOpenFailureAnalyzer().analyze(failure);
                assertThat(analysis.getDescription()).isEqualTo("AlreadyOpenException: " + cause.getMessage())
                        .contains(dir.toString());
                assertThat(analysis.getAction()).contains("kafko.ephemeral=true", "kafko.data-dir");
            });
        }
        // Spring Boot finds the analyzer where it looks for them
        List<String> analyzers = new java.util.ArrayList<>();
        org.springframework.core.io.support.SpringFactoriesLoader.forDefaultResourceLocation()
                .load(org.springframework.boot.diagnostics.FailureAnalyzer.class, null,
                        (factoryType, factoryImplementationName, failure) -> { })
                .forEach(analyzer -> analyzers.add(analyzer.getClass().getName()));
        assertThat(analyzers).contains(AlreadyOpenFailureAnalyzer.class.getName(),
                InvalidKafkoPropertyFailureAnalyzer.class.getName(), KafkoStartupFailureAnalyzer.class.getName());
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    static class LazyListening {
        static final List<String> SEEN = new java.util.concurrent.CopyOnWriteArrayList<>();

        @dev.kafko.spring.annotation.KafkoListener(id = "lazy", topics = "lazy")
        void on(String value) {
            SEEN.add(value);
        }
    }

    static class Unrelated {
    }

    static class Listening {
        @dev.kafko.spring.annotation.KafkoListener(id = "absent", topics = "absent")
        void on(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TypedUser {
        static final List<dev.kafko.spring.support.SendResult<String, dev.kafko.spring.Order>> RESULTS =
                new java.util.concurrent.CopyOnWriteArrayList<>();

        @org.springframework.beans.factory.annotation.Autowired
        KafkoTemplate<String, dev.kafko.spring.Order> template;

        @Bean
        static dev.kafko.spring.support.ProducerListener<String, dev.kafko.spring.Order> resultsListener() {
            return new dev.kafko.spring.support.ProducerListener<>() {
                @Override
                public void onSuccess(dev.kafko.spring.support.SendResult<String, dev.kafko.spring.Order> result) {
                    RESULTS.add(result);
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        static final KafkoErrorHandler HANDLER = (records, failure, invocation) -> { };

        @Bean
        KafkoErrorHandler myHandler() {
            return HANDLER;
        }

        @Bean
        OwnDir ownDir() throws Exception {
            return new OwnDir(Files.createTempDirectory("kafko-own-"));
        }

        @Bean(destroyMethod = "close")
        Kafko myKafko(OwnDir ownDir) {
            return Kafko.open(ownDir.path());
        }
    }

    /** A directory deleted when its bean is destroyed: after the log that depends on it is closed. */
    record OwnDir(Path path) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            FileSystemUtils.deleteRecursively(path);
        }
    }
}
