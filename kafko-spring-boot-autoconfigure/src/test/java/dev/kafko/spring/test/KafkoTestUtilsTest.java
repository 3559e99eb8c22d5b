package dev.kafko.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class KafkoTestUtilsTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch gate = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Gated.class).withPropertyValues("kafko.ephemeral=true");

    @Test
    void waitsForEveryRecordSentBeforeTheCallAndNamesThePartitionsStillBehind(CapturedOutput output) {
        SEEN.clear();
        gate = new CountDownLatch(1);
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("gated", "a").join();
            template.send("gated", "b").join();
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofMillis(200)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("gated: gated-0 at 0 of 2");
            gate.countDown();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SEEN).containsExactly("a", "b");
        });
        assertThat(output).contains("Listener 'gated' has concurrency 2 but topic 'gated' has 1 partition(s)");
    }

    @Test
    void oneCallSettlesAPipelineTheSendToHopAndTheDeadLetterIncluded() {
        SEEN.clear();
        // the second hops are slow: a wait that returned once the first ones had caught up would
        // find them not done
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Up.class).withBean(Down.class).withBean(Poison.class).withBean(PoisonDlt.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=1",
                        "kafko.listener.dead-letter.enabled=true")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("upstream", "x").join();
                    template.send("poison", "p").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactlyInAnyOrder("up:x", "down:X", "poison:p", "dlt:p");
                    // what the topics hold, as a test asserts it
                    assertThat(KafkoTestUtils.records(context, "poison.DLT")).singleElement()
                            .satisfies(r -> assertThat(new String(r.value())).isEqualTo("p"));
                    for (int i = 0; i < 5; i++) {
                        template.send("poison.DLT", "more-" + i);
                    }
                    assertThat(KafkoTestUtils.records(context, "poison.DLT")).hasSize(6)
                            .extracting(r -> new String(r.value())).startsWith("p").endsWith("more-4");
                    assertThatThrownBy(() -> KafkoTestUtils.records(context, "nowhere"))
                            .isInstanceOf(dev.kafko.UnknownTopicException.class);
                });
    }

    @Test
    void listenersThatFeedEachOtherForeverDoNotKeepTheCallerWaiting() {
        SEEN.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Ping.class).withBean(Pong.class).withPropertyValues("kafko.ephemeral=true")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("ping", "1").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(60));
                    // returned after its passes (three: one more than the two containers), not at the timeout
                    assertThat(SEEN).isNotEmpty();
                });
    }

    static class Ping {
        @KafkoListener(id = "ping", topics = "ping")
        @org.springframework.messaging.handler.annotation.SendTo("pong")
        String on(String value) {
            SEEN.add("ping:" + value);
            return value;
        }
    }

    static class Pong {
        @KafkoListener(id = "pong", topics = "pong")
        @org.springframework.messaging.handler.annotation.SendTo("ping")
        String on(String value) {
            return value;
        }
    }

    static class Poison {
        @KafkoListener(id = "poison", topics = "poison")
        void on(String value) {
            SEEN.add("poison:" + value);
            throw new IllegalStateException("refused " + value);
        }
    }

    static class PoisonDlt {
        @KafkoListener(id = "poison-dlt", topics = "poison.DLT")
        void on(String value) throws InterruptedException {
            Thread.sleep(300); // slow work
            SEEN.add("dlt:" + value);
        }
    }

    static class Up {
        @KafkoListener(id = "up", topics = "upstream")
        @org.springframework.messaging.handler.annotation.SendTo("downstream")
        String on(String value) {
            SEEN.add("up:" + value);
            return value.toUpperCase();
        }
    }

    static class Down {
        @KafkoListener(id = "down", topics = "downstream")
        void on(String value) throws InterruptedException {
            Thread.sleep(300); // slow work
            SEEN.add("down:" + value);
        }
    }

    static class Gated {
        @KafkoListener(id = "gated", topics = "gated", concurrency = "2")
        void on(String value) throws InterruptedException {
            gate.await(30, TimeUnit.SECONDS);
            SEEN.add(value);
        }
    }
}
