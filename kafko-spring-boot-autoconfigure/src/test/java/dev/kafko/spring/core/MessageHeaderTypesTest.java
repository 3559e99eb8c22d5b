package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.support.MessageBuilder;

/**
 * {@code send(Message)} with routing headers of the wrong type or out of range, as a spring-kafka user writes
 * them by mistake: each is refused at the call with a typed error naming the header or the partition, nothing is
 * written, and a producer listener that throws on the failure changes none of that.
 */
class MessageHeaderTypesTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    static class Throwing implements ProducerListener<Object, Object> {
        @Override
        public void onSuccess(SendResult<Object, Object> result) {
            HEARD.add("ok " + result.partition());
            throw new IllegalStateException("listener broke on success");
        }

        @Override
        public void onError(String topic, @Nullable Integer partition, @Nullable Object key, @Nullable Object value,
                            Throwable exception) {
            HEARD.add("error " + partition + " " + exception.getClass().getSimpleName());
            throw new IllegalStateException("listener broke on error");
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean("throwing", ProducerListener.class, Throwing::new)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.h.partitions=2");

    @Test
    @SuppressWarnings("unchecked")
    void routingHeadersOfTheWrongTypeOrOutOfRangeAreRefusedByNameAndWriteNothing() {
        HEARD.clear();
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            assertThatThrownBy(() -> template.send(message().setHeader(KafkoHeaders.PARTITION, "1").build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(KafkoHeaders.PARTITION)
                    .hasMessageContaining("Integer");
            assertThatThrownBy(() -> template.send(message().setHeader(KafkoHeaders.TIMESTAMP, 5).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(KafkoHeaders.TIMESTAMP)
                    .hasMessageContaining("Long");
            assertThatThrownBy(() -> template.send(message().setHeader(KafkoHeaders.TIMESTAMP, -86_400_000L).build()))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be negative");
            for (int partition : new int[] {2, -1}) {
                assertThatThrownBy(() -> template.send(message().setHeader(KafkoHeaders.PARTITION, partition).build()))
                        .isInstanceOf(InvalidPartitionException.class).hasMessageContaining("partition " + partition)
                        .hasMessageContaining("0..1");
            }
            assertThat(HEARD).containsExactly("error 2 InvalidPartitionException", "error -1 InvalidPartitionException");
            assertThat(KafkoTestUtils.records(context.getBean(Kafko.class), "h")).isEmpty();
            // a header of the right type still routes, and a listener that throws on success changes nothing
            assertThat(template.send(message().setHeader(KafkoHeaders.PARTITION, 1).setHeader(KafkoHeaders.KEY, 7)
                    .build()).join().partition()).isEqualTo(1);
            assertThat(HEARD).last().isEqualTo("ok 1");
            assertThat(KafkoTestUtils.records(context.getBean(Kafko.class), "h")).hasSize(1);
        });
    }

    private static MessageBuilder<String> message() {
        return MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "h");
    }
}
