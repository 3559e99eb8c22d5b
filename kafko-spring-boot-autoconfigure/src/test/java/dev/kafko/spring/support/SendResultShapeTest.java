package dev.kafko.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.json.JsonMapper;

/** A send's result read as spring-kafka code reads it: {@code getRecordMetadata()} and {@code getProducerRecord()}. */
class SendResultShapeTest {

    @Test
    void springKafkasAccessorsGiveWhereAndWhatWasWritten() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=3").run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
                    template.send("orders", 2, "k", "first").join();
                    SendResult<String, String> result = template.send("orders", 2, 1_700_000_000_000L, "k", "second")
                            .join();

                    SendResult.RecordMetadata metadata = result.getRecordMetadata();
                    assertThat(metadata.topic()).isEqualTo("orders");
                    assertThat(metadata.partition()).isEqualTo(2);
                    assertThat(metadata.offset()).isEqualTo(1);
                    assertThat(metadata.timestamp()).isEqualTo(1_700_000_000_000L);
                    assertThat(metadata.hasOffset()).isTrue();
                    assertThat(metadata.hasTimestamp()).isTrue();
                    assertThat(metadata).hasToString("orders-2@1");

                    SendResult.ProducerRecord<String, String> sent = result.getProducerRecord();
                    assertThat(sent.topic()).isEqualTo("orders");
                    assertThat(sent.partition()).isEqualTo(2);
                    assertThat(sent.timestamp()).isEqualTo(1_700_000_000_000L);
                    assertThat(sent.key()).isEqualTo("k");
                    assertThat(sent.value()).isEqualTo("second");

                    // a keyless send to any partition: the views say where the log put it
                    SendResult<String, String> keyless = template.send("orders", "third").join();
                    assertThat(keyless.getProducerRecord().partition()).isEqualTo(keyless.partition());
                    assertThat(keyless.getProducerRecord().key()).isNull();
                    assertThat(keyless.getRecordMetadata().offset()).isEqualTo(keyless.offset());
                });
    }

    /** A result returned from a web endpoint as JSON keeps its six fields, not the views beside them. */
    @Test
    void aResultWrittenAsJsonHoldsItsFieldsOnce() {
        String json = JsonMapper.builder().build()
                .writeValueAsString(new SendResult<>("orders", 1, 7, 42, "k", "v"));
        assertThat(json).isEqualTo(
                "{\"topic\":\"orders\",\"partition\":1,\"offset\":7,\"timestamp\":42,\"key\":\"k\",\"value\":\"v\"}");
    }
}
