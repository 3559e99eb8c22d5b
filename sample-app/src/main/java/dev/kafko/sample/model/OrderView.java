package dev.kafko.sample.model;

import java.math.BigDecimal;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What {@code GET /orders/{id}} shows of an order.
 *
 * @param id the order id
 * @param customer who ordered
 * @param amount the order's amount; none when a line has no price (the order is rejected)
 * @param itemCount how many lines it has
 * @param status where it is
 * @param createdAt when it was accepted
 * @param reason why it was rejected, when it was
 */
public record OrderView(String id, String customer, @Nullable BigDecimal amount, int itemCount, OrderStatus status,
                        Instant createdAt, @Nullable String reason) {
}
