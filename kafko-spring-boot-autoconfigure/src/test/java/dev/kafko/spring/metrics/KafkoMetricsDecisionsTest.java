package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.TopicConfig;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.ObjectProvider;

/**
 * {@link KafkoMetrics}' decisions, each event given to it by hand against a real instance (which does not report to
 * it here): the gauges of topics found at start-up and of a listener's dead-letter topic, the meters of a topic
 * created again, a listener call that outlives its topic, a removed listener's meters, what the gauges read once the
 * topic or the instance is gone, and the meters Micrometer's observation handler made. (Found by mutation testing:
 * each test fails with the change it names.)
 */
class KafkoMetricsDecisionsTest {

    @TempDir
    Path dir;

    private Kafko kafko;
    private volatile @Nullable Kafko provided;
    private final MeterRegistry registry = new SimpleMeterRegistry();
    private KafkoMetrics metrics;

    @BeforeEach
    void open() {
        kafko = Kafko.open(dir);
        provided = kafko;
        metrics = new KafkoMetrics(registry, new ObjectProvider<>() {
            @Override
            public @Nullable Kafko getIfAvailable() {
                return provided;
            }

            @Override
            public Kafko getObject() {
                Kafko k = provided;
                if (k == null) {
                    throw new IllegalStateException("no Kafko");
                }
                return k;
            }
        });
    }

    @AfterEach
    void close() {
        metrics.destroy();
        kafko.close();
    }

    @Test
    void theTopicsFoundAtStartUpHaveTheirGaugesBeforeAnyAppend() {
        kafko.createTopic("found", TopicConfig.builder().partitions(2).build());

        metrics.afterSingletonsInstantiated();

        assertThat(partitionsOf("kafko.log.end.offset", "found")).containsExactlyInAnyOrder("0", "1");
        assertThat(partitionsOf("kafko.log.failures", "found")).containsExactlyInAnyOrder("0", "1");
    }

    @Test
    void aStartingListenerHasTheGaugesOfItsDeadLetterTopicBeforeItsFirstDeadLetter() {
        kafko.createTopic("orders");
        kafko.createTopic("orders.DLT");
        kafko.createTopic("other.DLT");

        metrics.listenerStarting("l", "g", "orders");

        assertThat(partitionsOf("kafko.log.end.offset", "orders.DLT")).containsExactly("0");
        assertThat(partitionsOf("kafko.log.end.offset", "orders")).containsExactly("0");
        assertThat(partitionsOf("kafko.log.end.offset", "other.DLT")).isEmpty();
    }

    @Test
    void theSendAndListenerTimersOfATopicCreatedAgainAreNewMetersInTheRegistry() {
        kafko.createTopic("t");
        metrics.sendCompleted("t", 5, null);
        metrics.listenerInvoked("l", "t", 5, true);
        metrics.onFsync("t", 0, 5);
        kafko.deleteTopic("t");
        metrics.onTopicDeleted("t");
        assertThat(registry.find("kafko.template.send").meters()).isEmpty();
        assertThat(registry.find("kafko.listener.process").meters()).isEmpty();
        assertThat(registry.find("kafko.log.fsync").meters()).isEmpty();

        kafko.createTopic("t");
        metrics.sendCompleted("t", 7, null);
        metrics.listenerInvoked("l", "t", 7, true);
        metrics.onFsync("t", 0, 7);
        assertThat(registry.get("kafko.log.fsync").tag("topic", "t").timer().count()).isEqualTo(1);

        // a timer kept from before the delete would count where no scrape sees it
        assertThat(registry.get("kafko.template.send").tag("topic", "t").timer().count()).isEqualTo(1);
        assertThat(registry.get("kafko.listener.process").tag("topic", "t").timer().totalTime(TimeUnit.NANOSECONDS))
                .isEqualTo(7);
    }

    @Test
    void aListenerCallThatOutlivesTheDeletionOfItsTopicOrItsInstanceRegistersNoTimer() {
        kafko.createTopic("t");
        metrics.listenerInvoked("l", "gone", 5, false);
        assertThat(registry.find("kafko.listener.process").meters()).isEmpty();

        kafko.close();
        metrics.listenerInvoked("l", "t", 5, false);
        assertThat(registry.find("kafko.listener.process").meters()).isEmpty();
    }

    @Test
    void aRemovedListenersGroupGetsNoLagOnItsTopicCreatedAgain() {
        kafko.createTopic("t", TopicConfig.builder().partitions(2).build());
        metrics.listenerStarting("l", "g", "t");
        metrics.listenerRemoved("l", "g", List.of("t"));
        kafko.deleteTopic("t");
        metrics.onTopicDeleted("t");

        kafko.createTopic("t", TopicConfig.builder().partitions(2).build());
        metrics.onAppend("t", 0, 1, 10, 1_000);

        assertThat(partitionsOf("kafko.log.end.offset", "t")).containsExactlyInAnyOrder("0");
        assertThat(registry.find("kafko.consumer.lag").meters()).isEmpty();
    }

    @Test
    void aListenersTopicCreatedAgainGetsItsGroupsLagAndItsGaugesOnEveryPartitionWithItsFirstAppend() {
        kafko.createTopic("t", TopicConfig.builder().partitions(3).build());
        metrics.listenerStarting("l", "g", "t");
        assertThat(partitionsOf("kafko.consumer.lag", "t")).containsExactlyInAnyOrder("0", "1", "2");
        kafko.deleteTopic("t");
        metrics.onTopicDeleted("t");
        assertThat(partitionsOf("kafko.consumer.lag", "t")).isEmpty();

        kafko.createTopic("t", TopicConfig.builder().partitions(3).build());
        metrics.onAppend("t", 1, 1, 10, 1_000);

        // also partitions 0 and 2, which have no record yet, and no fourth
        assertThat(partitionsOf("kafko.consumer.lag", "t")).containsExactlyInAnyOrder("0", "1", "2");
        assertThat(partitionsOf("kafko.log.end.offset", "t")).containsExactlyInAnyOrder("0", "1", "2");
    }

    @Test
    void aRemovedListenerTakesItsTimersCountersAndItsGroupsLagAlongAndGetsTheLagBackWhenItStartsAgain() {
        kafko.createTopic("t", TopicConfig.builder().partitions(2).build());
        metrics.listenerStarting("l", "g", "t");
        metrics.listenerStarting("other", "h", "t");
        metrics.listenerInvoked("l", "t", 5, true);
        metrics.listenerInvoked("other", "t", 5, true);
        metrics.deadLettered("l", "t");
        registry.timer("kafko.listener", "kafko.listener.id", "l");
        registry.timer("kafko.listener", "kafko.listener.id", "other");

        metrics.listenerRemoved("l", "g", List.of("t"));

        assertThat(registry.find("kafko.listener.process").tag("listener", "l").meters()).isEmpty();
        assertThat(registry.find("kafko.listener.dead.letter").meters()).isEmpty();
        assertThat(registry.find("kafko.consumer.lag").tag("group", "g").meters()).isEmpty();
        assertThat(registry.find("kafko.listener").tag("kafko.listener.id", "l").meters()).isEmpty();
        // the topic's own gauges, and the other listener's meters, stay
        assertThat(partitionsOf("kafko.log.end.offset", "t")).containsExactlyInAnyOrder("0", "1");
        assertThat(registry.find("kafko.listener.process").tag("listener", "other").meters()).hasSize(1);
        assertThat(registry.find("kafko.consumer.lag").tag("group", "h").meters()).hasSize(2);
        assertThat(registry.find("kafko.listener").tag("kafko.listener.id", "other").meters()).hasSize(1);

        metrics.listenerStarting("l", "g", "t");
        metrics.listenerInvoked("l", "t", 5, true);

        assertThat(registry.find("kafko.consumer.lag").tag("group", "g").meters()).hasSize(2);
        assertThat(registry.get("kafko.listener.process").tag("listener", "l").timer().count()).isEqualTo(1);

        metrics.destroy();
        // the other listener's meters too: the removal forgot none of what it did not remove
        assertThat(registry.getMeters()).extracting(m -> m.getId().getName()).isEmpty();
    }

    @Test
    void aGaugeReadsNaNOnceItsTopicItsInstanceOrItsProviderIsGone() {
        kafko.createTopic("t");
        kafko.createTopic("u");
        metrics.afterSingletonsInstantiated();
        Gauge ofT = registry.get("kafko.log.end.offset").tag("topic", "t").gauge();
        Gauge ofU = registry.get("kafko.log.size").tag("topic", "u").gauge();
        assertThat(ofT.value()).isZero();

        kafko.deleteTopic("t"); // not reported to the metrics: the gauge stays, and has nothing to read
        assertThat(ofT.value()).isNaN();
        provided = null;
        assertThat(ofU.value()).isNaN();
        provided = kafko;
        assertThat(ofU.value()).isNotNaN();
        kafko.close();
        assertThat(ofU.value()).isNaN();
    }

    @Test
    void theMetersMicrometersObservationHandlerMadeOfATopicGoWithItAndAllOfThemWithTheContext() {
        kafko.createTopic("a");
        kafko.createTopic("b");
        metrics.afterSingletonsInstantiated();
        for (String topic : List.of("a", "b")) {
            registry.timer("kafko.template", "messaging.destination.name", topic);
            registry.timer("kafko.listener", "messaging.source.name", topic);
        }

        kafko.deleteTopic("a");
        metrics.onTopicDeleted("a");

        assertThat(registry.getMeters()).filteredOn(m -> m.getId().getTags().stream()
                .anyMatch(tag -> tag.getValue().equals("a"))).isEmpty();
        assertThat(registry.find("kafko.template").meters()).hasSize(1);
        assertThat(registry.find("kafko.listener").meters()).hasSize(1);

        metrics.destroy();

        // every meter of the other topic too, the ones registered here and the observation handler's
        assertThat(registry.getMeters()).extracting(m -> m.getId().getName()).isEmpty();
    }

    private List<String> partitionsOf(String name, String topic) {
        return registry.find(name).tag("topic", topic).meters().stream().map(Meter::getId)
                .map(id -> id.getTag("partition")).toList();
    }
}
