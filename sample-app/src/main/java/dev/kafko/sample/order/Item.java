package dev.kafko.sample.order;

import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import java.math.BigDecimal;

/**
 * One line of an order.
 *
 * @param sku the product
 * @param quantity how many
 * @param unitPrice the price of one
 */
public record Item(@NotBlank String sku, @Positive int quantity, @NotNull @PositiveOrZero BigDecimal unitPrice) {

    /** {@code quantity × unitPrice}. */
    public BigDecimal total() {
        return unitPrice.multiply(BigDecimal.valueOf(quantity));
    }
}
