package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.committed;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.listener.BatchListenerFailedException;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @KafkoListener(filter = ...)} and {@link KafkoListenerContainerFactory#setRecordFilterStrategy}:
 * a listener never sees the records its {@link RecordFilterStrategy} discards, a batch listener is not
 * invoked for a batch it discards whole, and discarded records are committed like processed ones, so a
 * restart on the same data directory does not deliver them again.
 */
class RecordFilterStrategyTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    /** Discards the values that start with "skip". */
    static final RecordFilterStrategy SKIPPING = r -> text(r.value()).startsWith("skip");

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static final List<List<String>> BATCHES = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean("skipping", RecordFilterStrategy.class, () -> SKIPPING)
            .withPropertyValues("kafko.ephemeral=true", "app.filter=skipping");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        BATCHES.clear();
    }

    @Test
    void aRecordListenerNeverSeesTheDiscardedRecordsAndItsGroupCommitsPastThem() {
        runner.withBean(Filtered.class).run(context -> {
            for (String value : List.of("a", "skip-1", "b", "skip-2")) {
                template(context).send("filtered", value).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(RECEIVED).containsExactly("a", "b");
            assertThat(committed(context, "filtered", "records")).isEqualTo(4);
        });
    }

    @Test
    void aBatchListenerGetsItsBatchesWithoutTheDiscardedRecordsAndNothingForABatchDiscardedWhole() {
        runner.withBean(Filtered.class).run(context -> {
            for (String value : List.of("skip-1", "skip-2", "skip-3")) {
                template(context).send("filtered-batches", value).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(BATCHES).as("not invoked for discarded records alone").isEmpty();
            assertThat(committed(context, "filtered-batches", "batches")).isEqualTo(3);

            for (String value : List.of("c", "skip-4", "d", "skip-5")) {
                template(context).send("filtered-batches", value).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(BATCHES)
                    .allSatisfy(batch -> assertThat(batch).isNotEmpty().noneMatch(v -> v.startsWith("skip")));
            assertThat(BATCHES.stream().flatMap(List::stream)).containsExactly("c", "d");
            assertThat(committed(context, "filtered-batches", "batches")).isEqualTo(7);
        });
    }

    @Test
    void aFailedRecordNamedByItsIndexInTheFilteredBatchIsTheOneRecovered() {
        runner.withBean(NamesItsFailure.class)
                .withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=1")
                .run(context -> {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (String value : List.of("skip-a", "keep", "skip-b", "boom", "after")) {
                        batch.add(OutgoingRecord.of(null, value.getBytes(StandardCharsets.UTF_8)));
                    }
                    // one append, so that one poll returns the whole batch
                    context.getBean(Kafko.class).producer("failing").sendBatch(batch).join();
                    KafkoTestUtils.waitForListeners(context, WAIT);

                    assertThat(KafkoTestUtils.records(context, "failing.DLT")).extracting(r -> text(r.value()))
                            .containsExactly("boom");
                    assertThat(RECEIVED).containsExactly("keep", "after");
                    assertThat(committed(context, "failing", "names-its-failure")).isEqualTo(5);
                });
    }

    @Test
    void aFactorysFilterAppliesToItsListenersUnlessTheyNameTheirOwn() {
        runner.withUserConfiguration(FilteringFactory.class).withBean(OnTheFilteringFactory.class).run(context -> {
            for (String topic : List.of("factory-filtered", "own-filter", "default-factory")) {
                template(context).send(topic, "skip-" + topic).join();
                template(context).send(topic, "drop-" + topic).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(RECEIVED).containsExactlyInAnyOrder("drop-factory-filtered", "skip-own-filter",
                    "skip-default-factory", "drop-default-factory");
        });
    }

    @Test
    void anUnknownFilterBeanFailsTheStartNamingTheListenerAndTheBean() {
        runner.withBean(UnknownFilter.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("@KafkoListener 'lost-filter' on UnknownFilter.on: filter 'nope' is no"
                        + " RecordFilterStrategy bean; the RecordFilterStrategy beans are [skipping]"));
    }

    @Test
    void discardedRecordsAreNotDeliveredAgainAfterARestartOnTheSameDataDirectory(@TempDir Path dir) {
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean("skipping", RecordFilterStrategy.class, () -> SKIPPING)
                .withPropertyValues("kafko.data-dir=" + dir, "app.filter=skipping");
        onDir.withBean(Filtered.class).run(context -> {
            for (String topic : List.of("filtered", "filtered-batches")) {
                for (String value : List.of("a", "skip-1", "skip-2")) {
                    template(context).send(topic, value).join();
                }
            }
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).containsExactly("a");
            assertThat(BATCHES.stream().flatMap(List::stream)).containsExactly("a");
        });
        reset();

        // the same listeners (ids, groups) without a filter: they would get whatever was not committed
        onDir.withBean(Unfiltered.class).run(context -> {
            template(context).send("filtered", "b").join();
            template(context).send("filtered-batches", "b").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).containsExactly("b");
            assertThat(BATCHES.stream().flatMap(List::stream)).containsExactly("b");
        });
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static class Filtered {
        @KafkoListener(id = "records", topics = "filtered", filter = "${app.filter}")
        void records(String value) {
            RECEIVED.add(value);
        }

        @KafkoListener(id = "batches", topics = "filtered-batches", batch = "true", filter = "#{@skipping}")
        void batches(List<String> values) {
            BATCHES.add(List.copyOf(values));
        }
    }

    static class Unfiltered {
        @KafkoListener(id = "records", topics = "filtered")
        void records(String value) {
            RECEIVED.add(value);
        }

        @KafkoListener(id = "batches", topics = "filtered-batches", batch = "true")
        void batches(List<String> values) {
            BATCHES.add(List.copyOf(values));
        }
    }

    @Test
    void aNackOfAFilteredBatchCountsItsIndexInTheListTheListenerGot() {
        runner.withBean(NacksFiltered.class).run(context -> {
            List<OutgoingRecord> batch = new ArrayList<>();
            for (String value : List.of("skip-0", "skip-1", "a1", "skip-2", "a2", "a3")) {
                batch.add(OutgoingRecord.of(null, value.getBytes(StandardCharsets.UTF_8)));
            }
            context.getBean(Kafko.class).producer("nacked").sendBatch(batch).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(BATCHES).containsExactly(List.of("a1", "a2", "a3"), List.of("a2", "a3"));
            assertThat(committed(context, "nacked", "nacks-filtered")).isEqualTo(6);
        });
    }

    static class NacksFiltered {
        @KafkoListener(id = "nacks-filtered", topics = "nacked", batch = "true", ackMode = "manual", filter = "skipping")
        void batches(List<String> values, Acknowledgment ack) {
            BATCHES.add(List.copyOf(values));
            if (BATCHES.size() == 1) {
                ack.nack(1, Duration.ofMillis(50)); // a1 done; a2 and a3 again
            } else {
                ack.acknowledge();
            }
        }
    }

    static class NamesItsFailure {
        @KafkoListener(id = "names-its-failure", topics = "failing", batch = "true", filter = "skipping")
        void batches(List<String> values) {
            int failed = values.indexOf("boom");
            if (failed >= 0) {
                RECEIVED.addAll(values.subList(0, failed));
                throw new BatchListenerFailedException("cannot take boom", new IllegalStateException("boom"), failed);
            }
            RECEIVED.addAll(values);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FilteringFactory {
        @Bean
        KafkoListenerContainerFactory dropping(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            KafkoListenerContainerFactory f = kafkoListenerContainerFactory.copy();
            f.setRecordFilterStrategy(r -> text(r.value()).startsWith("skip"));
            return f;
        }

        @Bean
        RecordFilterStrategy dropOnly() {
            return r -> text(r.value()).startsWith("drop");
        }
    }

    static class OnTheFilteringFactory {
        @KafkoListener(id = "factory-filtered", topics = "factory-filtered", containerFactory = "dropping")
        void factoryFiltered(String value) {
            RECEIVED.add(value);
        }

        @KafkoListener(id = "own-filter", topics = "own-filter", containerFactory = "dropping", filter = "dropOnly")
        void ownFilter(String value) {
            RECEIVED.add(value);
        }

        @KafkoListener(id = "default-factory", topics = "default-factory")
        void defaultFactory(String value) {
            RECEIVED.add(value);
        }
    }

    static class UnknownFilter {
        @KafkoListener(id = "lost-filter", topics = "t", filter = "nope")
        void on(String value) {
        }
    }
}
