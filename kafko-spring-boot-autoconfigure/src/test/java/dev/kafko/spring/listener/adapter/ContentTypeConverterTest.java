package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.bytes;
import static dev.kafko.spring.listener.adapter.ContentTypeHeaderTest.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor;
import dev.kafko.spring.listener.adapter.ContentTypeHeaderTest.UpperCaseConverter;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.AbstractMessageConverter;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.MimeType;

/**
 * {@code @KafkoListener(contentTypeConverter = ...)}, as spring-kafka's: the named converter is asked first for that
 * listener's payloads (record and batch, records without headers too), kafko's converters convert what it leaves,
 * and other listeners are not touched. A name that is no such bean, and a handler factory of the application's own
 * making, fail the start naming the listener.
 */
class ContentTypeConverterTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(1)
            .withBean("upper", SmartMessageConverter.class, UpperCaseConverter::new)
            .withBean("tagging", SmartMessageConverter.class, Tagging::new);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    @Test
    void theListenersConverterIsAskedFirstAndKafkosConvertWhatItLeaves() {
        runner.withBean(Listeners.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            for (String topic : List.of("ctc-record", "ctc-batch", "ctc-none")) {
                kafko.producer(topic).send(OutgoingRecord.of(null, bytes("loud"), headers("application/x-upper")))
                        .join();
                kafko.producer(topic).send(OutgoingRecord.of(null, bytes("plain"), headers("text/plain"))).join();
                kafko.producer(topic).send(null, bytes("bare")).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).filteredOn(seen -> seen.startsWith("record ")).containsExactly("record LOUD",
                    "record plain", "record bare");
            assertThat(SEEN).filteredOn(seen -> seen.startsWith("batch ")).containsExactly("batch LOUD",
                    "batch plain", "batch bare");
            // a listener without one reads the same records by their type alone
            assertThat(SEEN).filteredOn(seen -> seen.startsWith("none ")).containsExactly("none loud", "none plain",
                    "none bare");
        });
    }

    @Test
    void aRecordWithoutHeadersGoesThroughTheConverterTooAndSpelMayNameTheConverterItself() {
        runner.withBean(Everything.class).run(context -> {
            context.getBean(Kafko.class).producer("ctc-all").send(null, bytes("bare")).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("all tagged bare");
        });
    }

    @Test
    void aClassLevelListenersHandlersGoThroughItToo() {
        runner.withBean(ClassLevel.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.producer("ctc-class").send(OutgoingRecord.of(null, bytes("loud"), headers("application/x-upper")))
                    .join();
            kafko.producer("ctc-class").send(OutgoingRecord.of(null, bytes("plain"), headers("text/plain"))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).containsExactly("class LOUD", "class plain");
        });
    }

    @Test
    void aNameThatIsNoConverterBeanFailsTheStartNamingTheListener() {
        runner.withBean(Misnamed.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidKafkoListenerException.class)
                    .hasMessageContaining("ctc-misnamed")
                    .hasMessageContaining("contentTypeConverter 'nosuch' is no SmartMessageConverter bean")
                    .hasMessageContaining("upper").hasMessageContaining("tagging");
        });
    }

    @Test
    void aHandlerFactoryOfTheApplicationsOwnMakingFailsTheStartOfAListenerWithAConverter() {
        runner.withBean(KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME,
                        MessageHandlerMethodFactory.class, () -> {
                            DefaultMessageHandlerMethodFactory own = new DefaultMessageHandlerMethodFactory();
                            own.setMessageConverter(new StringMessageConverter());
                            own.afterPropertiesSet();
                            return own;
                        })
                .withBean(Listeners.class).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("Listener 'ctc-record'")
                            .hasMessageContaining("has a contentTypeConverter")
                            .hasMessageContaining(DefaultMessageHandlerMethodFactory.class.getName())
                            .hasMessageContaining("KafkoArgumentResolvers.handlerMethodFactory");
                });
    }

    /** Reads every String payload, with a content type or without, as "tagged ...". */
    static final class Tagging extends AbstractMessageConverter {
        Tagging() {
            super(new MimeType("application", "x-tag"));
        }

        @Override
        protected boolean supports(Class<?> type) {
            return type == String.class;
        }

        @Override
        protected Object convertFromInternal(Message<?> message, Class<?> targetClass, @Nullable Object hint) {
            return "tagged " + new String((byte[]) message.getPayload(), StandardCharsets.UTF_8);
        }
    }

    static class Listeners {
        @KafkoListener(id = "ctc-record", topics = "ctc-record", contentTypeConverter = "upper")
        void record(String value) {
            SEEN.add("record " + value);
        }

        @KafkoListener(id = "ctc-batch", topics = "ctc-batch", batch = "true", contentTypeConverter = "${ctc:upper}")
        void batch(List<String> values) {
            values.forEach(value -> SEEN.add("batch " + value));
        }

        @KafkoListener(id = "ctc-none", topics = "ctc-none")
        void none(String value) {
            SEEN.add("none " + value);
        }
    }

    static class Everything {
        @KafkoListener(id = "ctc-all", topics = "ctc-all", contentTypeConverter = "#{@tagging}")
        void all(String value) {
            SEEN.add("all " + value);
        }
    }

    @KafkoListener(id = "ctc-class", topics = "ctc-class", contentTypeConverter = "upper")
    static class ClassLevel {
        @KafkoHandler(isDefault = true)
        void on(String value) {
            SEEN.add("class " + value);
        }
    }

    static class Misnamed {
        @KafkoListener(id = "ctc-misnamed", topics = "ctc-misnamed", contentTypeConverter = "nosuch")
        void on(String value) {
        }
    }
}
