package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * A spring-kafka application half ported: the listener annotations renamed, an import of spring-kafka's
 * {@code Acknowledgment} or {@code KafkaHeaders} left in place (spring-kafka still on the class path, as while a team
 * moves one topic at a time). Such a listener started, and then every record of its topic failed to convert (the
 * {@code Acknowledgment} parameter was given the payload; the {@code kafka_receivedMessageKey} header is on no record
 * kafko delivers), without retries, and was logged and skipped: committed, never processed. It fails start-up now,
 * naming the listener, the parameter and kafko's counterpart.
 */
class SpringKafkaLeftoversTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void clear() {
        RECEIVED.clear();
    }

    @Test
    void aListenerThatTakesSpringKafkasAcknowledgmentFailsStartUpNamingKafkosOwn() {
        runner.withUserConfiguration(SpringKafkaAck.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@KafkoListener 'leftover-ack'")
                    .hasMessageContaining("parameter 2")
                    .hasMessageContaining("org.springframework.kafka.support.Acknowledgment")
                    .hasMessageContaining("use dev.kafko.spring.support.Acknowledgment");
        });
    }

    @Test
    void aListenerThatReadsSpringKafkasReceivedKeyHeaderFailsStartUpNamingKafkosHeader() {
        runner.withUserConfiguration(SpringKafkaHeader.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@KafkoListener 'leftover-header'")
                    .hasMessageContaining("spring-kafka's header 'kafka_receivedMessageKey'")
                    .hasMessageContaining("'" + KafkoHeaders.RECEIVED_KEY + "'");
        });
    }

    @Test
    void aBatchListenerThatReadsSpringKafkasTimestampTypeFailsStartUpSayingKafkoHasNone() {
        runner.withUserConfiguration(SpringKafkaOnlyHeader.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@KafkoListener 'leftover-batch'")
                    .hasMessageContaining("'kafka_timestampType'")
                    .hasMessageContaining("kafko has no counterpart");
        });
    }

    /** spring-kafka's {@code KafkaHeaders.CONVERSION_FAILURES} has kafko's of the same meaning. */
    @Test
    void springKafkasConversionFailuresHeaderNamesKafkosCounterpart() {
        assertThat(SpringKafkaLeftovers.kafkoHeaderFor("kafka_conversionFailures"))
                .isEqualTo(KafkoHeaders.CONVERSION_FAILURES);
    }

    @Test
    void aSendToWithSpringKafkasRuntimeExpressionFailsStartUpSayingWhatToDoInstead() {
        runner.withUserConfiguration(RuntimeSendTo.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(invalidListener(context.getStartupFailure()))
                    .hasMessageContaining("@SendTo of @KafkoListener 'leftover-send-to'")
                    .hasMessageContaining("runtime expression '!{request.value()}'")
                    .hasMessageContaining("KafkoHeaders.TOPIC");
        });
    }

    @Test
    void anApplicationsOwnHeadersAndKafkosNamesStillWork() {
        runner.withUserConfiguration(Ported.class).run(context -> {
            assertThat(context).hasNotFailed();
            @SuppressWarnings("unchecked")
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            template.send(org.springframework.messaging.support.MessageBuilder.withPayload("a")
                    .setHeader(KafkoHeaders.TOPIC, "ported").setHeader(KafkoHeaders.KEY, "k")
                    .setHeader("kafka_own", "mine").build()).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("a/k/mine");
        });
    }

    private static InvalidKafkoListenerException invalidListener(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof InvalidKafkoListenerException)) {
            t = t.getCause();
        }
        assertThat(t).as("an InvalidKafkoListenerException among the causes of %s", failure).isNotNull();
        return (InvalidKafkoListenerException) t;
    }

    @Configuration(proxyBeanMethods = false)
    static class SpringKafkaAck {
        @Bean
        AckListener ackListener() {
            return new AckListener();
        }
    }

    static class AckListener {
        @KafkoListener(id = "leftover-ack", topics = "leftover-ack", ackMode = "manual")
        void on(String value, org.springframework.kafka.support.Acknowledgment ack) {
            RECEIVED.add(value);
            ack.acknowledge();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SpringKafkaHeader {
        @Bean
        HeaderListener headerListener() {
            return new HeaderListener();
        }
    }

    static class HeaderListener {
        // spring-kafka's KafkaHeaders.RECEIVED_KEY
        @KafkoListener(id = "leftover-header", topics = "leftover-header")
        void on(String value, @Header("kafka_receivedMessageKey") String key) {
            RECEIVED.add(value + "/" + key);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SpringKafkaOnlyHeader {
        @Bean
        BatchListener batchListener() {
            return new BatchListener();
        }
    }

    static class BatchListener {
        // spring-kafka's KafkaHeaders.TIMESTAMP_TYPE
        @KafkoListener(id = "leftover-batch", topics = "leftover-batch", batch = "true")
        void on(List<String> values, @Header(name = "kafka_timestampType", required = false) List<String> types) {
            RECEIVED.addAll(values);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class RuntimeSendTo {
        @Bean
        SendToListener sendToListener() {
            return new SendToListener();
        }
    }

    static class SendToListener {
        @KafkoListener(id = "leftover-send-to", topics = "leftover-send-to")
        @SendTo("!{request.value()}")
        String on(String value) {
            return value;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Ported {
        @Bean
        PortedListener portedListener() {
            return new PortedListener();
        }
    }

    static class PortedListener {
        @KafkoListener(id = "ported", topics = "ported")
        void on(String value, @Header(KafkoHeaders.RECEIVED_KEY) String key, @Header("kafka_own") String own) {
            RECEIVED.add(value + "/" + key + "/" + own);
        }
    }
}
