package dev.kafko.sample;

import static dev.kafko.sample.SampleClient.item;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.sample.SampleClient.Accepted;
import dev.kafko.sample.model.OrderStatus;
import dev.kafko.sample.model.OrderView;
import dev.kafko.sample.model.PipelineStats.Stats;
import dev.kafko.sample.order.Item;
import dev.kafko.sample.order.Topics;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;

/** The whole pipeline over HTTP, on an ephemeral log: REST → orders → payments / orders.DLT → read model. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "kafko.ephemeral=true")
class OrderPipelineTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @LocalServerPort
    int port;
    @Autowired
    ApplicationContext context;

    SampleClient client;

    @BeforeEach
    void connect() {
        client = new SampleClient(port);
    }

    /** The processor catches up with orders, then the model with what the processor wrote: one call settles both hops. */
    private void awaitPipeline() {
        KafkoTestUtils.waitForListeners(context, WAIT);
    }

    @Test
    void validOrdersArePaidAndCountedOnceInTheStats() {
        Stats before = client.stats();
        Accepted first = client.place("alice", List.of(item("book", 2, "12.50"), item("pen", 1, "1.99")));
        Accepted second = client.place("alice", List.of(item("lamp", 1, "30.00")));

        awaitPipeline();

        OrderView paid = client.order(first.id());
        assertThat(paid.status()).isEqualTo(OrderStatus.PAID);
        assertThat(paid.customer()).isEqualTo("alice");
        assertThat(paid.amount()).isEqualByComparingTo("26.99");
        assertThat(paid.itemCount()).isEqualTo(2);
        assertThat(client.order(second.id()).status()).isEqualTo(OrderStatus.PAID);
        assertThat(first.partition()).as("keyed by customer").isEqualTo(second.partition());
        Stats after = client.stats();
        assertThat(count(after, OrderStatus.PAID) - count(before, OrderStatus.PAID)).isEqualTo(2);
        assertThat(amount(after, OrderStatus.PAID).subtract(amount(before, OrderStatus.PAID)))
                .isEqualByComparingTo("56.99");
        assertThat(after.topics().get(Topics.ORDERS).partitions()).hasSize(4);
        assertThat(after.topics().get(Topics.PAYMENTS).records()).isEqualTo(count(after, OrderStatus.PAID));
    }

    @Test
    void invalidOrdersLandInTheDeadLetterTopicAndAreShownRejected() {
        long deadLettersBefore = client.stats().deadLetters();
        Accepted empty = client.place("bob", List.of());
        Accepted negative = client.place("carol", List.of(item("refund", 1, "-5.00")));

        awaitPipeline();

        OrderView rejected = client.order(negative.id());
        assertThat(rejected.status()).isEqualTo(OrderStatus.REJECTED);
        assertThat(rejected.reason()).contains("amount must be greater than 0");
        assertThat(client.order(empty.id()).reason()).contains("items must not be empty");
        assertThat(client.stats().deadLetters()).isEqualTo(deadLettersBefore + 2);
        List<KafkoRecord> dlt = deadLetters();
        assertThat(dlt).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .anySatisfy(json -> assertThat(json).contains(negative.id()))
                .anySatisfy(json -> assertThat(json).contains(empty.id()));
        KafkoRecord record = dlt.stream()
                .filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains(negative.id())).findFirst().orElseThrow();
        assertThat(header(record, KafkoHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo(Topics.ORDERS);
        assertThat(header(record, KafkoHeaders.DLT_EXCEPTION_FQCN)).endsWith("InvalidOrderException");
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("carol");
    }

    @Test
    void aLineWithoutAPriceOrAnEmptyLineIsRejectedDownstreamNotAServerError() {
        Accepted unpriced = client.place("gina", List.of(new Item("pen", 1, null)));
        Accepted emptyLine = client.place("hal", Arrays.asList(item("pen", 1, "1.00"), null));
        assertThat(unpriced.amount()).isNull();

        awaitPipeline();

        OrderView noPrice = client.order(unpriced.id());
        assertThat(noPrice.status()).isEqualTo(OrderStatus.REJECTED);
        assertThat(noPrice.reason()).contains("unitPrice must not be null");
        OrderView noLine = client.order(emptyLine.id());
        assertThat(noLine.status()).isEqualTo(OrderStatus.REJECTED);
        assertThat(noLine.reason()).contains("must not be null");
        assertThat(deadLetters()).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .anySatisfy(json -> assertThat(json).contains(unpriced.id()))
                .anySatisfy(json -> assertThat(json).contains(emptyLine.id()));
    }

    @Test
    void theTraceOfAnOrdersRequestReachesItsPaymentAndItsDeadLetter() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String traceparent = "00-" + traceId + "-00f067aa0ba902b7-01";
        Accepted paid = client.place("erin", List.of(item("kite", 1, "20.00")), traceparent);
        Accepted rejected = client.place("frank", List.of(item("refund", 1, "-1.00")), traceparent);

        awaitPipeline();

        // the order's send, the processor's delivery and the payment it sent: one trace, through record headers
        KafkoRecord payment = find(records(Topics.PAYMENTS), paid.id());
        assertThat(header(payment, "traceparent")).startsWith("00-" + traceId + "-");
        KafkoRecord deadLetter = find(deadLetters(), rejected.id());
        assertThat(header(deadLetter, "traceparent")).startsWith("00-" + traceId + "-");
        assertThat(payment.headers().headers("traceparent")).hasSize(1);
    }

    private static KafkoRecord find(List<KafkoRecord> records, String orderId) {
        return records.stream().filter(r -> new String(r.value(), StandardCharsets.UTF_8).contains(orderId))
                .findFirst().orElseThrow(() -> new AssertionError("no record of order " + orderId));
    }

    @Test
    void anOrderWithoutCustomerIsRefusedAtTheDoorAndAnUnknownIdIsNotFound() {
        client.http().post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("items", List.of()))
                .exchange()
                .expectStatus().isBadRequest();
        client.http().get().uri("/orders/{id}", "no-such-order").exchange().expectStatus().isNotFound();
    }

    @Test
    void actuatorShowsKafkoHealthAndSendMetrics() {
        client.place("dave", List.of(item("mug", 1, "8.00")));
        client.http().get().uri("/actuator/health/kafko").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.status").isEqualTo("UP")
                .jsonPath("$.details.topics").isNumber();
        client.http().get().uri("/actuator/metrics/kafko.template.send").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.measurements[0].value").isNumber();
    }

    private List<KafkoRecord> deadLetters() {
        return records(Topics.ORDERS_DLT);
    }

    /** Every record the topic holds, read without a group. */
    private List<KafkoRecord> records(String topic) {
        return KafkoTestUtils.records(context, topic);
    }

    private static String header(KafkoRecord record, String key) {
        return new String(Objects.requireNonNull(record.headers().lastValue(key)), StandardCharsets.UTF_8);
    }

    static long count(Stats stats, OrderStatus status) {
        return stats.byStatus().get(status).count();
    }

    static BigDecimal amount(Stats stats, OrderStatus status) {
        return stats.byStatus().get(status).amount();
    }
}
