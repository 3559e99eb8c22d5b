package dev.kafko.sample.order;

import dev.kafko.spring.core.KafkoTemplate;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.springframework.stereotype.Service;

/**
 * Turns requests into {@link OrderPlaced} events on {@code orders}, keyed by customer. Thread-safe;
 * used by the REST endpoint and the load generator.
 */
@Service
public class OrderPublisher {

    private final KafkoTemplate<String, OrderPlaced> template;
    private final Clock clock;

    public OrderPublisher(KafkoTemplate<String, OrderPlaced> template, Clock clock) {
        this.template = template;
        this.clock = clock;
    }

    /** Publishes the order without waiting; the future completes once it is in the log. */
    public CompletableFuture<Published> publish(OrderRequest request) {
        OrderPlaced order = OrderPlaced.of(UUID.randomUUID().toString(), request, clock.instant());
        return template.send(Topics.ORDERS, order.customer(), order)
                .thenApply(sent -> new Published(order, sent.partition(), sent.offset()));
    }

    /**
     * An order in the log.
     *
     * @param order the event
     * @param partition the partition of {@code orders} it went to
     * @param offset its offset there
     */
    public record Published(OrderPlaced order, int partition, long offset) {
    }
}
