package dev.kafko.sample.order;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * An accepted order, as published on {@code orders}. The constraints are the business rules the
 * {@link PaymentProcessor} enforces.
 *
 * @param id the order id
 * @param customer who ordered
 * @param items the lines
 * @param amount the sum of the lines
 * @param createdAt when the order was accepted; the start of its end-to-end latency
 */
public record OrderPlaced(@NotBlank String id, @NotBlank String customer, @NotEmpty List<@Valid Item> items,
                          @NotNull @Positive BigDecimal amount, @NotNull Instant createdAt) {

    /** The order for a request, with its amount summed from the lines. */
    public static OrderPlaced of(String id, OrderRequest request, Instant createdAt) {
        List<Item> items = request.items() == null ? List.of() : List.copyOf(request.items());
        BigDecimal amount = items.stream().map(Item::total).reduce(BigDecimal.ZERO, BigDecimal::add);
        return new OrderPlaced(id, request.customer(), items, amount, createdAt);
    }
}
