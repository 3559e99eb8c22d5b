package dev.kafko.spring.listener.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.BatchListenerFailedException;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.annotation.Header;

/**
 * A batch listener's record whose payload cannot be converted, as spring-kafka's {@code BatchMessagingMessageConverter}
 * hands it over: a {@code null} element in its place, its {@link MessageConversionException} at its index in the
 * {@link KafkoHeaders#CONVERSION_FAILURES} list (null where the record converted), a WARN line naming it; the other
 * records reach the listener, which may name the failed one with a {@link BatchListenerFailedException}. It used to
 * fail the whole batch before the method ran: every record of it recovered, the good ones too.
 */
class BatchConversionFailureTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<List<@Nullable Object>> BATCHES = new CopyOnWriteArrayList<>();
    static final List<List<@Nullable MessageConversionException>> FAILURES = new CopyOnWriteArrayList<>();

    @RegisterExtension
    final LogCapture adapterLog = new LogCapture(MessagingMessageListenerAdapter.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.dead-letter.enabled=true",
                    "kafko.listener.retry.max-attempts=3");

    @BeforeEach
    void reset() {
        BATCHES.clear();
        FAILURES.clear();
    }

    @Test
    void aRecordThatCannotBeConvertedIsANullElementWithItsFailureInTheHeaderAndTheOthersAreProcessed() {
        runner.withBean(Reads.class).run(context -> {
            deliver(context, "conv-reads", "convReads", 1, "not a number", 3);

            assertThat(BATCHES).containsExactly(listOf(1, null, 3));
            assertThat(FAILURES).singleElement().satisfies(failures -> {
                assertThat(failures).hasSize(3);
                assertThat(failures.get(0)).isNull();
                assertThat(failures.get(1)).isInstanceOf(MessageConversionException.class);
                assertThat(failures.get(2)).isNull();
            });
            assertThat(committed(context, "conv-reads", "convReads")).isEqualTo(3);
            assertThat(KafkoTestUtils.records(context, "conv-reads.DLT")).isEmpty();
            List<ILoggingEvent> warnings = adapterLog.events().stream()
                    .filter(e -> e.getLevel() == Level.WARN).toList();
            assertThat(warnings).singleElement().satisfies(e -> assertThat(e.getFormattedMessage())
                    .contains("'convReads'", "conv-reads-0@1", "java.lang.Integer"));
        });
    }

    @Test
    void aBatchListenerFailedExceptionWithTheConversionFailureDeadLettersThatRecordAloneWithoutRetries() {
        runner.withBean(Names.class).run(context -> {
            deliver(context, "conv-names", "convNames", 1, "not a number", 3);

            assertThat(BATCHES).as("the first record done, the failed one recovered without a retry, the last"
                    + " delivered again").containsExactly(listOf(1, null, 3), listOf(3));
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "conv-names.DLT");
            assertThat(dead).singleElement().satisfies(r -> {
                assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("not a number");
                assertThat(new String(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN), StandardCharsets.UTF_8))
                        .isEqualTo(MessageConversionException.class.getName());
                assertThat(new String(r.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_OFFSET), StandardCharsets.UTF_8))
                        .isEqualTo("1");
            });
            assertThat(committed(context, "conv-names", "convNames")).isEqualTo(3);
        });
    }

    @Test
    void aBatchWhoseRecordsAllConvertHasANullForEachInTheHeader() {
        runner.withBean(Reads.class).run(context -> {
            deliver(context, "conv-reads", "convReads", 1, 2);

            assertThat(BATCHES).containsExactly(listOf(1, 2));
            assertThat(FAILURES).containsExactly(listOf(null, null));
            assertThat(adapterLog.events()).noneMatch(e -> e.getLevel() == Level.WARN);
        });
    }

    /** As spring-kafka's: a {@code List<Message<T>>} is converted a message at a time, a failure failing the batch. */
    @Test
    void aListOfMessagesWithARecordThatCannotBeConvertedStillFailsTheWholeBatch() {
        runner.withBean(Messages.class).run(context -> {
            deliver(context, "conv-messages", "convMessages", 1, "not a number", 3);
            KafkoTestUtils.records(context, "conv-messages.DLT", 3, WAIT);

            assertThat(BATCHES).as("the method never ran").isEmpty();
            assertThat(committed(context, "conv-messages", "convMessages")).isEqualTo(3);
        });
    }

    @Test
    void aRequiredConversionFailuresHeaderOfABatchOfRecordsOrMessagesFailsStartUp() {
        runner.withBean(RecordsWithFailures.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("requires @Header(\"kafko_conversionFailures\")"));
        runner.withBean(MessagesWithFailures.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("requires @Header(\"kafko_conversionFailures\")"));
    }

    private static void deliver(ConfigurableApplicationContext context, String topic, String listener,
                                Object... values) {
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (Object v : values) {
            template.send(topic, v).join();
        }
        context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer(listener).start();
        KafkoTestUtils.waitForListeners(context, WAIT);
    }

    private static long committed(ConfigurableApplicationContext context, String topic, String group) {
        return context.getBean(Kafko.class).groupInfo(topic, group).committed().getOrDefault(0, 0L);
    }

    @SafeVarargs
    private static <T> List<@Nullable T> listOf(@Nullable T... values) {
        List<@Nullable T> list = new ArrayList<>();
        for (T v : values) {
            list.add(v);
        }
        return list;
    }

    static class Reads {
        @KafkoListener(id = "convReads", topics = "conv-reads", batch = "true", autoStartup = "false")
        void on(List<@Nullable Integer> values,
                @Header(KafkoHeaders.CONVERSION_FAILURES) List<@Nullable MessageConversionException> failures) {
            BATCHES.add(new ArrayList<>(values));
            FAILURES.add(new ArrayList<>(failures));
        }
    }

    /** spring-kafka's reference example: the listener names the record that did not convert. */
    static class Names {
        @KafkoListener(id = "convNames", topics = "conv-names", batch = "true", autoStartup = "false")
        void on(List<@Nullable Integer> values,
                @Header(KafkoHeaders.CONVERSION_FAILURES) List<@Nullable MessageConversionException> failures) {
            BATCHES.add(new ArrayList<>(values));
            for (int i = 0; i < values.size(); i++) {
                MessageConversionException failure = failures.get(i);
                if (failure != null) {
                    throw new BatchListenerFailedException("Conversion failed", failure, i);
                }
            }
        }
    }

    static class Messages {
        @KafkoListener(id = "convMessages", topics = "conv-messages", batch = "true", autoStartup = "false")
        void on(List<Message<Integer>> messages) {
            BATCHES.add(new ArrayList<>(messages.stream().map(Message::getPayload).toList()));
        }
    }

    static class RecordsWithFailures {
        @KafkoListener(id = "convRecords", topics = "conv-records", batch = "true", autoStartup = "false")
        void on(List<KafkoRecord> records,
                @Header(KafkoHeaders.CONVERSION_FAILURES) List<MessageConversionException> failures) {
        }
    }

    static class MessagesWithFailures {
        @KafkoListener(id = "convMessagesHeader", topics = "conv-messages-header", batch = "true",
                autoStartup = "false")
        void on(List<Message<Integer>> messages,
                @Header(KafkoHeaders.CONVERSION_FAILURES) List<MessageConversionException> failures) {
        }
    }
}
