package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.test.KafkoTestUtils;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * A class-level {@code @KafkoListener} delivers each record to the {@code @KafkoHandler} that takes its
 * payload's class, as spring-kafka's {@code @KafkaHandler}s: the most specific handler wins, text goes to
 * a {@code String} handler, a tombstone to {@code @Payload(required = false)}, the rest to the default
 * handler; without one, a record no handler takes is a conversion failure (no retries, dead letter).
 * Mistakes in the class are refused at start-up, naming it.
 */
class ClassLevelListenerTest {

    sealed interface OrderEvent permits OrderPlaced, OrderCancelled, OrderShipped {
    }

    record OrderPlaced(String id, BigDecimal total) implements OrderEvent {
    }

    record OrderCancelled(String id, String reason) implements OrderEvent {
    }

    record OrderShipped(String id) implements OrderEvent {
    }

    record Refund(String id) {
    }

    interface Audited {
    }

    interface Billed {
    }

    record Invoice(String id) implements Audited, Billed {
    }

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static final AtomicInteger ATTEMPTS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @KafkoListener(id = "orders", topics = "orders")
    static class Orders {
        @KafkoHandler
        void placed(OrderPlaced e, @Header(KafkoHeaders.OFFSET) long offset) {
            SEEN.add("placed " + e.id() + " " + e.total() + " @" + offset);
        }

        @KafkoHandler
        void anyOrder(OrderEvent e) {
            SEEN.add("event " + e);
        }

        @KafkoHandler
        void text(String s) {
            SEEN.add("text " + s);
        }

        @KafkoHandler
        void deleted(@Payload(required = false) KafkoNull nothing, @Header(KafkoHeaders.RECEIVED_KEY) String key) {
            SEEN.add("tombstone " + key);
        }

        @KafkoHandler(isDefault = true)
        void other(byte[] raw) {
            SEEN.add("other " + new String(raw, StandardCharsets.UTF_8));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OrdersConfig {
        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    @Test
    void eachRecordGoesToTheMostSpecificHandlerThatTakesItsPayload() {
        SEEN.clear();
        runner.withUserConfiguration(OrdersConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoTemplate<Object, Object> template = template(context);
            template.send("orders", new OrderPlaced("o1", new BigDecimal("9.50"))).join();
            template.send("orders", new OrderCancelled("o2", "changed mind")).join();
            template.send("orders", "hello").join();
            template.send("orders", "o3", KafkoNull.INSTANCE).join();
            template.send("orders", new Refund("r1")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SEEN).containsExactly("placed o1 9.50 @0",
                    "event OrderCancelled[id=o2, reason=changed mind]", "text hello", "tombstone o3",
                    "other {\"id\":\"r1\"}");
        });
    }

    @KafkoListener(id = "replies", topics = "requests")
    @SendTo("answers")
    static class Replies {
        @KafkoHandler
        String placed(OrderPlaced e) {
            return "class-level reply " + e.id();
        }

        @KafkoHandler
        @SendTo("cancellations")
        String cancelled(OrderCancelled e) {
            return "own reply " + e.id();
        }
    }

    @Test
    void aHandlersSendToWinsOverTheClasssAndTheClasssAppliesToTheOthers() {
        runner.withUserConfiguration(Replies.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoTemplate<Object, Object> template = template(context);
            template.send("requests", new OrderPlaced("a", BigDecimal.ONE)).join();
            template.send("requests", new OrderCancelled("b", "x")).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(values(kafko, "answers")).containsExactly("class-level reply a");
            assertThat(values(kafko, "cancellations")).containsExactly("own reply b");
        });
    }

    @KafkoListener(id = "objects", topics = "objects")
    static class ObjectDefault {
        @KafkoHandler
        void placed(OrderPlaced e) {
            SEEN.add("placed " + e.id());
        }

        @KafkoHandler(isDefault = true)
        void other(Object o) {
            SEEN.add(o.getClass().getSimpleName() + " " + new String((byte[]) o, StandardCharsets.UTF_8));
        }
    }

    /**
     * spring-kafka's reference shows a default handler of {@code Object}: here it gets the stored bytes, as any
     * {@code Object} parameter, for a record of a class on the class path too (kafko does not guess a type).
     */
    @Test
    void aDefaultHandlerOfObjectGetsTheStoredBytes() {
        SEEN.clear();
        runner.withBean(ObjectDefault.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoTemplate<Object, Object> template = template(context);
            template.send("objects", new Refund("r1")).join();
            template.send("objects", "text").join();
            template.send("objects", new OrderPlaced("p", BigDecimal.ONE)).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SEEN).containsExactly("byte[] {\"id\":\"r1\"}", "byte[] text", "placed p");
        });
    }

    @KafkoListener(id = "strict", topics = "strict")
    static class Strict {
        @KafkoHandler
        void placed(OrderPlaced e) {
            ATTEMPTS.incrementAndGet();
            SEEN.add("placed " + e.id());
        }

        @KafkoHandler
        void audited(Audited a) {
            SEEN.add("audited " + a);
        }

        @KafkoHandler
        void billed(Billed b) {
            SEEN.add("billed " + b);
        }
    }

    @Test
    void aRecordNoHandlerTakesOrTwoTakeAlikeIsADeadLetterWithoutRetries() {
        SEEN.clear();
        runner.withUserConfiguration(Strict.class)
                .withPropertyValues("kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=5")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoTemplate<Object, Object> template = template(context);
                    template.send("strict", new Refund("r")).join();
                    template.send("strict", new Invoice("i")).join();
                    template.send("strict", "text").join();
                    template.send("strict", new OrderPlaced("p", BigDecimal.TEN)).join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactly("placed p");
                    Kafko kafko = context.getBean(Kafko.class);
                    List<KafkoRecord> dead = new ArrayList<>();
                    for (int i = 0; i < 50 && dead.size() < 3; i++) {
                        dead.addAll(kafko.consumer("strict.DLT").poll(Duration.ofMillis(200)));
                        if (dead.size() < 3) {
                            dead.clear();
                        }
                    }
                    assertThat(dead).hasSize(3);
                    assertThat(header(dead.get(0), KafkoHeaders.DLT_EXCEPTION_MESSAGE))
                            .contains("no @KafkoHandler for a payload of " + Refund.class.getName())
                            .contains("isDefault = true");
                    assertThat(header(dead.get(1), KafkoHeaders.DLT_EXCEPTION_MESSAGE))
                            .contains("taken by two @KafkoHandler methods").contains("audited").contains("billed");
                    assertThat(header(dead.get(2), KafkoHeaders.DLT_EXCEPTION_MESSAGE))
                            .contains("without a " + KafkoHeaders.TYPE + " header");
                    // conversion failures are not retried: the dead letters came at once, and the good record once
                    assertThat(ATTEMPTS.get()).isEqualTo(1);
                });
    }

    @KafkoListener(topics = "none")
    static class NoHandlers {
        void on(String s) {
        }
    }

    @KafkoListener(topics = "two")
    static class TwoDefaults {
        @KafkoHandler(isDefault = true)
        void a(String s) {
        }

        @KafkoHandler(isDefault = true)
        void b(Object o) {
        }
    }

    static class HandlersWithoutListener {
        @KafkoHandler
        void on(String s) {
        }
    }

    @KafkoListener(topics = "batch", batch = "true")
    static class Batch {
        @KafkoHandler
        void on(List<String> all) {
        }
    }

    record Envelope<T>(String id, T body) {
    }

    @KafkoListener(topics = "tie")
    static class Tie {
        @KafkoHandler
        void audit(OrderPlaced p) {
        }

        @KafkoHandler
        void bill(OrderPlaced p) {
        }
    }

    @KafkoListener(topics = "generic")
    static class GenericTie {
        @KafkoHandler
        void cancelled(Envelope<OrderCancelled> e) {
        }

        @KafkoHandler
        void shipped(Envelope<OrderShipped> e) {
        }
    }

    enum Op {
        ADD {
            @Override
            int apply(int a, int b) {
                return a + b;
            }
        },
        NOP;

        int apply(int a, int b) {
            return a;
        }
    }

    @KafkoListener(id = "guarded", topics = "guarded", errorHandler = "replyWithError")
    @SendTo("guarded-replies")
    static class Guarded {
        @KafkoHandler
        String op(Op op) {
            return "applied " + op.apply(2, 3);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GuardedConfig {
        @Bean
        Guarded guarded() {
            return new Guarded();
        }

        @Bean
        dev.kafko.spring.listener.KafkoListenerErrorHandler replyWithError() {
            return (message, exception) -> "error: " + exception.getMessage();
        }
    }

    /**
     * A record no handler takes reaches the listener's error handler, as a payload that could not be
     * converted does (it went straight to the dead-letter topic); an enum constant with a body travels under
     * its enum's name (its anonymous class was named, which no reader could read).
     */
    @Test
    void aRecordNoHandlerTakesReachesTheErrorHandlerAndEnumConstantsWithABodyArrive() {
        runner.withUserConfiguration(GuardedConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            KafkoTemplate<Object, Object> template = template(context);
            template.send("guarded", Op.ADD).join();
            template.send("guarded", new Refund("r")).join();
            template.send("guarded", Op.NOP).join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            List<String> replies = new ArrayList<>();
            Kafko kafko = context.getBean(Kafko.class);
            for (int i = 0; i < 50 && replies.size() < 3; i++) {
                for (KafkoRecord r : kafko.consumer("guarded-replies").poll(Duration.ofMillis(200))) {
                    replies.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                if (replies.size() < 3) {
                    replies.clear();
                }
            }
            assertThat(replies).hasSize(3);
            assertThat(replies.get(0)).isEqualTo("applied 5");
            assertThat(replies.get(1)).startsWith("error: Listener 'guarded' could not deliver the record")
                    .contains(Refund.class.getName());
            assertThat(replies.get(2)).isEqualTo("applied 2");
        });
    }

    @Test
    void handlersNoRecordCouldTellApartFailStartUp() {
        runner.withBean(Tie.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("audit and bill both take a payload of " + OrderPlaced.class.getName()));
        runner.withBean(GenericTie.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("cancelled and shipped both take a payload of " + Envelope.class.getName())
                .hasStackTraceContaining("type arguments aside"));
    }

    @Test
    void mistakesInAClassLevelListenerFailStartUpNamingTheClass() {
        runner.withBean(NoHandlers.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("NoHandlers").hasStackTraceContaining("no @KafkoHandler methods"));
        runner.withBean(TwoDefaults.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("TwoDefaults").hasStackTraceContaining("[a, b]"));
        runner.withBean(HandlersWithoutListener.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("HandlersWithoutListener")
                .hasStackTraceContaining("no @KafkoListener on the class"));
        runner.withBean(Batch.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("class-level @KafkoListener made a batch listener"));
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(org.springframework.context.ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static List<String> values(Kafko kafko, String topic) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 50 && out.isEmpty(); i++) {
            for (KafkoRecord r : kafko.consumer(topic).poll(Duration.ofMillis(200))) {
                out.add(new String(r.value(), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static String header(KafkoRecord r, String name) {
        byte[] v = r.headers().lastValue(name);
        return v == null ? "" : new String(v, StandardCharsets.UTF_8);
    }
}
