package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.Order;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import jakarta.validation.Valid;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

@SpringBootTest(properties = {"kafko.ephemeral=true", "kafko.topics.orders.partitions=6", "app.topic=orders",
        "app.concurrency=3", "kafko.listener.retry.max-attempts=2"})
class KafkoListenerIntegrationTest {

    static final Duration WAIT = Duration.ofSeconds(20);

    @Autowired
    KafkoTemplate<Object, Object> template;
    @Autowired
    KafkoListenerEndpointRegistry registry;
    @Autowired
    Listeners listeners;
    @Autowired
    Kafko kafko;

    @Test
    void concurrencyThreeOverSixPartitionsConsumesEveryRecordOnceInKeyOrder() {
        int keys = 24;
        int perKey = 25;
        for (int seq = 0; seq < perKey; seq++) {
            for (int k = 0; k < keys; k++) {
                template.send("orders", "key-" + k, new Order("key-" + k, seq));
            }
        }
        template.send("orders", "key-0", new Order("key-0", perKey)).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);

        List<String[]> seen = new ArrayList<>(listeners.ordered);
        assertThat(seen).hasSize(keys * perKey + 1);
        Map<String, Integer> lastSeq = new HashMap<>();
        Set<String> threads = new HashSet<>();
        for (String[] s : seen) {
            int seq = Integer.parseInt(s[1]);
            Integer previous = lastSeq.put(s[0], seq);
            assertThat(seq).as("order of key %s", s[0]).isEqualTo(previous == null ? 0 : previous + 1);
            threads.add(s[2]);
        }
        assertThat(threads).isSubsetOf("ordered-0", "ordered-1", "ordered-2").hasSize(3);
        assertThat(registry.getListenerContainer("ordered").getGroupId()).isEqualTo("ordered");
    }

    @Test
    void argumentsResolveFromTheRecordThroughSpringMessaging() {
        template.send(MessageBuilder.withPayload(new Order("o-7", 7)).setHeader(KafkoHeaders.TOPIC, "args")
                .setHeader(KafkoHeaders.KEY, "k-7").setHeader("trace", "abc").build()).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);

        assertThat(listeners.args).hasSize(1);
        Map<String, Object> a = listeners.args.get(0);
        assertThat(a.get("order")).isEqualTo(new Order("o-7", 7));
        assertThat(a.get("key")).isEqualTo("k-7");
        assertThat(a.get("topic")).isEqualTo("args");
        assertThat(a.get("partition")).isEqualTo(0);
        assertThat(a.get("offset")).isEqualTo(0L);
        assertThat((Long) a.get("timestamp")).isPositive();
        assertThat(a.get("trace")).isEqualTo("abc");
        assertThat(((KafkoRecord) a.get("record")).offset()).isZero();
        assertThat(a.get("messagePayload")).isEqualTo(new Order("o-7", 7));
        assertThat(a.get("type")).isEqualTo(Order.class.getName());
    }

    @Test
    void anObjectKeyIsReadBackAsTheObjectAndANumberKeyAsTheNumber() {
        template.send("objectKeys", new Order("key-1", 1), "v").join();
        template.send("numberKeys", 42L, "w").join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.objectKeys).containsExactly(new Order("key-1", 1));
        assertThat(listeners.numberKeys).containsExactly(42L);
    }

    @Test
    void theTypeHeaderPicksTheSubtypeOfAnInterfaceParameter() {
        template.send("events", new Shipped("o-9", "DHL")).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.events).containsExactly(new Shipped("o-9", "DHL"));
    }

    @Test
    void batchListenerGetsAListOfConvertedPayloadsWithListHeaders() {
        for (int i = 0; i < 5; i++) {
            template.send("batched", "k" + i, new Order("b" + i, i));
        }
        template.send("batched", "k5", new Order("b5", 5)).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);

        assertThat(listeners.batchOrders).extracting(Order::id).containsExactly("b0", "b1", "b2", "b3", "b4", "b5");
        assertThat(listeners.batchKeys).containsExactly("k0", "k1", "k2", "k3", "k4", "k5");
        assertThat(listeners.batchSizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(6);
    }

    @Test
    void batchListenerOfMessagesGetsTheirPayloadsConvertedToTheDeclaredType() {
        template.send("batchedMessages", new Order("m0", 0));
        template.send("batchedMessages", new Order("m1", 1)).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.batchMessages).containsExactly("m0@0", "m1@1");
    }

    @Test
    void sendToPublishesTheResultWithTheIncomingKey() {
        template.send("lower", "key-x", "hello").join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        KafkoTestUtils.waitForListeners(registry, WAIT); // the reply was appended during the first wait
        assertThat(listeners.upper).containsExactly("key-x=HELLO");
    }

    @Test
    void aGenericCollectionSentAsAnObjectArrivesWithItsDeclaredElementType() {
        template.send("orderLists", new ArrayList<>(List.of(new Order("l0", 0), new Order("l1", 1))));
        template.send("orderMaps", new HashMap<>(Map.of("a", new Order("m", 2)))).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.orderLists).containsExactly(List.of(new Order("l0", 0), new Order("l1", 1)));
        assertThat(listeners.orderMaps).containsExactly(Map.of("a", new Order("m", 2)));
    }

    @Test
    void batchElementsOfAGenericTypeAreConvertedWithTheirTypeArguments() {
        template.send("envelopes", new Envelope<>("e0", new Order("o0", 0)));
        template.send("envelopeMessages", new Envelope<>("e1", new Order("o1", 1))).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.envelopes).containsExactlyInAnyOrder(new Envelope<>("e0", new Order("o0", 0)),
                new Envelope<>("e1", new Order("o1", 1)));
    }

    @Test
    void sendToSendsARecordPerElementOfAReturnedCollection() {
        template.send("split", "key-s", "a,b,c").join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        KafkoTestUtils.waitForListeners(registry, WAIT); // the replies were appended during the first wait
        assertThat(listeners.splitParts).containsExactly("key-s=a", "key-s=b", "key-s=c");
    }

    @Test
    void repeatedAndMetaAnnotatedListenersEachGetAContainer() {
        template.send("rep1", "one").join();
        template.send("rep2", "two").join();
        template.send("meta", "three").join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.repeated).containsExactlyInAnyOrder("rep1:one", "rep2:two");
        assertThat(listeners.meta).containsExactly("three");
        assertThat(registry.getListenerContainerIds()).contains("r1", "r2", "metaListener");
        assertThat(((ConcurrentMessageListenerContainer) registry.getListenerContainer("r1")).getContainerProperties()
                .ackMode()).isEqualTo(AckMode.MANUAL_IMMEDIATE);
        assertThat(((ConcurrentMessageListenerContainer) registry.getListenerContainer("r2")).getContainerProperties()
                .ackMode()).isEqualTo(AckMode.BATCH);
    }

    @Test
    void invalidPayloadsAreRejectedByTheValidatorWithoutRetries() {
        template.send("validated", new Order("bad", -1));
        template.send("validated", new Order("good", 1)).join();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.validated).containsExactly("good");
    }

    @Test
    void autoStartupFalseWaitsForAnExplicitStart() {
        MessageListenerContainer container = registry.getListenerContainer("later");
        assertThat(container.isRunning()).isFalse();
        template.send("later", "x").join();
        container.start();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.later).containsExactly("x");
        container.stop();
        assertThat(container.isRunning()).isFalse();
    }

    @Test
    void pausedContainerConsumesNothingUntilResumed() {
        MessageListenerContainer container = registry.getListenerContainer("pausable");
        container.pause();
        assertThat(container.isPauseRequested()).isTrue();
        await().atMost(WAIT).until(container::isPaused);
        for (int i = 0; i < 5; i++) {
            template.send("pausable", "p" + i).join();
        }
        KafkoTestUtils.waitForListeners(registry, WAIT); // skips paused containers
        assertThat(listeners.pausable).isEmpty();
        assertThat(kafko.groupInfo("pausable", "pausable").lag().get(0)).isEqualTo(5L);

        container.resume();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.pausable).containsExactly("p0", "p1", "p2", "p3", "p4");
        assertThat(container.isPaused()).isFalse();
    }

    @Test
    void aPauseOutlastsAStopAndAStartUntilResumed() {
        MessageListenerContainer container = registry.getListenerContainer("pausedAcrossRestart");
        container.pause();
        await().atMost(WAIT).until(container::isPaused);
        container.stop();
        assertThat(container.isRunning()).isFalse();
        container.start(); // as spring-kafka's: the members of a paused container start paused
        assertThat(container.isPauseRequested()).isTrue();
        await().atMost(WAIT).until(container::isPaused);
        template.send("pausedAcrossRestart", "q").join();
        KafkoTestUtils.waitForListeners(registry, WAIT); // skips paused containers
        assertThat(listeners.pausedAcrossRestart).isEmpty();
        assertThat(kafko.groupInfo("pausedAcrossRestart", "pausedAcrossRestart").lag().get(0)).isEqualTo(1L);

        container.resume();
        KafkoTestUtils.waitForListeners(registry, WAIT);
        assertThat(listeners.pausedAcrossRestart).containsExactly("q");
        assertThat(container.isPaused()).isFalse();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }

        @Bean
        Validator orderValidator() {
            return new Validator() {
                @Override
                public boolean supports(Class<?> clazz) {
                    return Order.class.isAssignableFrom(clazz);
                }

                @Override
                public void validate(Object target, Errors errors) {
                    if (((Order) target).amount() < 0) {
                        errors.rejectValue("amount", "negative");
                    }
                }
            };
        }
    }

    interface Event {
    }

    record Shipped(String orderId, String carrier) implements Event {
    }

    record Envelope<T>(String id, T body) {
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @KafkoListener(topics = "meta")
    @interface MetaListener {
        @AliasFor(annotation = KafkoListener.class, attribute = "id")
        String id();
    }

    static class Listeners {
        final List<String[]> ordered = new CopyOnWriteArrayList<>();
        final List<Map<String, Object>> args = new CopyOnWriteArrayList<>();
        final List<Order> batchOrders = new CopyOnWriteArrayList<>();
        final List<String> batchKeys = new CopyOnWriteArrayList<>();
        final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
        final List<String> batchMessages = new CopyOnWriteArrayList<>();
        final List<String> upper = new CopyOnWriteArrayList<>();
        final List<String> repeated = new CopyOnWriteArrayList<>();
        final List<String> meta = new CopyOnWriteArrayList<>();
        final List<String> validated = new CopyOnWriteArrayList<>();
        final List<String> later = new CopyOnWriteArrayList<>();
        final List<String> pausable = new CopyOnWriteArrayList<>();
        final List<String> pausedAcrossRestart = new CopyOnWriteArrayList<>();
        final List<Event> events = new CopyOnWriteArrayList<>();
        final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        final List<List<Order>> orderLists = new CopyOnWriteArrayList<>();
        final List<Map<String, Order>> orderMaps = new CopyOnWriteArrayList<>();
        final List<Envelope<Order>> envelopes = new CopyOnWriteArrayList<>();
        final List<String> splitParts = new CopyOnWriteArrayList<>();
        final List<Order> objectKeys = new CopyOnWriteArrayList<>();
        final List<Long> numberKeys = new CopyOnWriteArrayList<>();

        @KafkoListener(id = "objectKeys", topics = "objectKeys")
        void objectKeys(String value, @Header(KafkoHeaders.RECEIVED_KEY) Order key) {
            objectKeys.add(key);
        }

        @KafkoListener(id = "numberKeys", topics = "numberKeys")
        void numberKeys(String value, @Header(KafkoHeaders.RECEIVED_KEY) Long key) {
            numberKeys.add(key);
        }

        @KafkoListener(id = "orderLists", topics = "orderLists")
        void orderLists(List<Order> orders) {
            orders.forEach(Order::id); // each element must be an Order
            orderLists.add(orders);
        }

        @KafkoListener(id = "orderMaps", topics = "orderMaps")
        void orderMaps(Map<String, Order> orders) {
            orders.values().forEach(Order::id);
            orderMaps.add(orders);
        }

        @KafkoListener(id = "envelopes", topics = "envelopes", batch = "true")
        void envelopes(List<Envelope<Order>> batch) {
            batch.forEach(e -> e.body().id()); // each body must be an Order
            envelopes.addAll(batch);
        }

        @KafkoListener(id = "envelopeMessages", topics = "envelopeMessages", batch = "true")
        void envelopeMessages(List<Message<Envelope<Order>>> batch) {
            batch.forEach(m -> envelopes.add(new Envelope<>(m.getPayload().id(), m.getPayload().body())));
        }

        @KafkoListener(id = "split", topics = "split")
        @SendTo("splitParts")
        List<String> split(String text) {
            return List.of(text.split(","));
        }

        @KafkoListener(id = "splitParts", topics = "splitParts")
        void splitParts(String part, @Header(KafkoHeaders.RECEIVED_KEY) String key) {
            splitParts.add(key + "=" + part);
        }

        @KafkoListener(id = "ordered", topics = "${app.topic}", concurrency = "#{${app.concurrency}}")
        void ordered(Order order, @Header(KafkoHeaders.RECEIVED_KEY) String key) {
            ordered.add(new String[] {key, Integer.toString(order.amount()), Thread.currentThread().getName()});
        }

        @KafkoListener(id = "args", topics = "args")
        void args(@Payload Order order, @Header(KafkoHeaders.RECEIVED_KEY) String key,
                  @Header(KafkoHeaders.RECEIVED_TOPIC) String topic, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                  @Header(KafkoHeaders.OFFSET) long offset, @Header(KafkoHeaders.RECEIVED_TIMESTAMP) long timestamp,
                  @Header("trace") String trace, @Headers Map<String, Object> headers, KafkoRecord record,
                  Message<Order> message) {
            Map<String, Object> a = new HashMap<>();
            a.put("order", order);
            a.put("key", key);
            a.put("topic", topic);
            a.put("partition", partition);
            a.put("offset", offset);
            a.put("timestamp", timestamp);
            a.put("trace", trace);
            a.put("record", record);
            a.put("messagePayload", message.getPayload());
            a.put("type", new String((byte[]) headers.get(KafkoHeaders.TYPE)));
            args.add(a);
        }

        @KafkoListener(id = "batched", topics = "batched", batch = "true")
        void batched(List<Order> orders, @Header(KafkoHeaders.RECEIVED_KEY) List<String> keys) {
            batchOrders.addAll(orders);
            batchKeys.addAll(keys);
            batchSizes.add(orders.size());
        }

        @KafkoListener(id = "batchedMessages", topics = "batchedMessages", batch = "true")
        void batchedMessages(List<Message<Order>> messages) {
            for (int i = 0; i < messages.size(); i++) {
                Message<Order> m = messages.get(i);
                Order order = m.getPayload();
                batchMessages.add(order.id() + "@" + m.getHeaders().get(KafkoHeaders.OFFSET));
            }
        }

        @KafkoListener(id = "lower", topics = "lower")
        @SendTo("upper")
        String toUpper(String text) {
            return text.toUpperCase();
        }

        @KafkoListener(id = "upper", topics = "upper")
        void upper(String text, @Header(KafkoHeaders.RECEIVED_KEY) String key) {
            upper.add(key + "=" + text);
        }

        @KafkoListener(id = "r1", topics = "rep1", ackMode = "manual-immediate")
        @KafkoListener(id = "r2", topics = "rep2")
        void repeated(String text, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            repeated.add(topic + ":" + text);
        }

        @MetaListener(id = "metaListener")
        void meta(String text) {
            meta.add(text);
        }

        @KafkoListener(id = "validated", topics = "validated")
        void validated(@Valid Order order) {
            attempts.computeIfAbsent(order.id(), k -> new AtomicInteger()).incrementAndGet();
            validated.add(order.id());
        }

        @KafkoListener(id = "later", topics = "later", autoStartup = "${app.later-start:false}")
        void later(String text) {
            later.add(text);
        }

        @KafkoListener(id = "events", topics = "events")
        void events(Event event) {
            events.add(event);
        }

        @KafkoListener(id = "pausable", topics = "pausable")
        void pausable(String text) {
            pausable.add(text);
        }

        @KafkoListener(id = "pausedAcrossRestart", topics = "pausedAcrossRestart")
        void pausedAcrossRestart(String text) {
            pausedAcrossRestart.add(text);
        }
    }
}
