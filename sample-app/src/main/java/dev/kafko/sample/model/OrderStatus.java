package dev.kafko.sample.model;

/** Where an order is; an order only ever moves to a later status. */
public enum OrderStatus {
    /** Accepted and on {@code orders}; not yet processed. */
    PENDING,
    /** Its payment is on {@code payments}. */
    PAID,
    /** It broke a rule and is on {@code orders.DLT}. */
    REJECTED;

    /** Whether the order has reached the end of the pipeline. */
    public boolean isFinal() {
        return this != PENDING;
    }
}
