package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoOptionsCustomizer;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** {@link KafkoTemplate#receive}: the record at an offset, or nothing. */
class ReceiveTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.t.partitions=3");

    @Test
    void readsTheRecordAtTheOffsetOfItsPartitionAsStoredAndCommitsNothing() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 5; i++) {
                template.send("t", 0, "k" + i, "zero-" + i).join();
                template.send("t", 1, null, "one-" + i).join();
            }
            KafkoRecord r = template.receive("t", 0, 3, Duration.ofSeconds(5));
            assertThat(r).isNotNull();
            assertThat(r.topic()).isEqualTo("t");
            assertThat(r.partition()).isZero();
            assertThat(r.offset()).isEqualTo(3);
            assertThat(text(r.key())).isEqualTo("k3");
            assertThat(text(r.value())).isEqualTo("zero-3");
            KafkoRecord other = template.receive("t", 1, 0);
            assertThat(other).isNotNull();
            assertThat(text(other.value())).isEqualTo("one-0");
            assertThat(other.key()).isNull();
            assertThat(context.getBean(Kafko.class).groups("t")).isEmpty();
        });
    }

    @Test
    void readsSeveralOffsetsInTheOrderAskedLeavingOutWhatWasNotWritten() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 3; i++) {
                template.send("t", 0, null, "zero-" + i).join();
                template.send("t", 1, null, "one-" + i).join();
            }
            List<KafkoRecord> records = template.receive(List.of(new TopicPartitionOffset("t", 1, 2),
                    new TopicPartitionOffset("t", 0, 9), new TopicPartitionOffset("t", 0, 0),
                    new TopicPartitionOffset("t", 1, 0)), Duration.ofMillis(50));
            assertThat(records).extracting(r -> text(r.value())).containsExactly("one-2", "zero-0", "one-0");
            assertThat(records).extracting(KafkoRecord::offset).containsExactly(2L, 0L, 0L);
            assertThat(template.receive(List.of(new TopicPartitionOffset("t", 0, 1)))).singleElement()
                    .extracting(r -> text(r.value())).isEqualTo("zero-1");
            assertThat(template.receive(List.of(), Duration.ZERO)).isEmpty();
            assertThat(context.getBean(Kafko.class).groups("t")).isEmpty();
        });
    }

    @Test
    void requestsWithoutAnAbsoluteOffsetAreRefusedBeforeAnythingIsRead() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThatThrownBy(() -> template.receive(List.of(new TopicPartitionOffset("t", 0, 0),
                    new TopicPartitionOffset("t", 1)), Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("receive reads records at absolute offsets, not t-1");
            assertThatThrownBy(() -> template.receive(List.of(new TopicPartitionOffset("t", 2, 3L, true))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("receive reads records at absolute offsets, not t-2@current+3");
            assertThatThrownBy(() -> template.receive(List.of(new TopicPartitionOffset("t", 0, -1))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("receive reads records at absolute offsets, not t-0@-1");
            assertThatThrownBy(() -> template.receive(List.of(new TopicPartitionOffset("nope", 0, 0))))
                    .isInstanceOf(UnknownTopicException.class);
        });
    }

    @Test
    void waitsForARecordNotYetWrittenAndReturnsNullWhenItDoesNotComeInTime() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("t", 2, null, "first").join();
            assertThat(template.receive("t", 2, 1, Duration.ZERO)).isNull();
            assertThat(template.receive("t", 2, 5, Duration.ofMillis(50))).isNull();
            // records of other partitions, and earlier ones of this partition, are not what was asked for
            CompletableFuture<KafkoRecord> waiting = CompletableFuture.supplyAsync(
                    () -> template.receive("t", 2, 2, Duration.ofSeconds(30)));
            template.send("t", 0, null, "elsewhere").join();
            template.send("t", 2, null, "second").join();
            assertThat(waiting).isNotDone();
            template.send("t", 2, null, "third").join();
            KafkoRecord r = waiting.get(30, TimeUnit.SECONDS);
            assertThat(r).isNotNull();
            assertThat(r.offset()).isEqualTo(2);
            assertThat(text(r.value())).isEqualTo("third");
        });
    }

    @Test
    void aRecordRetentionDeletedIsNotThereAndNoOtherRecordStandsInForIt() {
        runner.withBean(KafkoOptionsCustomizer.class, () -> b -> b.retentionCheckInterval(Duration.ofMillis(10)))
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    kafko.createTopic("small", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                            .retentionBytes(TopicConfig.MIN_SEGMENT_BYTES).build());
                    KafkoTemplate<Object, Object> template = template(context);
                    String value = "x".repeat(1000);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    while (kafko.topic("small").orElseThrow().partition(0).logStartOffset() == 0) {
                        assertThat(System.nanoTime()).as("retention deleted a segment").isLessThan(deadline);
                        template.send("small", value).join();
                    }
                    long start = kafko.topic("small").orElseThrow().partition(0).logStartOffset();
                    assertThat(template.receive("small", 0, 0, Duration.ofSeconds(5))).isNull();
                    assertThat(template.receive("small", 0, start - 1, Duration.ZERO)).isNull();
                    KafkoRecord first = template.receive("small", 0, start, Duration.ofSeconds(5));
                    assertThat(first).isNotNull();
                    assertThat(first.offset()).isEqualTo(start);
                });
    }

    @Test
    void badRequestsAreRefusedWithTheirReasonAndAReadCreatesNoTopic() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThatThrownBy(() -> template.receive("missing", 0, 0, Duration.ZERO))
                    .isInstanceOf(UnknownTopicException.class).hasMessageContaining("missing");
            assertThat(context.getBean(Kafko.class).topic("missing")).isEmpty();
            assertThatThrownBy(() -> template.receive("t", 3, 0, Duration.ZERO))
                    .isInstanceOf(InvalidPartitionException.class);
            assertThatThrownBy(() -> template.receive("t", -1, 0, Duration.ZERO))
                    .isInstanceOf(InvalidPartitionException.class);
            assertThatThrownBy(() -> template.receive("t", 0, -1, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offset");
            assertThatThrownBy(() -> template.receive("t", 0, 0, Duration.ofMillis(-1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
            assertThatThrownBy(() -> template.receive("t", 0, 0, null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("pollTimeout");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
