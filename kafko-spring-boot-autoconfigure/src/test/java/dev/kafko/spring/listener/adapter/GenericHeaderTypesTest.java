package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.spring.Order;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A header the template wrote from a collection, a map or an array is read back by a {@code @Header} of that
 * generic type, its elements of the declared type, also within an {@code Optional}: a {@code List<String>} header
 * arrived as the numbers of its JSON's bytes (Spring's array-to-collection conversion of the {@code byte[]}), and an
 * {@code Optional<Order>} held the JSON read as a {@code LinkedHashMap}, both failing only where the listener used a
 * value, with a {@code ClassCastException}.
 */
class GenericHeaderTypesTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();
    static final List<Object> SEEN_OPTIONAL = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(3);

    @BeforeEach
    void reset() {
        SEEN.clear();
        SEEN_OPTIONAL.clear();
    }

    @Test
    void collectionMapAndArrayHeadersAreReadBackWithTheirDeclaredElementTypes() {
        runner.withBean(Containers.class).run(context -> {
            template(context).send(MessageBuilder.withPayload("p").setHeader(KafkoHeaders.TOPIC, "tagged")
                    .setHeader("tags", List.of("a", "b")).setHeader("scores", Map.of("x", 1))
                    .setHeader("orders", List.of(new Order("o-1", 10))).setHeader("names", new String[] {"n"})
                    .setHeader("first", new Order("o-2", 20)).setHeader("count", 3).build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "tagged.DLT")).isEmpty();
            assertThat(SEEN).containsExactly(List.of("a", "b"), Map.of("x", 1), List.of(new Order("o-1", 10)),
                    List.of("n"), "a", 1, "o-1");
            assertThat(SEEN_OPTIONAL).containsExactly(List.of(new Order("o-1", 10)), "o-1", "absent", "o-2", 3);
        });
    }

    @Test
    void aCollectionHeaderThatIsNoJsonFailsAsAConversionNamingTheParameter() {
        runner.withBean(Containers.class).run(context -> {
            context.getBean(Kafko.class).producer("tagged").send(null, "p".getBytes(StandardCharsets.UTF_8),
                    Headers.of(dev.kafko.Header.of("tags", "a,b"), dev.kafko.Header.of("scores", "{}"),
                            dev.kafko.Header.of("orders", "[]"), dev.kafko.Header.of("names", "[]"))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(SEEN).isEmpty();
            assertThat(SEEN_OPTIONAL).isEmpty();
            assertThat(KafkoTestUtils.records(context, "tagged.DLT")).filteredOn(r -> "tagged".equals(
                    text(r.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP)))).singleElement()
                    .satisfies(r -> assertThat(text(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                            .contains("parameter at index 1", "java.util.List<java.lang.String>"));
        });
    }

    static class Containers {
        @KafkoListener(id = "tagged", topics = "tagged")
        void tagged(String value, @Header("tags") List<String> tags, @Header("scores") Map<String, Integer> scores,
                @Header("orders") List<Order> orders, @Header("names") String[] names) {
            SEEN.addAll(List.of(tags, scores, orders, List.of(names)));
            // the elements are of the declared types: these would throw ClassCastException otherwise
            String first = tags.get(0);
            Integer score = scores.get("x");
            Order order = orders.get(0);
            SEEN.addAll(List.of(first, score, order.id()));
        }

        /** Optional parameters: an {@code Optional<Order>} held the JSON as a {@code LinkedHashMap}. */
        @KafkoListener(id = "tagged-optional", topics = "tagged")
        void optional(String value, @Header("orders") Optional<List<Order>> orders,
                @Header(name = "absent", required = false) Optional<List<Order>> absent,
                @Header(name = "first", required = false) Optional<Order> first,
                @Header(name = "count", required = false) Optional<Integer> count) {
            if (orders.isEmpty()) {
                return;   // the other test's record, whose "[]" Spring gives as an empty Optional
            }
            SEEN_OPTIONAL.addAll(List.of(orders.orElseThrow(), orders.orElseThrow().get(0).id(),
                    absent.isPresent() ? absent : "absent"));
            Order order = first.orElseThrow();
            Integer n = count.orElseThrow();
            SEEN_OPTIONAL.addAll(List.of(order.id(), n));
        }
    }
}
