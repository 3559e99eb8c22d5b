package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;

/**
 * {@link KafkoMetrics#destroy}: an event that reaches a closed context's metrics after the next context registered
 * its meters in the shared registry (which looks meters up by name and tags) must not take the next context's
 * meter away.
 */
class DestroyedMetricsLateEventTest {

    @Test
    void aLateEngineEventToDestroyedMetricsLeavesTheNextContextsMeterInPlace() {
        SimpleMeterRegistry shared = new SimpleMeterRegistry();
        KafkoMetrics first = new KafkoMetrics(shared, new StaticListableBeanFactory().getBeanProvider(Kafko.class));
        first.destroy();
        KafkoMetrics second = new KafkoMetrics(shared, new StaticListableBeanFactory().getBeanProvider(Kafko.class));
        second.onFsync("t", 0, 1_000);
        assertThat(shared.find("kafko.log.fsync").timers()).hasSize(1);

        first.onFsync("t", 0, 1_000); // late, to the closed context's metrics
        second.onFsync("t", 0, 1_000);
        assertThat(shared.find("kafko.log.fsync").timers()).as("the second context's fsync timer").hasSize(1);
    }
}
