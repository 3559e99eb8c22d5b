package dev.kafko.sample.order;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * A captured payment, as published on {@code payments}: one per valid order (more than one only
 * if the processor crashed between sending it and committing the order's offset).
 *
 * @param orderId the order
 * @param customer who pays
 * @param amount how much
 * @param itemCount how many lines the order had
 * @param orderCreatedAt when the order was accepted
 * @param capturedAt when the payment was captured
 */
public record PaymentCaptured(String orderId, String customer, BigDecimal amount, int itemCount,
                              Instant orderCreatedAt, Instant capturedAt) {

    public static PaymentCaptured of(OrderPlaced order, Instant capturedAt) {
        return new PaymentCaptured(order.id(), order.customer(), order.amount(), order.items().size(),
                order.createdAt(), capturedAt);
    }
}
