package dev.kafko.sample;

import dev.kafko.sample.model.OrderView;
import dev.kafko.sample.model.PipelineStats.Stats;
import dev.kafko.sample.order.Item;
import dev.kafko.sample.order.OrderRequest;
import java.math.BigDecimal;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

/** The sample's HTTP API, over a real connection to a running application. */
final class SampleClient {

    private final RestTestClient http;

    SampleClient(int port) {
        this.http = RestTestClient.bindToServer().baseUrl("http://localhost:" + port).build();
    }

    /** A client of the application whose web server that context started. */
    static SampleClient of(ApplicationContext context) {
        return new SampleClient(Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port")));
    }

    RestTestClient http() {
        return http;
    }

    /** Places an order and returns its id; fails unless it is accepted. */
    Accepted place(String customer, List<Item> items) {
        return place(customer, items, null);
    }

    /** Places an order inside the caller's trace, given as a W3C {@code traceparent} header. */
    Accepted place(String customer, List<Item> items, @Nullable String traceparent) {
        return http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .headers(h -> {
                    if (traceparent != null) {
                        h.set("traceparent", traceparent);
                    }
                })
                .body(new OrderRequest(customer, items))
                .exchange()
                .expectStatus().isAccepted()
                .expectBody(Accepted.class).returnResult().getResponseBody();
    }

    OrderView order(String id) {
        return http.get().uri("/orders/{id}", id).exchange()
                .expectStatus().isOk()
                .expectBody(OrderView.class).returnResult().getResponseBody();
    }

    HttpStatus orderStatusCode(String id) {
        return HttpStatus.valueOf(http.get().uri("/orders/{id}", id).exchange().returnResult().getStatus().value());
    }

    Stats stats() {
        return http.get().uri("/stats").exchange()
                .expectStatus().isOk()
                .expectBody(Stats.class).returnResult().getResponseBody();
    }

    static Item item(String sku, int quantity, String unitPrice) {
        return new Item(sku, quantity, new BigDecimal(unitPrice));
    }

    /** The body of a 202 to {@code POST /orders}. */
    record Accepted(String id, BigDecimal amount, int partition, long offset) {
    }
}
