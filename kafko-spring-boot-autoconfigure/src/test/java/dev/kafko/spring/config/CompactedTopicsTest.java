package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.CleanupPolicy;
import dev.kafko.InvalidConfigException;
import dev.kafko.InvalidRecordException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoAdmin;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Compacted topics from the Spring side, as a spring-kafka user declares them: {@link TopicBuilder#compact()},
 * Kafka's {@code cleanup.policy}, {@code min.compaction.lag.ms}, {@code delete.retention.ms} and
 * {@code min.cleanable.dirty.ratio}; a send without a key refused through its future; a compacted topic read back
 * with the latest record of each key.
 */
@ExtendWith(OutputCaptureExtension.class)
class CompactedTopicsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Configuration(proxyBeanMethods = false)
    static class Compacted {
        @Bean
        NewTopic pricesTopic() {
            return TopicBuilder.name("prices").compact().build();
        }

        @Bean
        NewTopic stockTopic() {
            return TopicBuilder.name("stock").partitions(2).config("cleanup.policy", "compact,delete")
                    .config("min.compaction.lag.ms", "60000").config("delete.retention.ms", "1000")
                    .config("min.cleanable.dirty.ratio", "0.25").build();
        }
    }

    @Test
    void aNewTopicBeanMadeWithCompactCreatesACompactedTopic() {
        runner.withUserConfiguration(Compacted.class).run(context -> {
            assertThat(context).hasNotFailed();
            Kafko kafko = context.getBean(Kafko.class);
            TopicConfig prices = kafko.topic("prices").orElseThrow().config();
            assertThat(prices.cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT);
            assertThat(prices.deleteRetention()).as("the engine's default").isEqualTo(Duration.ofDays(1));
            TopicConfig stock = kafko.topic("stock").orElseThrow().config();
            assertThat(stock.cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT_DELETE);
            assertThat(stock.minCompactionLag()).isEqualTo(Duration.ofMinutes(1));
            assertThat(stock.deleteRetention()).isEqualTo(Duration.ofSeconds(1));
            assertThat(stock.minCleanableDirtyRatio()).isEqualTo(0.25);
            assertThat(stock.partitions()).isEqualTo(2);
        });
    }

    @Test
    void kafkasCompactionConfigsAndKafkosSettersMapOntoTheEngineKeys() {
        TopicConfig base = TopicConfig.DEFAULTS;
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("cleanup.policy", " Delete, Compact ");
        configs.put("min.compaction.lag.ms", "0");
        configs.put("delete.retention.ms", "86400001");
        configs.put("min.cleanable.dirty.ratio", "1");
        TopicConfig c = TopicBuilder.name("t").configs(configs).build().applyTo(base);
        assertThat(c.cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT_DELETE);
        assertThat(c.minCompactionLag()).isZero();
        assertThat(c.deleteRetention()).isEqualTo(Duration.ofMillis(86_400_001));
        assertThat(c.minCleanableDirtyRatio()).isEqualTo(1.0);
        assertThat(TopicBuilder.name("t").config("cleanup.policy", "compact").build().applyTo(base).cleanupPolicy())
                .isEqualTo(CleanupPolicy.COMPACT);
        assertThat(TopicBuilder.name("t").compact().config("cleanup.policy", "delete").build().applyTo(base)
                .cleanupPolicy()).as("the last setting wins").isEqualTo(CleanupPolicy.DELETE);
        NewTopic set = TopicBuilder.name("t").cleanupPolicy(CleanupPolicy.COMPACT_DELETE)
                .minCompactionLag(Duration.ofSeconds(5)).deleteRetention(Duration.ZERO).minCleanableDirtyRatio(0)
                .build();
        assertThat(set.applyTo(base)).isEqualTo(base.toBuilder().cleanupPolicy(CleanupPolicy.COMPACT_DELETE)
                .minCompactionLag(Duration.ofSeconds(5)).deleteRetention(Duration.ZERO).minCleanableDirtyRatio(0)
                .build());
        assertThat(TopicBuilder.name("t").compact().build().toString()).isEqualTo("NewTopic[t: compact()]");
        assertThat(TopicBuilder.name("t").compact().build().applyTo(base.toBuilder().compression(
                dev.kafko.Compression.LZ4).build()).compression()).as("keys it leaves unset stay")
                .isEqualTo(dev.kafko.Compression.LZ4);
    }

    @Test
    void badCompactionValuesAreRefusedNamingTopicAndKey() {
        assertThatThrownBy(() -> TopicBuilder.name("t").config("cleanup.policy", "compacted"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': cleanup.policy=compacted is not a policy kafko has: delete, compact or"
                        + " compact,delete");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("min.compaction.lag.ms", "-1"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': min.compaction.lag.ms=-1 must be at least 0");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("delete.retention.ms", "a day"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': delete.retention.ms=a day is not a whole number");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("min.cleanable.dirty.ratio", "half"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': min.cleanable.dirty.ratio=half is not a number");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("min.cleanable.dirty.ratio", "1.5"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("topic 't': min.cleanable.dirty.ratio=1.5 must be between 0 and 1");
        assertThatThrownBy(() -> TopicBuilder.name("t").config("min.cleanable.dirty.ratio", "NaN"))
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("must be between 0 and 1");
        assertThatThrownBy(() -> TopicBuilder.name("t").minCleanableDirtyRatio(-0.1).build())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("topic 't': minCleanableDirtyRatio(-0.1) is refused: minCleanableDirtyRatio"
                        + " must be between 0 and 1");
        assertThatThrownBy(() -> TopicBuilder.name("t").minCompactionLag(Duration.ofMillis(-1)).build())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("topic 't': minCompactionLag(PT-0.001S) is refused: minCompactionLag must not"
                        + " be negative");
        assertThatThrownBy(() -> TopicBuilder.name("t").deleteRetention(Duration.ofMillis(-1)).build())
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("deleteRetention must not be negative");
        assertThatThrownBy(() -> TopicBuilder.name("t").cleanupPolicy(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("cleanupPolicy");
    }

    @Test
    void aSendWithoutAKeyToACompactedTopicFailsItsFutureWithInvalidRecordExceptionAndWritesNothing() {
        AtomicReference<@Nullable Throwable> heard = new AtomicReference<>();
        runner.withUserConfiguration(Compacted.class)
                .withBean(ProducerListener.class, () -> new ProducerListener<Object, Object>() {
                    @Override
                    public void onError(String topic, @Nullable Integer partition, @Nullable Object key,
                                        @Nullable Object value, Throwable exception) {
                        heard.set(exception);
                    }
                })
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    CompletableFuture<?> keyless = template.send("prices", "9.99");
                    assertThatThrownBy(keyless::join).isInstanceOf(CompletionException.class)
                            .cause().isInstanceOf(InvalidRecordException.class)
                            .hasMessageContaining("without a key was sent to topic 'prices', which is compacted");
                    assertThat(heard.get()).as("the producer listener hears it")
                            .isInstanceOf(InvalidRecordException.class);
                    CompletableFuture<?> message = template.send(MessageBuilder.withPayload("1.00")
                            .setHeader(KafkoHeaders.TOPIC, "stock").build());
                    assertThatThrownBy(message::join).cause().isInstanceOf(InvalidRecordException.class);
                    assertThatThrownBy(() -> template.send("prices", 0, null, "1.00").join()).cause()
                            .isInstanceOf(InvalidRecordException.class);
                    assertThat(KafkoTestUtils.records(context, "prices")).as("nothing written").isEmpty();
                    assertThat(template.send("prices", "apple", "0.99").join().offset()).isZero();
                    assertThat(template.send("uncompacted", "no key needed").join().offset()).isZero();
                });
    }

    @Test
    void aListenerWhoseReplyCannotBeWrittenForWantOfAKeyIsNotRetried() {
        assertThat(DefaultErrorHandler.isRetryable(new CompletionException(new InvalidRecordException("no key"))))
                .isFalse();
    }

    @Test
    void aKeylessRecordWhoseDeadLetterTopicIsCompactedIsSkippedNotRecoveredForEver(CapturedOutput out) {
        runner.withBean(Picky.class)
                .withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=1",
                        "kafko.defaults.cleanup-policy=compact", "kafko.topics.orders.cleanup-policy=delete")
                .run(context -> {
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("orders", "bad").join();
                    template.send("orders", "good").join();
                    Picky picky = context.getBean(Picky.class);
                    assertThat(picky.good.await(WAIT.toSeconds(), TimeUnit.SECONDS))
                            .as("the record after the one that cannot be dead-lettered is processed").isTrue();
                    assertThat(context.getBean(Kafko.class).topic("orders.DLT").orElseThrow().config()
                            .cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT);
                    assertThat(KafkoTestUtils.records(context, "orders.DLT")).isEmpty();
                });
        assertThat(out).contains("cannot publish it to orders.DLT: that topic refuses it for good",
                "without a key for a compacted topic); skipped it, the record stays in orders at offset 0");
    }

    @Test
    void aCompactedTopicReadFromItsStartGivesTheLatestValueOfEachKey() {
        runner.withBean(Reader.class)
                .withPropertyValues("kafko.topics.prices.cleanup-policy=compact",
                        "kafko.topics.prices.segment-size=2KB")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoTemplate<Object, Object> template = template(context);
                    Map<String, String> latest = new LinkedHashMap<>();
                    for (int round = 0; round < 4; round++) {
                        for (int k = 0; k < 5; k++) {
                            String value = round + "-" + "x".repeat(300);
                            template.send("prices", "k" + k, value).join();
                            latest.put("k" + k, value);
                        }
                    }
                    // a record no other fits beside in a 2 KB segment: the rounds before it are all sealed
                    String pad = "p".repeat(1900);
                    long padOffset = template.send("prices", "pad", pad).join().offset();
                    latest.put("pad", pad);
                    Topic prices = context.getBean(Kafko.class).topic("prices").orElseThrow();

                    assertThat(prices.compact()).as("records removed: the 3 older rounds").isEqualTo(15);

                    List<String> read = KafkoTestUtils.records(context, "prices").stream()
                            .map(CompactedTopicsTest::keyAndValue).toList();
                    assertThat(read).containsExactlyElementsOf(latest.entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue()).toList());
                    Reader reader = context.getBean(Reader.class);
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("reader").start();
                    assertThat(reader.end.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
                    assertThat(reader.seen).as("a listener from the beginning passes over the removed offsets")
                            .containsExactlyElementsOf(read);
                    assertThat(reader.offsets).startsWith(15L).endsWith(padOffset);
                });
    }

    @Test
    void anExistingTopicIsMadeCompactedOnlyUnderModifyTopicConfigs(@TempDir Path dir, CapturedOutput out) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir);
        onDir.withPropertyValues("kafko.topics.prices.partitions=1").run(context -> assertThat(context).hasNotFailed());
        onDir.withUserConfiguration(Compacted.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Kafko.class).topic("prices").orElseThrow().config().cleanupPolicy())
                    .as("the stored config stays").isEqualTo(CleanupPolicy.DELETE);
        });
        assertThat(out).contains("Topic 'prices' exists with another config than NewTopic bean 'pricesTopic' asks"
                + " for: cleanup-policy delete (asked compact)");
        onDir.withUserConfiguration(Compacted.class).withPropertyValues("kafko.modify-topic-configs=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Topic prices = context.getBean(Kafko.class).topic("prices").orElseThrow();
                    assertThat(prices.config().cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT);
                    KafkoAdmin admin = context.getBean(KafkoAdmin.class);
                    admin.createOrModifyTopics(TopicBuilder.name("prices").config("cleanup.policy", "compact,delete")
                            .minCleanableDirtyRatio(0.75).build());
                    TopicConfig described = admin.describeTopics("prices").get("prices").config();
                    assertThat(described.cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT_DELETE);
                    assertThat(described.minCleanableDirtyRatio()).isEqualTo(0.75);
                });
        assertThat(out).contains("Changing the config of topic 'prices' as NewTopic bean 'pricesTopic' asks:"
                + " cleanup-policy delete (asked compact)");
    }

    private static String keyAndValue(KafkoRecord r) {
        return text(r.key()) + "=" + value(r.value());
    }

    private static String text(byte @Nullable [] bytes) {
        return bytes == null ? "null" : new String(bytes, StandardCharsets.UTF_8);
    }

    /** The value as sent: the template's converter writes a String as its UTF-8 bytes. */
    private static String value(byte @Nullable [] bytes) {
        return text(bytes);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Picky {
        final CountDownLatch good = new CountDownLatch(1);

        @KafkoListener(id = "picky", topics = "orders")
        void on(KafkoRecord record) {
            if ("bad".equals(value(record.value()))) {
                throw new IllegalStateException("bad record");
            }
            good.countDown();
        }
    }

    static class Reader {
        final List<String> seen = new CopyOnWriteArrayList<>();
        final List<Long> offsets = new CopyOnWriteArrayList<>();
        final CountDownLatch end = new CountDownLatch(1);

        @KafkoListener(id = "reader", topics = "prices", autoStartup = "false")
        void on(KafkoRecord record) {
            seen.add(keyAndValue(record));
            offsets.add(record.offset());
            if ("pad".equals(text(record.key()))) {
                end.countDown();
            }
        }
    }
}
