package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.autoconfigure.CompositeKafkoObserver;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An application's own {@code Kafko} bean replaces the auto-configured one with its observer: passed the
 * {@code KafkoObserver} beans combined, as the README says, its appends still reach the metrics.
 */
class OwnKafkoBeanObserverTest {

    @TempDir
    static Path dir;

    @Configuration(proxyBeanMethods = false)
    static class OwnKafko {

        @Bean(destroyMethod = "close")
        Kafko kafko(ObjectProvider<KafkoObserver> observers) {
            return Kafko.open(dir.resolve("own"), KafkoOptions.builder()
                    .observer(CompositeKafkoObserver.of(observers.orderedStream().toList())).build());
        }
    }

    /** An application's observer beside the metrics: both are told. */
    static class Counting implements KafkoObserver {

        int appended;

        @Override
        public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
            appended += records;
        }
    }

    @Test
    void theObserverBeansCombinedReachTheMetricsAndTheApplicationsOwnObserver() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
                .withUserConfiguration(OwnKafko.class)
                .withBean(SimpleMeterRegistry.class)
                .withBean("auditObserver", Counting.class, Counting::new)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Kafko kafko = context.getBean(Kafko.class);
                    kafko.createTopic("own");
                    kafko.producer("own").send(null, "a".getBytes()).join();
                    kafko.producer("own").send(null, "b".getBytes()).join();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("kafko.log.end.offset").tag("topic", "own").tag("partition", "0").gauge()
                            .value()).isEqualTo(2.0);
                    assertThat(context.getBean(Counting.class).appended).isEqualTo(2);
                });
    }

    @Test
    void noneIsNoopAndOneIsItself() {
        KafkoObserver one = new Counting();
        assertThat(CompositeKafkoObserver.of(java.util.List.of())).isSameAs(KafkoObserver.NOOP);
        assertThat(CompositeKafkoObserver.of(java.util.List.of(one))).isSameAs(one);
    }
}
