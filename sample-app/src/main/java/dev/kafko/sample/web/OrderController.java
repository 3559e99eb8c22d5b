package dev.kafko.sample.web;

import dev.kafko.sample.model.OrderReadModel;
import dev.kafko.sample.model.OrderView;
import dev.kafko.sample.model.PipelineStats;
import dev.kafko.sample.order.OrderPlaced;
import dev.kafko.sample.order.OrderPublisher;
import dev.kafko.sample.order.OrderPublisher.Published;
import dev.kafko.sample.order.OrderRequest;
import jakarta.validation.Valid;
import java.math.BigDecimal;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} publishes an order and answers 202 once it is in the log (the payment
 * happens asynchronously); {@code GET /orders/{id}} and {@code GET /stats} read the read model.
 */
@RestController
class OrderController {

    private final OrderPublisher publisher;
    private final OrderReadModel model;
    private final PipelineStats stats;

    OrderController(OrderPublisher publisher, OrderReadModel model, PipelineStats stats) {
        this.publisher = publisher;
        this.model = model;
        this.stats = stats;
    }

    /** Spring MVC completes the request when the future does, without holding a thread meanwhile. */
    @PostMapping("/orders")
    CompletableFuture<ResponseEntity<Accepted>> place(@Valid @RequestBody OrderRequest request) {
        return publisher.publish(request).thenApply(OrderController::accepted);
    }

    private static ResponseEntity<Accepted> accepted(Published sent) {
        OrderPlaced order = sent.order();
        return ResponseEntity.accepted().location(URI.create("/orders/" + order.id()))
                .body(new Accepted(order.id(), order.amount(), sent.partition(), sent.offset()));
    }

    @GetMapping("/orders/{id}")
    ResponseEntity<OrderView> order(@PathVariable String id) {
        return ResponseEntity.of(model.find(id));
    }

    @GetMapping("/stats")
    PipelineStats.Stats stats() {
        return stats.snapshot();
    }

    /**
     * The answer to {@code POST /orders}.
     *
     * @param id the order id, for {@code GET /orders/{id}}
     * @param amount the order's amount; none when a line is empty or has no price (the order is then rejected)
     * @param partition the partition of {@code orders} it went to
     * @param offset its offset there
     */
    record Accepted(String id, @Nullable BigDecimal amount, int partition, long offset) {
    }
}
