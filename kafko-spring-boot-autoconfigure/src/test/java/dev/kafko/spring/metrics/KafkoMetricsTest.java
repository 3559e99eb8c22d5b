package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class KafkoMetricsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class).withBean(Listeners.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.metered.partitions=2",
                    "kafko.listener.retry.max-attempts=2", "kafko.listener.dead-letter.enabled=true");

    @Test
    void metersReflectTrafficAndEngineState() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (int i = 0; i < 10; i++) {
                template.send("metered", i % 2, null, "v" + i).join();
            }
            template.send("metered", 0, null, "fail").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(registry.get("kafko.template.send").tag("topic", "metered").tag("outcome", "success")
                    .timer().count()).isEqualTo(11);
            assertThat(registry.get("kafko.listener.process").tag("listener", "metered").tag("topic", "metered")
                    .tag("outcome", "success").timer().count()).isEqualTo(10);
            assertThat(registry.get("kafko.listener.process").tag("outcome", "failure").timer().count()).isEqualTo(2);
            assertThat(registry.get("kafko.listener.dead.letter").tag("topic", "metered").counter().count()).isEqualTo(1);
            assertThat(registry.get("kafko.log.end.offset").tag("topic", "metered").tag("partition", "0")
                    .gauge().value()).isEqualTo(6);
            assertThat(registry.get("kafko.log.end.offset").tag("topic", "metered").tag("partition", "1")
                    .gauge().value()).isEqualTo(5);
            assertThat(registry.get("kafko.log.size").tag("topic", "metered").tag("partition", "0")
                    .gauge().value()).isPositive();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(registry.get("kafko.consumer.lag").tag("topic", "metered").tag("group", "metered")
                            .tag("partition", "0").gauge().value()).isZero());
        });
    }

    @Test
    void aFailedPartitionReadsOneOnItsFailedGaugeAsLongAsItIsFailed() {
        MeterRegistry registry = new SimpleMeterRegistry();
        KafkoMetrics metrics = metricsOf(registry, "orders", new dev.kafko.PartitionInfo("orders", 0, 0, 5, 100, 1,
                dev.kafko.PartitionState.RUNNING, null), new dev.kafko.PartitionInfo("orders", 1, 0, 5, 100, 1,
                dev.kafko.PartitionState.FAILED, new dev.kafko.KafkoStorageException("No space left on device")));
        metrics.onAppend("orders", 0, 1, 100, 1);
        metrics.onAppend("orders", 1, 1, 100, 1);
        metrics.onFailure("orders", 1, new dev.kafko.KafkoStorageException("No space left on device"));
        assertThat(registry.get("kafko.log.failed").tag("partition", "0").gauge().value()).isZero();
        assertThat(registry.get("kafko.log.failed").tag("partition", "1").gauge().value()).isEqualTo(1);
        assertThat(registry.get("kafko.log.failures").tag("partition", "1").counter().count()).isEqualTo(1);
    }

    @Test
    void aPartitionThatFailsBeforeItsFirstAppendGetsItsGaugesAndItsFailureCounted() {
        MeterRegistry registry = new SimpleMeterRegistry();
        KafkoMetrics metrics = metricsOf(registry, "orders.DLT", new dev.kafko.PartitionInfo("orders.DLT", 0, 0, 0, 0,
                1, dev.kafko.PartitionState.FAILED, new dev.kafko.KafkoStorageException("No space left on device")));
        metrics.onFailure("orders.DLT", 0, new dev.kafko.KafkoStorageException("No space left on device"));
        assertThat(registry.get("kafko.log.failed").tag("topic", "orders.DLT").tag("partition", "0").gauge().value())
                .isEqualTo(1);
        assertThat(registry.get("kafko.log.failures").tag("topic", "orders.DLT").counter().count()).isEqualTo(1);
    }

    @Test
    void aFailureReportedAfterItsTopicWasDeletedRegistersNoMeter() {
        MeterRegistry registry = new SimpleMeterRegistry();
        KafkoMetrics metrics = metricsOf(registry, "live", new dev.kafko.PartitionInfo("live", 0, 0, 0, 0, 1,
                dev.kafko.PartitionState.RUNNING, null));
        metrics.onTopicDeleted("gone");
        metrics.onFailure("gone", 0, new dev.kafko.KafkoStorageException("closing a deleted partition"));
        assertThat(registry.find("kafko.log.failed").tag("topic", "gone").meters()).isEmpty();
        assertThat(registry.find("kafko.log.failures").tag("topic", "gone").meters()).isEmpty();
        metrics.onFailure("live", 0, new dev.kafko.KafkoStorageException("No space left on device"));
        assertThat(registry.get("kafko.log.failures").tag("topic", "live").counter().count()).isEqualTo(1);
    }

    @Test
    void aListenersDeadLetterTopicHasItsGaugesFromTheListenersStartAndTheFailureCounterAtZero() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("kafko.log.end.offset").tag("topic", "metered.DLT").tag("partition", "1")
                    .gauge().value()).isZero();
            assertThat(registry.get("kafko.log.failures").tag("topic", "metered.DLT").tag("partition", "0")
                    .counter().count()).isZero();
        });
    }

    @Test
    void aListenerOnATopicWhoseNameCannotTakeTheDeadLetterSuffixStarts() {
        String longName = "t".repeat(249);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class,
                        KafkoMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withBean(LongNamed.class)
                .withPropertyValues("kafko.ephemeral=true").run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(MeterRegistry.class).get("kafko.log.end.offset").tag("topic", longName)
                            .gauge().value()).isZero();
                });
    }

    static class LongNamed {
        @KafkoListener(id = "long", topics = "#{'t'.repeat(249)}")
        void on(String value) {
        }
    }

    @Test
    void aDeletedTopicLeavesNoMetersAndOneCreatedAgainGetsNewOnes() {
        runner.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            kafko.createTopic("scratch", dev.kafko.TopicConfig.builder().partitions(3).build());
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("scratch", "through the template").join();
            assertThat(registry.find("kafko.template.send").tag("topic", "scratch").meters()).isNotEmpty();
            kafko.producer("scratch").send(null, "x".getBytes()).join();
            kafko.producer("scratch").send(null, "y".getBytes()).join();
            try (var consumer = kafko.groupConsumer("scratch", "readers")) {
                consumer.poll(Duration.ofSeconds(1));
                consumer.commit();
            }
            assertThat(registry.find("kafko.consumer.lag").tag("topic", "scratch").meters()).isNotEmpty();
            kafko.deleteTopic("scratch");
            for (String name : new String[] {"kafko.log.end.offset", "kafko.log.size", "kafko.log.failures",
                    "kafko.consumer.lag", "kafko.template.send"}) {
                assertThat(registry.find(name).tag("topic", "scratch").meters()).as(name).isEmpty();
            }
            // no NaN left behind in a sum over every series
            assertThat(registry.find("kafko.log.size").gauges()).allSatisfy(g -> assertThat(g.value()).isNotNaN());
            kafko.createTopic("scratch");
            kafko.producer("scratch").send(null, "z".getBytes()).join();
            assertThat(registry.find("kafko.log.end.offset").tag("topic", "scratch").gauges()).singleElement()
                    .satisfies(g -> assertThat(g.value()).isEqualTo(1));
        });
    }

    /** A deleted group's lag gauges go (an old projection's group would otherwise alert for ever), and come back. */
    @Test
    void aDeletedGroupLeavesNoLagGaugesAndOneUsedAgainGetsThemAnew() {
        runner.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            kafko.createTopic("events", dev.kafko.TopicConfig.builder().partitions(2).build());
            kafko.producer("events").sendTo(0, null, "x".getBytes()).join();
            kafko.producer("events").sendTo(1, null, "y".getBytes()).join();
            for (String group : new String[] {"projection-v1", "projection-v2"}) {
                try (var consumer = kafko.groupConsumer("events", group)) {
                    consumer.poll(Duration.ofMillis(100));
                    consumer.commit(java.util.Map.of(0, 0L));
                }
            }
            assertThat(registry.find("kafko.consumer.lag").tag("group", "projection-v1").gauges()).hasSize(2);

            assertThat(kafko.deleteGroup("events", "projection-v1")).isTrue();

            assertThat(registry.find("kafko.consumer.lag").tag("group", "projection-v1").meters()).isEmpty();
            assertThat(registry.find("kafko.consumer.lag").tag("group", "projection-v2").gauges()).hasSize(2);
            assertThat(registry.find("kafko.log.end.offset").tag("topic", "events").gauges()).hasSize(2);
            try (var consumer = kafko.groupConsumer("events", "projection-v1")) {
                consumer.poll(Duration.ofMillis(100));
                consumer.commit(java.util.Map.of(1, 1L));
            }
            assertThat(registry.find("kafko.consumer.lag").tag("group", "projection-v1").gauges()).hasSize(2)
                    .allSatisfy(g -> assertThat(g.value()).isNotNaN());
        });
    }

    @Test
    void aDeletedTopicLeavesNoMetersAlsoWhenAFilterRenamedThem() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // a platform's prefix on every meter
        registry.config().meterFilter(new io.micrometer.core.instrument.config.MeterFilter() {
            @Override
            public io.micrometer.core.instrument.Meter.Id map(io.micrometer.core.instrument.Meter.Id id) {
                return id.withName("platform." + id.getName());
            }
        });
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> registry)
                .withPropertyValues("kafko.ephemeral=true").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.createTopic("scratch", dev.kafko.TopicConfig.builder().partitions(2).build());
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("scratch", "through the template").join();
            assertThat(registry.find("platform.kafko.log.size").tag("topic", "scratch").meters()).isNotEmpty();
            kafko.deleteTopic("scratch");
            assertThat(registry.getMeters()).noneSatisfy(m -> assertThat(m.getId().getTag("topic")).isEqualTo("scratch"));
            assertThat(registry.find("platform.kafko.log.size").gauges())
                    .allSatisfy(g -> assertThat(g.value()).isNotNaN());
        });
    }

    @Test
    void aDeletedTopicLeavesTheMetersThatAFilterMergedWithALiveTopicsInPlace() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().meterFilter(io.micrometer.core.instrument.config.MeterFilter.replaceTagValues("topic",
                t -> t.startsWith("tmp-") ? "tmp" : t));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> registry)
                .withPropertyValues("kafko.ephemeral=true").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("tmp-1", "a").join();
            template.send("tmp-2", "b").join();
            kafko.deleteTopic("tmp-2");
            template.send("tmp-1", "c").join();
            // tmp-1 still counts in the meter it shares with the deleted tmp-2
            assertThat(registry.get("kafko.template.send").tag("topic", "tmp").tag("outcome", "success").timer()
                    .count()).isEqualTo(3);
        });
    }

    @Test
    void theLogSizeIsInBytesAndAClosedContextLeavesNoMeterInARegistryThatOutlivesIt() {
        MeterRegistry shared = new SimpleMeterRegistry();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> shared).withBean(Listeners.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.metered.partitions=2")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("metered", "v").join();
                    assertThat(shared.get("kafko.log.size").tag("partition", "0").gauge().getId().getBaseUnit())
                            .isEqualTo("bytes");
                    assertThat(shared.find("kafko.template.send").meters()).isNotEmpty();
                });
        assertThat(shared.getMeters()).filteredOn(m -> m.getId().getName().startsWith("kafko.")).isEmpty();
    }

    @Test
    void groupsOnDiskThatNothingUsesInThisProcessGetNoLagGauge(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        ApplicationContextRunner onDir = runner.withPropertyValues("kafko.ephemeral=false", "kafko.data-dir=" + dir);
        onDir.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.producer("metered").send(null, "x".getBytes()).join();
            for (String group : new String[] {"replay-1", "replay-2"}) {
                try (var consumer = kafko.groupConsumer("metered", group)) {
                    consumer.poll(Duration.ofSeconds(1));
                    consumer.commit();
                }
            }
            assertThat(context.getBean(MeterRegistry.class).find("kafko.consumer.lag").tag("group", "replay-1")
                    .meters()).as("a plain consumer's group, from its commit").isNotEmpty();
        });
        // the next start: the abandoned replay groups are still on disk, and get no series that would
        // never clear (a replay under a new group id at every start made them grow without bound)
        onDir.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(context.getBean(Kafko.class).groups("metered")).contains("replay-1", "replay-2");
            assertThat(registry.find("kafko.consumer.lag").tag("group", "replay-1").meters()).isEmpty();
            assertThat(registry.find("kafko.consumer.lag").tag("group", "replay-2").meters()).isEmpty();
            assertThat(registry.find("kafko.consumer.lag").tag("group", "metered").meters())
                    .as("the listener's group").isNotEmpty();
        });
    }

    @Test
    void lagAndLogGaugesAppearForTopicsCreatedLaterAndExistingOnes() {
        runner.run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            kafko.createTopic("later", dev.kafko.TopicConfig.builder().partitions(2).build());
            assertThat(registry.find("kafko.log.end.offset").tag("topic", "later").gauges())
                    .as("every partition's, before the first record").hasSize(2)
                    .allSatisfy(g -> assertThat(g.value()).isZero());
            kafko.producer("later").sendTo(0, null, "x".getBytes()).join();
            kafko.producer("later").sendTo(0, null, "y".getBytes()).join();
            assertThat(registry.get("kafko.log.end.offset").tag("topic", "later").tag("partition", "0")
                    .gauge().value()).isEqualTo(2);
            assertThat(registry.get("kafko.log.failures").tag("topic", "later").tag("partition", "0")
                    .counter().count()).as("present at zero before any failure").isZero();
            try (var consumer = kafko.groupConsumer("later", "readers")) {
                consumer.poll(Duration.ofSeconds(1));
                consumer.commit(java.util.Map.of(0, 1L));
            }
            assertThat(registry.get("kafko.consumer.lag").tag("topic", "later").tag("group", "readers")
                    .tag("partition", "0").gauge().value()).isEqualTo(1);
        });
    }

    @Test
    void lagIsThereForEveryListenerGroupAndPartitionFromTheStartAndCountsFromTheLogStartBeforeAnyCommit() {
        runner.withBean(Holding.class).withPropertyValues("kafko.topics.held.partitions=2").run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            for (String partition : new String[] {"0", "1"}) {
                assertThat(registry.get("kafko.consumer.lag").tag("topic", "held").tag("group", "holding")
                        .tag("partition", partition).gauge().value()).as("partition %s before any record", partition)
                        .isZero();
            }
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int i = 0; i < 3; i++) {
                template.send("held", 0, null, "v" + i).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(context.getBean(Kafko.class).groupInfo("held", "holding").committed()).as("never acknowledged")
                    .isEmpty();
            assertThat(registry.get("kafko.consumer.lag").tag("topic", "held").tag("group", "holding")
                    .tag("partition", "0").gauge().value()).isEqualTo(3);
            assertThat(registry.get("kafko.consumer.lag").tag("topic", "held").tag("group", "holding")
                    .tag("partition", "1").gauge().value()).isZero();
        });
    }

    @Test
    void aPausedListenersGroupHasItsLagOnEveryPartitionOfItsTopicCreatedAgain() {
        runner.withBean(Holding.class).withPropertyValues("kafko.topics.held.partitions=2").run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("holding");
            container.pause();
            await().atMost(Duration.ofSeconds(20)).until(container::isPaused);
            context.getBean(Kafko.class).deleteTopic("held");
            assertThat(registry.find("kafko.consumer.lag").tag("topic", "held").meters()).isEmpty();
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("held", 0, null, "again").join(); // creates it again, as declared
            assertThat(registry.get("kafko.consumer.lag").tag("topic", "held").tag("group", "holding")
                    .tag("partition", "0").gauge().value()).isEqualTo(1);
            assertThat(registry.get("kafko.consumer.lag").tag("topic", "held").tag("group", "holding")
                    .tag("partition", "1").gauge().value()).as("a partition nothing was sent to yet").isZero();
        });
    }

    @Test
    void fsyncsAreTimedFromTheEnginesObserverHook() {
        runner.withPropertyValues("kafko.topics.durable.fsync=every-batch").run(context -> {
            context.getBean(Kafko.class).producer("durable").send(null, "x".getBytes()).join();
            assertThat(context.getBean(MeterRegistry.class).get("kafko.log.fsync").tag("topic", "durable")
                    .tag("partition", "0").timer().count()).isPositive();
        });
    }

    /** Processes every record and acknowledges none: its group never commits. */
    static class Holding {
        @KafkoListener(id = "holding", topics = "held", ackMode = "manual")
        void on(String value, Acknowledgment ack) {
        }
    }

    static class Listeners {
        @KafkoListener(id = "metered", topics = "metered")
        void on(String value) {
            if (value.equals("fail")) {
                throw new IllegalStateException("fail");
            }
        }
    }

    /** Metrics over a kafko whose one topic {@code name} has these partitions. */
    private static KafkoMetrics metricsOf(MeterRegistry registry, String name, dev.kafko.PartitionInfo... partitions) {
        Kafko kafko = org.mockito.Mockito.mock(Kafko.class);
        dev.kafko.Topic topic = org.mockito.Mockito.mock(dev.kafko.Topic.class);
        org.mockito.Mockito.when(kafko.topic(name)).thenReturn(java.util.Optional.of(topic));
        org.mockito.Mockito.when(kafko.topics()).thenReturn(java.util.Set.of(name));
        org.mockito.Mockito.when(topic.partitionCount()).thenReturn(partitions.length);
        for (dev.kafko.PartitionInfo p : partitions) {
            org.mockito.Mockito.when(topic.partition(p.partition())).thenReturn(p);
        }
        return new KafkoMetrics(registry,
                new org.springframework.beans.factory.support.StaticListableBeanFactory(java.util.Map.of("kafko", kafko))
                        .getBeanProvider(Kafko.class));
    }
}
