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
    void theTargetsAreTheEndsOfTheMomentOfTheCallWhateverTheOrderOfTheListeners() {
        SEEN.clear();
        gate = new CountDownLatch(1);
        upGate = new CountDownLatch(1);
        // "up" is registered before "down" and sends on to down's topic only once the caller waits
        // (parked for up): that record is past the call's ends, and down (held by the gate) is not
        // waited for it
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Up.class).withBean(Down.class).withPropertyValues("kafko.ephemeral=true").run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("upstream", "x").join();
                    Thread caller = Thread.currentThread();
                    Thread releaser = new Thread(() -> {
                        while (caller.getState() != Thread.State.TIMED_WAITING) {
                            Thread.onSpinWait();
                        }
                        upGate.countDown();
                    });
                    releaser.start();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
                    releaser.join();
                    assertThat(SEEN).containsExactly("up:x");
                    gate.countDown();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(SEEN).containsExactly("up:x", "down:X");
                });
    }

    static volatile CountDownLatch upGate = new CountDownLatch(0);

    static class Up {
        @KafkoListener(id = "up", topics = "upstream")
        @org.springframework.messaging.handler.annotation.SendTo("downstream")
        String on(String value) throws InterruptedException {
            upGate.await(30, TimeUnit.SECONDS);
            SEEN.add("up:" + value);
            return value.toUpperCase();
        }
    }

    static class Down {
        @KafkoListener(id = "down", topics = "downstream")
        void on(String value) throws InterruptedException {
            gate.await(30, TimeUnit.SECONDS);
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
