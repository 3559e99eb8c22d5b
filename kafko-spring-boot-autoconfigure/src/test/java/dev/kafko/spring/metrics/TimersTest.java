package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.RecordTooLargeException;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.health.KafkoHealthIndicator;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** What held: the send and process timers and their outcomes, health after a close and under a raised minimum. */
class TimersTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class,
                    KafkoHealthAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static double sends(MeterRegistry registry, String topic, String outcome) {
        return registry.get("kafko.template.send").tag("topic", topic).tag("outcome", outcome).timer().count();
    }

    @Test
    void failedSendsAreTimedAsFailuresAndHealthIsDownOnceTheLogIsClosed() {
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.small.max-record-size=100")
                .run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(catchThrowable(() -> template(context).send("nope", "x").join()))
                    .isInstanceOf(UnknownTopicException.class);
            assertThat(catchThrowable(() -> template(context).send("small", "x".repeat(1000)).join()))
                    .hasCauseInstanceOf(RecordTooLargeException.class);
            template(context).send("small", "x").join();
            assertThat(sends(registry, "nope", "failure")).isEqualTo(1);
            assertThat(sends(registry, "small", "failure")).isEqualTo(1);
            assertThat(sends(registry, "small", "success")).isEqualTo(1);
            context.getBean(Kafko.class).close();
            assertThat(catchThrowable(() -> template(context).send("small", "x").join()))
                    .isInstanceOf(KafkoClosedException.class);
            assertThat(sends(registry, "small", "failure")).isEqualTo(2);
            Health health = context.getBean(KafkoHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(health.getDetails().get("error"))).contains("is closed");
        });
    }

    @Test
    void aBatchListenersInvocationsAreTimedOncePerBatchAndAttempt() {
        runner.withBean(Batch.class).withPropertyValues("kafko.listener.retry.max-attempts=3").run(context -> {
            template(context).send("batched", "v").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            template(context).send("batched", "fail").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("kafko.listener.process").tag("listener", "batch").tag("outcome", "success")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get("kafko.listener.process").tag("listener", "batch").tag("outcome", "failure")
                    .timer().count()).isEqualTo(3);
            assertThat(registry.get("kafko.consumer.lag").tag("group", "batch").gauge().value()).isZero();
        });
    }

    static class Batch {
        @KafkoListener(id = "batch", topics = "batched", batch = "true")
        void on(List<String> values) {
            if (values.contains("fail")) {
                throw new IllegalStateException("fail");
            }
        }
    }

    @Test
    void aMinimumAboveTheFreeDiskIsDownNamingTheProperty() {
        runner.withPropertyValues("kafko.health.min-free-disk=1000000TB").run(context -> {
            Health health = context.getBean(KafkoHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(health.getDetails().get("error"))).contains("kafko.health.min-free-disk");
            assertThat((long) health.getDetails().get("freeDiskBytes"))
                    .isLessThan((long) health.getDetails().get("minFreeDiskBytes"));
        });
    }
}
