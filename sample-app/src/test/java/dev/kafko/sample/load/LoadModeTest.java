package dev.kafko.sample.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.sample.SampleApplication;
import dev.kafko.sample.model.OrderReadModel;
import dev.kafko.sample.model.OrderStatus;
import dev.kafko.sample.model.PipelineStats;
import dev.kafko.sample.order.Topics;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/** The load mode, small: 2,000 orders at start-up, every 100th invalid. */
@ExtendWith(OutputCaptureExtension.class)
class LoadModeTest {

    @Test
    void loadModeSendsEveryOrderThroughThePipelineAndPrintsASummary(CapturedOutput output) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
                .run("--kafko.ephemeral=true", "--spring.main.web-application-type=none", "--sample.load=2000")) {
            LoadSummary summary = Objects.requireNonNull(context.getBean(LoadGenerator.class).lastSummary());

            assertThat(summary.orders()).isEqualTo(2000);
            assertThat(summary.failedSends()).isZero();
            assertThat(summary.complete()).isTrue();
            assertThat(summary.paid()).isEqualTo(1980);
            assertThat(summary.rejected()).isEqualTo(20);
            assertThat(summary.p50Micros()).isPositive().isLessThanOrEqualTo(summary.p99Micros());
            assertThat(summary.p99Micros()).isLessThanOrEqualTo(summary.maxMicros());
            assertThat(summary.ordersPerSecond()).isPositive();
            assertThat(output).contains(summary.line());

            OrderReadModel.Totals totals = context.getBean(OrderReadModel.class).totals();
            assertThat(totals.count(OrderStatus.PAID)).isEqualTo(1980);
            assertThat(totals.count(OrderStatus.PENDING)).isZero();
            PipelineStats.Stats stats = context.getBean(PipelineStats.class).snapshot();
            assertThat(stats.deadLetters()).isEqualTo(20);
            assertThat(stats.topics().get(Topics.ORDERS).records()).isEqualTo(2000);
            assertThat(stats.topics().get(Topics.PAYMENTS).records()).isEqualTo(1980);
        }
    }
}
