package dev.kafko.sample.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.sample.order.Item;
import dev.kafko.sample.order.OrderPlaced;
import dev.kafko.sample.order.PaymentCaptured;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderReadModelTest {

    private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");

    private final LatencyRecorder latency = new LatencyRecorder();
    private final OrderReadModel model = new OrderReadModel(
            Clock.fixed(CREATED.plusMillis(7), ZoneOffset.UTC), latency);

    private static OrderPlaced order(String id, String price) {
        return new OrderPlaced(id, "alice", List.of(new Item("sku", 1, new BigDecimal(price))), new BigDecimal(price),
                CREATED);
    }

    @Test
    void eventsSeenTwiceAreCountedOnce() {
        OrderPlaced order = order("o-1", "10.00");
        model.placed(order, false);
        model.paid(PaymentCaptured.of(order, CREATED), false);
        model.placed(order, true);
        model.paid(PaymentCaptured.of(order, CREATED), true);

        OrderReadModel.Totals totals = model.totals();
        assertThat(totals.orders()).isEqualTo(1);
        assertThat(totals.count(OrderStatus.PAID)).isEqualTo(1);
        assertThat(totals.count(OrderStatus.PENDING)).isZero();
        assertThat(totals.amount(OrderStatus.PAID)).isEqualByComparingTo("10.00");
        assertThat(totals.amount(OrderStatus.PENDING)).isEqualByComparingTo("0");
        assertThat(model.finalCount()).isEqualTo(1);
        assertThat(latency.drain().count()).as("replayed and repeated events are not latency samples").isZero();
    }

    @Test
    void aPaymentSeenBeforeItsOrderStillEndsPaid() {
        OrderPlaced order = order("o-2", "4.50");
        model.paid(PaymentCaptured.of(order, CREATED), true);
        model.placed(order, true);

        assertThat(model.find("o-2")).get().extracting(OrderView::status).isEqualTo(OrderStatus.PAID);
        assertThat(model.totals().count(OrderStatus.PENDING)).isZero();
        assertThat(latency.drain().sortedMicros()).containsExactly(7_000);
    }

    @Test
    void aRejectedOrderKeepsItsReasonAndMovesItsAmountOutOfPending() throws InterruptedException {
        OrderPlaced order = order("o-3", "-1.00");
        model.placed(order, true);
        assertThat(model.awaitFinalCount(1, Duration.ofMillis(10))).isFalse();
        model.rejected(order, "amount must be greater than 0", true);

        assertThat(model.awaitFinalCount(1, Duration.ZERO)).isTrue();
        OrderView view = model.find("o-3").orElseThrow();
        assertThat(view.status()).isEqualTo(OrderStatus.REJECTED);
        assertThat(view.reason()).isEqualTo("amount must be greater than 0");
        assertThat(model.totals().amount(OrderStatus.PENDING)).isEqualByComparingTo("0");
        assertThat(model.totals().amount(OrderStatus.REJECTED)).isEqualByComparingTo("-1.00");
    }

    @Test
    void percentilesAreNearestRankOverTheWindow() {
        for (int i = 100; i >= 1; i--) {
            latency.record(Duration.ofMillis(i));
        }
        LatencyRecorder.Latencies window = latency.drain();
        assertThat(window.percentileMicros(50)).isEqualTo(50_000);
        assertThat(window.percentileMicros(99)).isEqualTo(99_000);
        assertThat(window.maxMicros()).isEqualTo(100_000);
        assertThat(latency.drain().count()).isZero();
    }
}
