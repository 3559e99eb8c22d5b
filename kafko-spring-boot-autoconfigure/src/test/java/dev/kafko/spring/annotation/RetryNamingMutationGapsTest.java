package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.DelegatingBackend;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What mutation testing of the retry-topic naming found unchecked: the names the start's warnings take for retry
 * topics, the records they count when a retry topic's first record cannot be read or was partly consumed, and the
 * topic naming rule applied to the retry topics a {@link RetryTopicConfiguration} bean gives.
 */
class RetryNamingMutationGapsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static void send(Kafko kafko, String topic, Headers headers) {
        if (kafko.topic(topic).isEmpty()) {
            kafko.createTopic(topic);
        }
        kafko.producer(topic).send(bytes("k"), bytes("left"), headers).join();
    }

    private static KafkoBackend backend(Kafko kafko) {
        return new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true), new KafkoTopicCreations());
    }

    /** The main part of a fixed back-off's {@code @RetryableTopic} listener of {@code orders} in group {@code orders}. */
    private static RetryableTopicEndpoints.Planned planned(RetryTopics topics) throws Exception {
        return new RetryableTopicEndpoints.Planned(endpoint(), RetryableTopicEndpoints.Part.MAIN, List.of(topics),
                "-retry");
    }

    private static KafkoListenerEndpoint endpoint() throws Exception {
        return new KafkoListenerEndpoint("orders", List.of("orders"), "orders", null, null, false, null,
                new Orders(), Orders.class.getDeclaredMethod("on", String.class), null);
    }

    private static RetryTopics fixed(String dltSuffix) {
        return new RetryTopics("orders", 3, 60_000, 0, 0, "-retry", dltSuffix, List.of(), List.of());
    }

    private List<String> warnings() {
        return containersLog.events().stream().filter(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aNameEndingInADashIsNoRetryTopicsAndADeadLetterTopicShapedAsOneIsNotWarnedOf(@TempDir Path dir)
            throws Exception {
        try (Kafko kafko = Kafko.open(dir)) {
            // 'orders-retry-1-' ends where a second number would start and 'orders-retry-1-2-3' has a third;
            // 'orders-retry-1-2' is one of several topics of one back-off, as spring-kafka names them;
            // 'orders-retry-9' is this listener's dead-letter topic
            for (String topic : List.of("orders-retry-1-", "orders-retry-1-2-3", "orders-retry-1-2",
                    "orders-retry-9")) {
                send(kafko, topic, Headers.empty());
            }
            RetryTopics topics = fixed("-retry-9");
            assertThat(topics.retryTopics()).containsExactly("orders-retry");
            assertThat(topics.dltTopic()).isEqualTo("orders-retry-9");

            RetryableTopicContainers.warnOfAbandonedRetryTopics(backend(kafko), planned(topics));
        }
        assertThat(warnings()).singleElement().satisfies(w -> assertThat(w)
                .contains("reads the retry topics [orders-retry], not 'orders-retry-1-2' (1), which hold 1 record(s)")
                .doesNotContain("'orders-retry-1-'", "orders-retry-1-2-3", "orders-retry-9"));
    }

    @Test
    void aRetryTopicWhoseFirstRecordCannotBeReadIsTakenForTheListenersOwn(@TempDir Path dir) throws Exception {
        try (Kafko kafko = Kafko.open(dir)) {
            // forwarded by another group: not this listener's, unless the record cannot be read to tell
            Headers otherGroup = Headers.empty()
                    .with(KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP, bytes("audit"))
                    .with(KafkoHeaders.DLT_ORIGINAL_TOPIC, bytes("orders"));
            send(kafko, "orders-retry-1000", otherGroup);
            send(kafko, "orders-retry-1000", otherGroup);
            RetryableTopicEndpoints.Planned planned = planned(fixed("-dlt"));

            RetryableTopicContainers.warnOfAbandonedRetryTopics(backend(kafko), planned);
            assertThat(warnings()).isEmpty();

            // a backend that cannot read by offset
            RetryableTopicContainers.warnOfAbandonedRetryTopics(new ReadingBackend(backend(kafko), (t, p, o) -> {
                throw new UnsupportedOperationException("cannot read by offset");
            }), planned);
            assertThat(warnings()).singleElement().satisfies(w -> assertThat(w)
                    .contains("not 'orders-retry-1000' (2), which hold 2 record(s)"));

            // a first record that is not there when read
            containersLog.events().clear();
            RetryableTopicContainers.warnOfAbandonedRetryTopics(new ReadingBackend(backend(kafko), (t, p, o) -> null),
                    planned);
            assertThat(warnings()).singleElement().satisfies(w -> assertThat(w)
                    .contains("not 'orders-retry-1000' (2), which hold 2 record(s)"));
        }
    }

    @Test
    void aRetryTopicLeftBehindCountsOnlyWhatTheGroupHasNotConsumed(@TempDir Path dir) throws Exception {
        try (Kafko kafko = Kafko.open(dir)) {
            // three records this group forwarded from this topic, of which it consumed one
            Headers forwarded = Headers.empty()
                    .with(KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP, bytes("orders"))
                    .with(KafkoHeaders.DLT_ORIGINAL_TOPIC, bytes("orders"));
            for (int i = 0; i < 3; i++) {
                send(kafko, "orders-retry-60000", forwarded);
            }
            try (dev.kafko.Consumer consumer = kafko.groupConsumer("orders-retry-60000", "orders")) {
                while (consumer.poll(Duration.ofMillis(100)).isEmpty()) {
                    // assigned once it polled
                }
                consumer.seek(0, 1);
                consumer.commit();
            }

            RetryableTopicContainers.warnOfRetryTopicsLeftBehind(backend(kafko), endpoint());
        }
        assertThat(warnings()).singleElement().satisfies(w -> assertThat(w)
                .contains("has no retry topics, but 'orders-retry-60000' (2) hold 2 record(s)"));
    }

    @Test
    void aRetryTopicABeanNamesTooLongFailsTheStartNamingTheListenerAndTheBean() {
        // a topic of 240 characters is valid; the bean's first retry topic, with "-retry-1000", has 251
        runner.withPropertyValues("long.topic=" + "t".repeat(240)).withUserConfiguration(Multiplied.class)
                .withBean(LongTopic.class).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).isInstanceOf(InvalidKafkoListenerException.class)
                            .hasMessageContaining("listener 'long' on " + LongTopic.class.getName())
                            .hasMessageContaining("(given retry topics by the RetryTopicConfiguration bean"
                                    + " 'multiplied')")
                            .hasMessageContaining("its retry topic '" + "t".repeat(240) + "-retry-1000' breaks the"
                                    + " topic naming rule");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Multiplied {
        @Bean
        RetryTopicConfiguration multiplied() {
            return RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(1_000, 2, 10_000).create();
        }
    }

    static class LongTopic {
        @KafkoListener(id = "long", topics = "${long.topic}")
        void on(String value) {
        }
    }

    static class Orders {
        void on(String value) {
        }
    }

    /** What a backend's {@code read} does instead. */
    interface Read {
        @Nullable KafkoRecord read(String topic, int partition, long offset);
    }

    /** A real backend whose reads by offset {@code read} answers. */
    private static final class ReadingBackend extends DelegatingBackend {

        private final Read read;

        ReadingBackend(LogBackend real, Read read) {
            super(real);
            this.read = read;
        }

        @Override
        public @Nullable KafkoRecord read(String topic, int partition, long offset, Duration timeout) {
            return read.read(topic, partition, offset);
        }
    }
}
