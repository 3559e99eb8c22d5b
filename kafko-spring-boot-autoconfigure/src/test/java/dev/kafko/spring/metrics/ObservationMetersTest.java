package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.spring.support.TestRecords;
import dev.kafko.spring.support.micrometer.KafkoRecordReceiverContext;
import dev.kafko.spring.support.micrometer.KafkoRecordSenderContext;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/**
 * The timers Micrometer's meter handler makes of kafko's observations, under whatever name and keys a convention or a
 * filter gave them ({@link KafkoMetrics#observationHandler()}): one that several topics' or listeners' observations
 * share stays until the last of them leaves; one whose keys came after the start, and the active timer of one in
 * flight, leave with their topic; nothing is remembered of a topic or listener gone; and an application's own
 * observations are none of kafko's business.
 */
class ObservationMetersTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ObservationRegistry observations = ObservationRegistry.create();
    private KafkoMetrics metrics;

    @BeforeEach
    void setUp() {
        metrics = new KafkoMetrics(meters, new StaticListableBeanFactory().getBeanProvider(Kafko.class));
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        observations.observationConfig().observationHandler(metrics.observationHandler());
    }

    @Test
    void aTimerTheSendsToTwoTopicsShareStaysUntilBothAreDeleted() {
        send("orders", "kind", "business");
        send("payments", "kind", "business"); // a convention that leaves the topic out: one timer for both
        send("audit", "kind", "technical");
        assertThat(meters.find("platform.publish").timers()).hasSize(2);

        metrics.onTopicDeleted("orders");
        assertThat(meters.find("platform.publish").tag("kind", "business").timers()).as("payments' too").hasSize(1);
        assertThat(meters.find("platform.publish.active").tag("kind", "business").meters()).hasSize(1);

        metrics.onTopicDeleted("payments");
        assertThat(meters.find("platform.publish").tag("kind", "business").meters()).isEmpty();
        assertThat(meters.find("platform.publish.active").tag("kind", "business").meters()).isEmpty();
        assertThat(meters.find("platform.publish").tag("kind", "technical").timers()).hasSize(1);
    }

    @Test
    void anotherTopicsTimerWithMoreKeysStaysWhenATopicIsDeleted() {
        send("orders", "kind", "business");
        send("payments", "kind", "business", "region", "eu"); // its keys include orders' and one more
        assertThat(meters.find("platform.publish").timers()).hasSize(2);

        metrics.onTopicDeleted("orders");
        assertThat(meters.find("platform.publish").tag("region", "eu").timers()).as("payments' timer").hasSize(1);
        assertThat(meters.find("platform.publish.active").tag("region", "eu").meters()).hasSize(1);
        assertThat(meters.find("platform.publish").timers()).hasSize(1);

        metrics.onTopicDeleted("payments");
        assertThat(meters.find("platform.publish").meters()).isEmpty();
        assertThat(meters.find("platform.publish.active").meters()).isEmpty();
    }

    @Test
    void aTimerTheDeliveriesOfTwoListenersShareStaysUntilBothAreRemoved() {
        receive("first");
        receive("second"); // a convention that leaves the listener out: one timer for both
        assertThat(meters.find("platform.consume").timers()).hasSize(1);

        metrics.listenerRemoved("first", "first", List.of("t"));
        assertThat(meters.find("platform.consume").timers()).as("the second listener's too").hasSize(1);
        assertThat(meters.find("platform.consume.active").meters()).hasSize(1);

        metrics.listenerRemoved("second", "second", List.of("t"));
        assertThat(meters.find("platform.consume").meters()).isEmpty();
        assertThat(meters.find("platform.consume.active").meters()).isEmpty();
    }

    @Test
    void aSendsTimerStaysWhenAListenerOfItsTopicIsRemoved() {
        send("t", "kind", "business");
        receive("first");

        metrics.listenerRemoved("first", "first", List.of("t"));
        assertThat(meters.find("platform.publish").timers()).hasSize(1);
        assertThat(meters.find("platform.consume").meters()).isEmpty();
    }

    @Test
    void aTimerWhoseKeysCameAfterTheStartLeavesWithItsTopic() {
        Observation observation = Observation.createNotStarted("platform.publish",
                () -> new KafkoRecordSenderContext("kafkoTemplate", "orders", null, new ArrayList<>()), observations);
        observation.lowCardinalityKeyValue("outcome", "pending").start();
        observation.lowCardinalityKeyValue("outcome", "sent"); // as a convention's or a filter's value at the stop
        observation.stop();
        assertThat(meters.find("platform.publish").tag("outcome", "sent").timers()).hasSize(1);

        metrics.onTopicDeleted("orders");
        assertThat(meters.find("platform.publish").meters()).isEmpty();
        assertThat(meters.find("platform.publish.active").meters()).isEmpty();
    }

    @Test
    void theActiveTimerOfASendInFlightLeavesWithItsTopic() {
        Observation observation = Observation.createNotStarted("platform.publish",
                () -> new KafkoRecordSenderContext("kafkoTemplate", "orders", null, new ArrayList<>()), observations)
                .lowCardinalityKeyValue("kind", "business").start();
        assertThat(meters.find("platform.publish.active").meters()).hasSize(1);

        metrics.onTopicDeleted("orders");
        assertThat(meters.find("platform.publish.active").meters()).isEmpty();
        observation.stop();
    }

    @Test
    void whatATopicChurnLeavesBehindIsForgotten() {
        ObservationMeters remembering = (ObservationMeters) metrics.observationHandler();
        for (int i = 0; i < 3; i++) {
            send("tenant-" + i, "tenant", Integer.toString(i));
            receive("listener-" + i);
            metrics.onTopicDeleted("tenant-" + i);
            metrics.listenerRemoved("listener-" + i, "listener-" + i, List.of("t"));
        }
        assertThat(remembering.remembered()).isZero();

        send("orders", "kind", "business");
        assertThat(remembering.remembered()).isOne();
        metrics.destroy();
        assertThat(remembering.remembered()).isZero();
    }

    @Test
    void anApplicationsOwnObservationsTimersStayWhenTheContextCloses() {
        send("orders", "kind", "business");
        Observation.createNotStarted("platform.publish", observations).lowCardinalityKeyValue("kind", "business")
                .start().stop(); // the application's own, of the same name and keys
        Observation.createNotStarted("checkout", observations).start().stop();

        metrics.onTopicDeleted("orders");
        assertThat(meters.find("checkout").timers()).hasSize(1);
        metrics.destroy();
        assertThat(meters.find("checkout").timers()).as("not kafko's").hasSize(1);
        assertThat(meters.find("checkout.active").meters()).hasSize(1);
    }

    private void send(String topic, String... keyValues) {
        Observation observation = Observation.createNotStarted("platform.publish",
                () -> new KafkoRecordSenderContext("kafkoTemplate", topic, null, new ArrayList<>()), observations);
        for (int i = 0; i < keyValues.length; i += 2) {
            observation.lowCardinalityKeyValue(KeyValue.of(keyValues[i], keyValues[i + 1]));
        }
        observation.start().stop();
    }

    /** A delivery of a record of topic {@code t}. */
    private void receive(String listenerId) {
        Observation.createNotStarted("platform.consume", () -> new KafkoRecordReceiverContext(listenerId, listenerId,
                        TestRecords.record(new byte[0], Headers.empty())), observations)
                .lowCardinalityKeyValue("src", "t").start().stop();
    }
}
