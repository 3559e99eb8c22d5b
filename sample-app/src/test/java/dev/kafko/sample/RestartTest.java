package dev.kafko.sample;

import static dev.kafko.sample.OrderPipelineTest.amount;
import static dev.kafko.sample.OrderPipelineTest.count;
import static dev.kafko.sample.SampleClient.item;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.sample.SampleClient.Accepted;
import dev.kafko.sample.model.OrderStatus;
import dev.kafko.sample.model.PipelineStats.Stats;
import dev.kafko.sample.order.Topics;
import dev.kafko.spring.test.KafkoTestUtils;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Restarts the application on one data directory: the processor resumes from its committed
 * offsets (nothing lost, nothing processed twice) and the replayed read model counts every order
 * exactly once.
 */
class RestartTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dataDir;

    private ConfigurableApplicationContext start(String... extra) {
        List<String> args = new ArrayList<>(List.of("--kafko.data-dir=" + dataDir, "--server.port=0"));
        args.addAll(List.of(extra));
        return new SpringApplicationBuilder(SampleApplication.class).run(args.toArray(String[]::new));
    }

    private static void awaitPipeline(ConfigurableApplicationContext context) {
        KafkoTestUtils.waitForListeners(context, WAIT);
    }

    @Test
    void restartsResumeFromCommittedOffsetsAndTheReplayedModelCountsEveryOrderOnce() {
        List<String> firstRun = new ArrayList<>();
        Stats afterFirstRun;
        try (ConfigurableApplicationContext context = start()) {
            SampleClient client = SampleClient.of(context);
            for (int i = 0; i < 8; i++) {
                firstRun.add(client.place("customer-" + i % 3, List.of(item("sku-" + i, 1 + i, "10.00"))).id());
            }
            client.place("bad", List.of());
            client.place("worse", List.of(item("refund", 1, "-1.00")));
            awaitPipeline(context);
            afterFirstRun = client.stats();
        }
        assertThat(count(afterFirstRun, OrderStatus.PAID)).isEqualTo(8);
        assertThat(count(afterFirstRun, OrderStatus.REJECTED)).isEqualTo(2);
        BigDecimal firstRunAmount = new BigDecimal("360.00"); // 10 × (1 + 2 + ... + 8)
        assertThat(amount(afterFirstRun, OrderStatus.PAID)).isEqualByComparingTo(firstRunAmount);

        // second run: the processor stays stopped, so these orders wait in `orders`, unprocessed
        List<String> waiting = new ArrayList<>();
        try (ConfigurableApplicationContext context = start("--sample.processor.auto-startup=false")) {
            SampleClient client = SampleClient.of(context);
            // a plain restart: the rebuilt model equals the one before, nothing double-counted
            assertSameTotals(client.stats(), afterFirstRun);
            for (int i = 0; i < 5; i++) {
                waiting.add(client.place("late-" + i, List.of(item("late", 1, "1.50"))).id());
            }
            awaitPipeline(context);
            Stats stats = client.stats();
            assertThat(count(stats, OrderStatus.PENDING)).isEqualTo(5);
            assertThat(count(stats, OrderStatus.PAID)).isEqualTo(8);
        }

        // third run: the replay restores 15 orders, and the processor takes exactly the 5 waiting ones
        Stats afterThirdRun;
        try (ConfigurableApplicationContext context = start()) {
            SampleClient client = SampleClient.of(context);
            awaitPipeline(context);
            afterThirdRun = client.stats();
            assertThat(afterThirdRun.replay().records()).as("15 orders, 8 payments, 2 dead letters").isEqualTo(25);
            assertThat(afterThirdRun.replay().orders()).isEqualTo(15);
            for (String id : waiting) {
                assertThat(client.order(id).status()).isEqualTo(OrderStatus.PAID);
            }
            for (String id : firstRun) {
                assertThat(client.order(id).status()).isEqualTo(OrderStatus.PAID);
            }
        }
        assertThat(afterThirdRun.orders()).isEqualTo(15);
        assertThat(count(afterThirdRun, OrderStatus.PAID)).isEqualTo(13);
        assertThat(count(afterThirdRun, OrderStatus.REJECTED)).isEqualTo(2);
        assertThat(count(afterThirdRun, OrderStatus.PENDING)).isZero();
        assertThat(amount(afterThirdRun, OrderStatus.PAID)).isEqualByComparingTo(firstRunAmount.add(new BigDecimal("7.50")));
        assertThat(afterThirdRun.topics().get(Topics.PAYMENTS).records())
                .as("no order was processed twice").isEqualTo(13);
        assertThat(afterThirdRun.deadLetters()).isEqualTo(2);
    }

    private static void assertSameTotals(Stats actual, Stats expected) {
        assertThat(actual.orders()).isEqualTo(expected.orders());
        for (OrderStatus status : OrderStatus.values()) {
            assertThat(count(actual, status)).as("%s orders", status).isEqualTo(count(expected, status));
            assertThat(amount(actual, status)).as("%s amount", status).isEqualByComparingTo(amount(expected, status));
        }
    }
}
