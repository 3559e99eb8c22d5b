package dev.kafko.sample.order;

/** The topic names of the pipeline; their partitions and codec are set in application.yml. */
public final class Topics {

    /** {@link OrderPlaced} events, keyed by customer. */
    public static final String ORDERS = "orders";
    /** {@link PaymentCaptured} events, keyed by customer. */
    public static final String PAYMENTS = "payments";
    /** Orders the payment processor rejected, with the reason in the dead-letter headers. */
    public static final String ORDERS_DLT = "orders.DLT";

    private Topics() {
    }
}
