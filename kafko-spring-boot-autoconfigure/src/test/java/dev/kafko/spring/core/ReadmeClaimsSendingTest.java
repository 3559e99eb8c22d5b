package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.SendResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Claims of the README's section on sending that no other test checks, each test quoting the sentence it checks. */
class ReadmeClaimsSendingTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.routed.partitions=8");

    /** "a {@code null} partition routes by the key, a {@code null} timestamp takes the log's clock". */
    @Test
    void aNullPartitionRoutesByTheKeyAndANullTimestampTakesTheLogsClock() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (String key : new String[] {"a", "b", "c", "d", "e", "f"}) {
                int byKey = template.send("routed", key, "v").join().partition();
                assertThat(template.send("routed", null, key, "v").join().partition()).as(key).isEqualTo(byKey);
                long before = System.currentTimeMillis();
                SendResult<Object, Object> result = template.send("routed", null, null, key, "v").join();
                long after = System.currentTimeMillis();
                assertThat(result.partition()).as(key).isEqualTo(byKey);
                KafkoRecord record = template.receive("routed", result.partition(), result.offset());
                assertThat(record).isNotNull();
                assertThat(record.timestamp()).isBetween(before, after).isEqualTo(result.timestamp());
            }
        });
    }

    /**
     * "{@code sendDefault(...)} with the same arguments but the topic, for {@code kafko.template.default-topic}".
     */
    @Test
    void sendDefaultTakesEachArgumentListOfSendButTheTopic() {
        runner.withPropertyValues("kafko.template.default-topic=routed").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            SendResult<Object, Object> partitioned = template.sendDefault(5, "k", "v").join();
            assertThat(partitioned.topic()).isEqualTo("routed");
            assertThat(partitioned.partition()).isEqualTo(5);
            SendResult<Object, Object> stamped = template.sendDefault(6, 1234L, "k", "v").join();
            assertThat(stamped.partition()).isEqualTo(6);
            assertThat(stamped.timestamp()).isEqualTo(1234L);
            KafkoRecord record = template.receive("routed", 6, stamped.offset());
            assertThat(record).isNotNull();
            assertThat(record.timestamp()).isEqualTo(1234L);
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("k");
        });
    }

    /** "a topic created on first use is created (and its metadata fsynced) inside the call". */
    @Test
    void aTopicCreatedOnFirstUseExistsOnceTheSendReturns() {
        runner.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("first-use")).isEmpty();
            CompletableFuture<SendResult<Object, Object>> sent = template(context).send("first-use", "v");
            assertThat(kafko.topic("first-use")).isPresent();
            sent.join();
        });
    }

    /**
     * "{@code Mono.fromFuture(() -> template.send(topic, key, value)).subscribeOn(Schedulers.boundedElastic())} (the
     * supplier form, so nothing is sent before the subscription".
     */
    @Test
    void theSupplierFormSendsNothingBeforeTheSubscription() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("routed", 0, "k", "first").join();
            Mono<SendResult<Object, Object>> send = Mono.fromFuture(() -> template.send("routed", 0, "k", "second"))
                    .subscribeOn(Schedulers.boundedElastic());
            assertThat(template.receive("routed", 0, 1, Duration.ZERO)).isNull();
            SendResult<Object, Object> result = send.block(Duration.ofSeconds(20));
            assertThat(result).isNotNull();
            assertThat(result.offset()).isEqualTo(1);
            KafkoRecord record = template.receive("routed", 0, 1);
            assertThat(record).isNotNull();
            assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("second");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }
}
