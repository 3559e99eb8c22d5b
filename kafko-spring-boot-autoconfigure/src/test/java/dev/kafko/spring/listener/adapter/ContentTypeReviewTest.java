package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static dev.kafko.spring.listener.adapter.ContentTypeHeaderTest.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.DltHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.listener.BatchListenerFailedException;
import dev.kafko.spring.listener.adapter.ContentTypeHeaderTest.UpperCaseConverter;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import jakarta.validation.Valid;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.AbstractMessageConverter;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.util.MimeType;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * A review of {@code @KafkoListener(contentTypeConverter)} and of the {@code contentType} header's text: a converter
 * that fails (by throwing, or on a content type that is no MIME type) fails the record as a conversion, without
 * retries, for a batch listener as for a record listener; a tombstone never reaches the converter; a charset
 * parameter reaches a converter that reads it; the default converters pass over a content type that is no MIME type;
 * the validator checks what the converter made; the retry and dead-letter endpoints of a {@code @RetryableTopic}
 * convert through it too.
 */
class ContentTypeReviewTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    /** The calls of {@link Picky#canConvertFrom} per payload (the name of the record's topic). */
    static final Map<String, AtomicInteger> ASKED = new ConcurrentHashMap<>();
    static final List<Object> HANDED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(3)
            .withBean("picky", SmartMessageConverter.class, Picky::new)
            .withBean("upper", SmartMessageConverter.class, UpperCaseConverter::new)
            .withBean("strings", SmartMessageConverter.class, StringMessageConverter::new);

    @BeforeEach
    void reset() {
        SEEN.clear();
        ASKED.clear();
        HANDED.clear();
    }

    @Test
    void aConverterThatFailsFailsTheRecordOnceAsAConversionInBatchAndRecordListeners() {
        runner.withBean(Failing.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (String topic : List.of("ctr-rec-throw", "ctr-batch-throw")) {
                kafko.producer(topic).send(OutgoingRecord.of(null, bytes(topic), headers("application/x-picky")))
                        .join();
            }
            for (String topic : List.of("ctr-rec-invalid", "ctr-batch-invalid")) {
                kafko.producer(topic).send(OutgoingRecord.of(null, bytes(topic), headers("no type at all"))).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).isEmpty();
            for (String topic : List.of("ctr-rec-throw", "ctr-batch-throw", "ctr-rec-invalid", "ctr-batch-invalid")) {
                assertThat(ASKED.get(topic)).as("attempts at %s", topic).hasValue(1);
                assertThat(KafkoTestUtils.records(context, topic + ".DLT")).as(topic).singleElement()
                        .satisfies(r -> assertThat(ListenerTestSupport.text(
                                r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN))).as(topic)
                                .isIn("org.springframework.messaging.converter.MessageConversionException",
                                        "org.springframework.messaging.handler.invocation"
                                                + ".MethodArgumentResolutionException"));
            }
        });
    }

    @Test
    void aTombstoneNeverReachesTheConverterOfAnOptionalPayloadOrABatch() {
        runner.withBean(Tombstones.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (String topic : List.of("ctr-tomb", "ctr-tomb-batch")) {
                kafko.producer(topic).send(OutgoingRecord.of(null, null, headers("application/x-picky"))).join();
                kafko.producer(topic).send(null, null).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactlyInAnyOrder("tomb null", "tomb null", "batch null", "batch null");
            assertThat(HANDED).isEmpty();
        });
    }

    @Test
    void aCharsetParameterReachesAConverterThatReadsItQuotedOrNot() {
        runner.withBean(Charsets.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            byte[] latin1 = "café".getBytes(StandardCharsets.ISO_8859_1);
            kafko.producer("ctr-charset").send(OutgoingRecord.of(null, latin1,
                    headers("text/plain;charset=ISO-8859-1"))).join();
            kafko.producer("ctr-charset").send(OutgoingRecord.of(null, latin1,
                    headers("\"text/plain;charset=ISO-8859-1\""))).join();
            kafko.producer("ctr-charset").send(OutgoingRecord.of(null, bytes("café"), headers("text/plain"))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("charset café", "charset café", "charset café");
        });
    }

    @Test
    void theDefaultConvertersPassOverAContentTypeThatIsNoMimeType() {
        runner.withBean(Plain.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (String type : List.of("no type at all", "", "\"\"", "text/")) {
                kafko.producer("ctr-plain").send(OutgoingRecord.of(null, bytes("v"), headers(type))).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("plain v no type at all", "plain v ", "plain v ", "plain v text/");
            assertThat(KafkoTestUtils.records(context, "ctr-plain.DLT")).isEmpty();
        });
    }

    @Test
    void theValidatorChecksWhatTheListenersConverterMade() {
        runner.withBean(Validator.class, () -> new Validator() {
            @Override
            public boolean supports(Class<?> type) {
                return type == String.class;
            }

            @Override
            public void validate(Object target, Errors errors) {
                if (target.equals("BAD")) {
                    errors.reject("bad");
                }
            }
        }).withBean(Validated.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.producer("ctr-valid").send(OutgoingRecord.of(null, bytes("bad"), headers("application/x-upper")))
                    .join();
            kafko.producer("ctr-valid").send(OutgoingRecord.of(null, bytes("good"), headers("application/x-upper")))
                    .join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("valid GOOD");
            assertThat(KafkoTestUtils.records(context, "ctr-valid.DLT")).singleElement()
                    .satisfies(r -> assertThat(ListenerTestSupport.text(r.value())).isEqualTo("bad"));
        });
    }

    @Test
    void theRetryAndDeadLetterEndpointsOfARetryableTopicConvertThroughTheListenersConverter() {
        runner.withBean(Retried.class).run(context -> {
            context.getBean(Kafko.class).producer("ctr-retried").send(OutgoingRecord.of(null, bytes("loud"),
                    headers("application/x-upper"))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("attempt LOUD", "attempt LOUD", "dead LOUD");
        });
    }

    /**
     * Reads {@code application/x-picky} Strings only, and fails each: it counts every question put to it by the
     * payload, and keeps every payload it is handed.
     */
    static final class Picky extends AbstractMessageConverter {
        Picky() {
            super(new MimeType("application", "x-picky"));
            setStrictContentTypeMatch(true);
        }

        @Override
        protected boolean supports(Class<?> type) {
            return type == String.class;
        }

        @Override
        protected boolean canConvertFrom(Message<?> message, @Nullable Class<?> targetClass) {
            if (message.getPayload() instanceof byte[] payload) {
                ASKED.computeIfAbsent(new String(payload, StandardCharsets.UTF_8), t -> new AtomicInteger())
                        .incrementAndGet();
            }
            return super.canConvertFrom(message, targetClass);
        }

        @Override
        protected Object convertFromInternal(Message<?> message, Class<?> targetClass, @Nullable Object hint) {
            HANDED.add(message.getPayload());
            throw new IllegalStateException("picky reads nothing");
        }
    }

    static class Failing {
        @KafkoListener(id = "ctr-rec", topics = {"ctr-rec-throw", "ctr-rec-invalid"}, contentTypeConverter = "picky")
        void record(String value) {
            SEEN.add("record " + value);
        }

        /** Names the record that did not convert, as spring-kafka's reference does: it fails alone, as a conversion. */
        @KafkoListener(id = "ctr-batch", topics = {"ctr-batch-throw", "ctr-batch-invalid"}, batch = "true",
                contentTypeConverter = "picky")
        void batch(List<@Nullable String> values,
                   @Header(KafkoHeaders.CONVERSION_FAILURES) List<@Nullable MessageConversionException> failures) {
            for (int i = 0; i < values.size(); i++) {
                MessageConversionException failure = failures.get(i);
                if (failure != null) {
                    throw new BatchListenerFailedException("cannot convert", failure, i);
                }
                SEEN.add("batch " + values.get(i));
            }
        }
    }

    static class Tombstones {
        @KafkoListener(id = "ctr-tomb", topics = "ctr-tomb", contentTypeConverter = "picky")
        void record(@Payload(required = false) @Nullable String value) {
            SEEN.add("tomb " + value);
        }

        @KafkoListener(id = "ctr-tomb-batch", topics = "ctr-tomb-batch", batch = "true", contentTypeConverter = "picky")
        void batch(List<@Nullable String> values) {
            values.forEach(value -> SEEN.add("batch " + value));
        }
    }

    static class Charsets {
        @KafkoListener(id = "ctr-charset", topics = "ctr-charset", contentTypeConverter = "strings")
        void on(String value) {
            SEEN.add("charset " + value);
        }
    }

    static class Plain {
        @KafkoListener(id = "ctr-plain", topics = "ctr-plain")
        void on(String value, @org.springframework.messaging.handler.annotation.Header(MessageHeaders.CONTENT_TYPE)
                String type) {
            SEEN.add("plain " + value + " " + type);
        }
    }

    static class Validated {
        @KafkoListener(id = "ctr-valid", topics = "ctr-valid", contentTypeConverter = "upper")
        void on(@Valid String value) {
            SEEN.add("valid " + value);
        }
    }

    static class Retried {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "ctr-retried", topics = "ctr-retried", contentTypeConverter = "upper")
        void on(String value) {
            SEEN.add("attempt " + value);
            throw new IllegalStateException("not now");
        }

        @DltHandler
        void dead(String value) {
            SEEN.add("dead " + value);
        }
    }
}
