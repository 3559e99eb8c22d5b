package dev.kafko.sample.order;

import jakarta.validation.constraints.NotBlank;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /orders}. Only its shape is checked at the door (a customer is
 * required); the business rules (items, amounts) are checked by the {@link PaymentProcessor},
 * which sends orders that break them to {@code orders.DLT}.
 *
 * @param customer who orders; the record key, so one customer's orders stay in order
 * @param items the lines; may be empty or missing (the order is then rejected downstream)
 */
public record OrderRequest(@NotBlank String customer, @Nullable List<Item> items) {
}
