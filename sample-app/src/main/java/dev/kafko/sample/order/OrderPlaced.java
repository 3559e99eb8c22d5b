package dev.kafko.sample.order;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An accepted order, as published on {@code orders}. The constraints are the business rules the
 * {@link PaymentProcessor} enforces.
 *
 * @param id the order id
 * @param customer who ordered
 * @param items the lines
 * @param amount the sum of the lines; none when a line is empty or has no price (the processor rejects the order)
 * @param createdAt when the order was accepted; the start of its end-to-end latency
 */
public record OrderPlaced(@NotBlank String id, @NotBlank String customer,
                          @NotEmpty List<@NotNull @Valid Item> items, @NotNull @Positive @Nullable BigDecimal amount,
                          @NotNull Instant createdAt) {

    /**
     * The order for a request, with its amount summed from the lines. A line the request left empty or without a
     * price gives no amount: the order is still published, and the processor rejects it naming what is missing.
     */
    public static OrderPlaced of(String id, OrderRequest request, Instant createdAt) {
        List<Item> items = request.items() == null ? List.of()
                : Collections.unmodifiableList(new ArrayList<>(request.items()));
        return new OrderPlaced(id, request.customer(), items, amount(items), createdAt);
    }

    private static @Nullable BigDecimal amount(List<Item> items) {
        BigDecimal sum = BigDecimal.ZERO;
        for (Item item : items) {
            if (item == null || item.unitPrice() == null) {
                return null;
            }
            sum = sum.add(item.total());
        }
        return sum;
    }
}
