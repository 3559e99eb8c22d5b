package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.StringUtils;
import tools.jackson.databind.JsonNode;

/**
 * Records of several event types on one topic, and records written from classes that are gone: a
 * listener of one concrete class read every other event as that class without a word, and one of a
 * supertype failed on a renamed class with an error that never named the class the record asked for.
 */
@ExtendWith(OutputCaptureExtension.class)
class EventTypesTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<Object> SEEN = new CopyOnWriteArrayList<>();

    sealed interface AccountEvent permits Opened, Deposited {
    }

    record Opened(String account, String owner) implements AccountEvent {
    }

    record Deposited(String account, long amount) implements AccountEvent {
    }

    private final ApplicationContextRunner runner = ListenerTestSupport.deadLetteringRunner(3);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class OpenedOnly {
        @KafkoListener(id = "opened-only", topics = "accounts")
        void on(Opened opened) {
            SEEN.add(opened);
        }
    }

    @Test
    void aConcreteListenerReadsAnotherEventTypeAsItsOwnButSaysSoOncePerPairOfClasses(CapturedOutput output) {
        runner.withBean(OpenedOnly.class).run(context -> {
            template(context).send("accounts", new Opened("A", "ann")).join();
            template(context).send("accounts", new Deposited("A", 10)).join();
            template(context).send("accounts", new Deposited("A", 20)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            // read by the declared type, as spring-kafka's inferred type precedence does: two classes of one
            // shape (a DTO on each side) must keep working
            assertThat(SEEN).containsExactly(new Opened("A", "ann"), new Opened("A", null), new Opened("A", null));
        });
        assertThat(StringUtils.countOccurrencesOf(output.getOut(), "Records written as " + Deposited.class.getName()
                + " are read as " + Opened.class.getName())).isEqualTo(1);
    }

    @Test
    void aRecordOfAnotherClassThatIsGoneIsReadAsTheConcreteClassWithAWarningAndAMovedOneWithout(
            CapturedOutput output) {
        runner.withBean(OpenedOnly.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            byte[] opened = "{\"account\":\"B\",\"owner\":\"bo\"}".getBytes(StandardCharsets.UTF_8);
            // the same class, moved to another package since: read as it was, nothing to say
            kafko.producer("accounts").send(null, opened,
                    Headers.of(KafkoHeaders.TYPE, "shop.v1.Opened".getBytes(StandardCharsets.UTF_8))).join();
            // another event class, deleted since
            kafko.producer("accounts").send(null, "{\"account\":\"B\",\"amount\":3}".getBytes(StandardCharsets.UTF_8),
                    Headers.of(KafkoHeaders.TYPE, "shop.v1.Withdrawn".getBytes(StandardCharsets.UTF_8))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly(new Opened("B", "bo"), new Opened("B", null));
        });
        assertThat(output.getOut()).contains("Records written as shop.v1.Withdrawn (no longer on the class path) are"
                + " read as " + Opened.class.getName()).doesNotContain("Records written as shop.v1.Opened");
    }

    static class AnyAccountEvent {
        @KafkoListener(id = "any-event", topics = "renamed")
        void on(AccountEvent event) {
            SEEN.add(event);
        }
    }

    @Test
    void aRecordOfAClassThatIsGoneFailsWithAnErrorNamingItAndIsDeadLetteredWithoutRetries() {
        runner.withBean(AnyAccountEvent.class).run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            kafko.producer("renamed").send(null, "{\"account\":\"A\",\"amount\":5}".getBytes(StandardCharsets.UTF_8),
                    Headers.of(KafkoHeaders.TYPE, "shop.events.v1.MoneyDeposited".getBytes(StandardCharsets.UTF_8))).join();
            template(context).send("renamed", new Deposited("A", 7)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly(new Deposited("A", 7));
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "renamed.DLT");
            assertThat(dead).hasSize(1);
            assertThat(text(dead.get(0).headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE)))
                    .contains("header names shop.events.v1.MoneyDeposited, which is not on the class path")
                    .doesNotContain("[B@");
            assertThat(text(dead.get(0).headers().lastValue(KafkoHeaders.TYPE)))
                    .isEqualTo("shop.events.v1.MoneyDeposited");
        });
    }

    static class Quantities {
        @KafkoListener(id = "ints", topics = "quantities")
        void on(int quantity) {
            SEEN.add(quantity);
        }

        @KafkoListener(id = "longs", topics = "quantities")
        void on(Long quantity) {
            SEEN.add(quantity);
        }

        @KafkoListener(id = "doubles", topics = "ratios")
        void on(double ratio) {
            SEEN.add(ratio);
        }
    }

    @Test
    void aNumberReadAsItsPrimitiveOrAnotherNumberTypeIsNoOtherClassToWarnOf(CapturedOutput output) {
        runner.withBean(Quantities.class).run(context -> {
            template(context).send("quantities", 7).join();
            template(context).send("ratios", 1.5d).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactlyInAnyOrder(7, 7L, 1.5d);
        });
        // a value has no fields to drop: the warning said "fields int does not have are dropped" for each
        assertThat(output.getOut()).doesNotContain("Records written as java.lang.");
    }

    static class Untyped {
        @KafkoListener(id = "as-maps", topics = "untyped")
        void on(Map<String, Object> event) {
            SEEN.add(event);
        }

        @KafkoListener(id = "as-trees", topics = "untyped")
        void on(JsonNode event) {
            SEEN.add(event.get("owner").asString());
        }
    }

    @Test
    void anEventReadAsAMapOrATreeKeepsEveryFieldAndIsNoOtherClassToWarnOf(CapturedOutput output) {
        runner.withBean(Untyped.class).run(context -> {
            template(context).send("untyped", new Opened("C", "cy")).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactlyInAnyOrder(Map.of("account", "C", "owner", "cy"), "cy");
        });
        // a map or a tree holds every field of the JSON: the warning said "fields Map does not have are dropped"
        assertThat(output.getOut()).doesNotContain("Records written as " + Opened.class.getName());
    }

    /** A class on the class path that a record names to be built where a JDK type is declared. */
    public static class Gadget extends HashMap<String, Object> implements Runnable {
        static final AtomicInteger BUILT = new AtomicInteger();

        public Gadget() {
            BUILT.incrementAndGet();
        }

        @Override
        public void run() {
        }
    }

    static class JdkTypes {
        @KafkoListener(id = "maps", topics = "maps")
        void on(Map<String, Object> map) {
            SEEN.add(map);
        }

        @KafkoListener(id = "amounts", topics = "amounts")
        void on(Number amount) {
            SEEN.add(amount);
        }
    }

    @Test
    void aTypeHeaderNamingAJdkValueClassIsFollowedForAJdkType() {
        runner.withBean(JdkTypes.class).run(context -> {
            template(context).send("amounts", new BigDecimal("12345678901234567890.123456789")).join();
            template(context).send("amounts", 42L).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly(new BigDecimal("12345678901234567890.123456789"), 42L);
        });
    }

    @Test
    void aTypeHeaderNamingASubtypeOfAJdkTypeIsNotFollowed() {
        Gadget.BUILT.set(0);
        runner.withBean(JdkTypes.class).run(context -> {
            context.getBean(Kafko.class).producer("maps").send(null, "{\"a\":1}".getBytes(StandardCharsets.UTF_8),
                    Headers.of(KafkoHeaders.TYPE, Gadget.class.getName().getBytes(StandardCharsets.UTF_8))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).singleElement().isEqualTo(Map.of("a", 1)).isNotInstanceOf(Gadget.class);
        });
        assertThat(Gadget.BUILT).hasValue(0);
    }
}
