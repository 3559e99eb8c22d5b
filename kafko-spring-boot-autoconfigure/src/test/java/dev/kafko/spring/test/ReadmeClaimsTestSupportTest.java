package dev.kafko.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.kafko.spring.test.KafkoConditions.key;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import dev.kafko.FsyncPolicy;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.hamcrest.MatcherAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * Claims of the README's "Tests of your own application" read as a contract, those that {@code KafkoTestUtilsTest},
 * {@code KafkoTestUtilsRecordsWaitTest} and the listener tests do not check as the README words them.
 */
class ReadmeClaimsTestSupportTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    @BeforeEach
    void reset() {
        HEARD.clear();
    }

    /**
     * "{@code KafkoTestUtils.records(context, "orders.DLT")} returns every record a topic holds (all partitions, in
     * offset order, read without a group) ...; a topic that does not exist throws {@code UnknownTopicException} (a
     * topic nothing was sent to exists once declared ...)".
     */
    @Test
    void recordsReadsEveryPartitionWithoutAGroupAndADeclaredTopicExistsBeforeAnySend() {
        runner.withPropertyValues("kafko.topics.declared.partitions=2", "kafko.topics.out.partitions=2")
                .run(context -> {
                    assertThat(KafkoTestUtils.records(context, "declared")).isEmpty();
                    assertThatThrownBy(() -> KafkoTestUtils.records(context, "never-declared"))
                            .isInstanceOf(UnknownTopicException.class);

                    KafkoTemplate<Object, Object> template = template(context);
                    for (int i = 0; i < 6; i++) {
                        template.send("out", i % 2, null, "v" + i).join();
                    }
                    List<KafkoRecord> records = KafkoTestUtils.records(context, "out");
                    assertThat(records).extracting(KafkoRecord::partition).containsExactly(0, 0, 0, 1, 1, 1);
                    assertThat(records).extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L, 0L, 1L, 2L);
                    assertThat(records).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                            .containsExactly("v0", "v2", "v4", "v1", "v3", "v5");
                    assertThat(context.getBean(Kafko.class).groups("out")).as("read without a group").isEmpty();
                });
    }

    /**
     * "{@code KafkoTestUtils.waitForListeners} waits until every running listener has consumed up to the end
     * offsets its topics had when it was called (sends made before it that still linger count)".
     */
    @Test
    void aSendThatStillLingersWhenTheCallBeginsIsWaitedFor() {
        runner.withBean(Heard.class).withPropertyValues("kafko.linger=1h").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            KafkoTestUtils.waitForAssignment(context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("heard"), 1, Duration.ofSeconds(20));
            CompletableFuture<?> lingering = template.send("heard", "lingering");

            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(HEARD).containsExactly("lingering");
            assertThat(lingering).isDone();
        });
    }

    /**
     * "A record the listener keeps nacking ({@code nack(sleep)} at every delivery) is never consumed, so the call
     * times out naming its partition and offset".
     */
    @Test
    void aRecordTheListenerKeepsNackingTimesTheCallOutNamingItsPartitionAndOffset() {
        runner.withBean(Nacking.class).withPropertyValues("kafko.listener.ack-mode=manual").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("nacked", "fine").join();
            template.send("nacked", "refused").join();

            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(1)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("did not catch up")
                    .hasMessageContaining("nacked-0 at 1 of 2");
            assertThat(HEARD).startsWith("fine", "refused");
        });
    }

    /**
     * "{@code waitForListeners} waits for running listeners only: with every container stopped ... it returns at
     * once": records that wait for a stopped listener do not fail the call.
     */
    @Test
    void withEveryContainerStoppedTheCallReturnsWithoutWaitingForTheirRecords() {
        runner.withBean(Heard.class).run(context -> {
            context.getBean(KafkoListenerEndpointRegistry.class).stop();
            template(context).send("heard", "unread").join();

            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(HEARD).isEmpty();
        });
    }

    /**
     * "An ephemeral log keeps each topic's fsync policy: a test of a production configuration that declares
     * {@code fsync: every-batch} pays an fsync per send ...; override {@code kafko.topics.<name>.fsync=never}", while
     * the log itself closes without an fsync and fsyncs no metadata.
     */
    @Test
    void anEphemeralLogKeepsEachTopicsFsyncPolicy() {
        runner.withPropertyValues("kafko.topics.payments.fsync=every-batch", "kafko.topics.audit.fsync=never")
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    assertThat(kafko.topic("payments").orElseThrow().config().fsync())
                            .isEqualTo(FsyncPolicy.EVERY_BATCH);
                    assertThat(kafko.topic("audit").orElseThrow().config().fsync()).isEqualTo(FsyncPolicy.NEVER);
                    assertThat(kafko.options().durableClose()).isFalse();
                    assertThat(kafko.options().fsyncMetadata()).isFalse();
                });
    }

    /**
     * "{@code Kafko.groupInfo(topic, group).committed()} for {@code getCurrentOffset} (the next offset to read, as
     * there), {@code KafkoTemplate.partitionsFor(topic)}'s {@code endOffset()}s for {@code getEndOffsets},
     * {@code KafkoTemplate.receive(topic, partition, offset)} for {@code getOneRecord}": a listener's group is its id.
     */
    @Test
    void theOffsetsOfSpringKafkaTestsPortedReadAsThere() {
        runner.withBean(Heard.class).withPropertyValues("kafko.topics.heard.partitions=1").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("heard", "a").join();
            template.send("heard", "b").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(context.getBean(Kafko.class).groupInfo("heard", "heard").committed()).isEqualTo(Map.of(0, 2L));
            assertThat(template.partitionsFor("heard")).extracting(PartitionInfo::endOffset).containsExactly(2L);
            assertThat(new String(template.receive("heard", 0, 1).value(), StandardCharsets.UTF_8)).isEqualTo("b");
        });
    }

    /**
     * "{@code KafkoConditions} (AssertJ) and {@code KafkoMatchers} (Hamcrest) ... Their {@code String} forms compare
     * the string's UTF-8 bytes with the stored ones": the README's three lines, on records sent as it would, and what
     * an AssertJ failure shows.
     */
    @Test
    void theConditionsAndMatchersOfTheReadmeMatchWhatWasSent() {
        runner.withPropertyValues("kafko.topics[orders.DLT].partitions=2").run(context -> {
            context.getBean(Kafko.class).createTopic("orders");
            context.getBean(Kafko.class).producer("orders")
                    .send(utf8("o-1"), utf8("{}"), Headers.of("source", utf8("web"))).join();
            KafkoTemplate<Object, Object> template = template(context);
            template.send("orders.DLT", 0, "o-2", "rejected").join();
            template.send("orders.DLT", 1, "o-3", "rejected").join();
            template.send("payments", "o-1", "{\"order\":\"o-1\",\"paid\":true}").join();
            KafkoRecord record = KafkoTestUtils.singleRecord(context, "orders", Duration.ofSeconds(10));
            List<KafkoRecord> payments = KafkoTestUtils.records(context, "payments");

            assertThat(record).has(key("o-1")).has(KafkoConditions.header("source", "web"));
            assertThat(KafkoTestUtils.records(context, "orders.DLT")).haveExactly(1, key("o-2"));
            MatcherAssert.assertThat(payments, hasItem(KafkoMatchers.hasValue("{\"order\":\"o-1\",\"paid\":true}")));

            assertThat(record).doesNotHave(KafkoConditions.header("source", "app"));
            assertThat(KafkoTestUtils.records(context, "orders.DLT")).haveExactly(0, key("o-1"));
            MatcherAssert.assertThat(payments, not(hasItem(KafkoMatchers.hasValue("{\"order\":\"o-1\"}"))));
            // "an AssertJ failure shows the record as its toString() does, with the sizes of its key and value"
            assertThatThrownBy(() -> assertThat(record).has(key("o-2"))).hasMessageContaining(
                    "LogRecord[orders-0@0, ts=" + record.timestamp() + ", key=3 bytes, value=2 bytes, headers=1]");
        });
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Heard {
        @KafkoListener(id = "heard", topics = "heard")
        void on(String value) {
            HEARD.add(value);
        }
    }

    /** Acknowledges "fine", nacks "refused" at every delivery. */
    static class Nacking {
        @KafkoListener(id = "nacked", topics = "nacked")
        void on(String value, Acknowledgment ack) {
            HEARD.add(value);
            if (value.equals("refused")) {
                ack.nack(Duration.ofMillis(50));
            } else {
                ack.acknowledge();
            }
        }
    }
}
