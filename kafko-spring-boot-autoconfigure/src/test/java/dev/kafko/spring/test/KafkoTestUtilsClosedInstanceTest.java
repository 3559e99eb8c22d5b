package dev.kafko.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A closed context is not waited for; but a Kafko instance closed under a context that still runs (the application's
 * own code closed the bean: a try-with-resources around an injected {@code Kafko}) leaves listeners that run and can
 * never catch up. The wait must say so, not return as if they had.
 */
class KafkoTestUtilsClosedInstanceTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch gate = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Held.class).withPropertyValues("kafko.ephemeral=true");

    @Test
    void anInstanceClosedUnderARunningContextFailsTheWaitInsteadOfPassingIt() {
        SEEN.clear();
        gate = new CountDownLatch(1);
        try {
            runner.run(context -> {
                @SuppressWarnings("unchecked")
                KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                template.send("held", "a").join();
                template.send("held", "b").join();
                await().until(() -> SEEN.contains("held"));
                context.getBean(Kafko.class).close(); // the application's own code, not the context
                // the listener, still in "a" as the call starts, then polls the closed instance
                CompletableFuture.runAsync(gate::countDown, CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

                assertThat(context.isRunning()).isTrue();
                assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(5)))
                        .isInstanceOf(AssertionError.class).hasMessageContaining("held")
                        .hasCauseInstanceOf(KafkoClosedException.class);
            });
        } finally {
            gate.countDown();
        }
    }

    static class Held {
        @KafkoListener(id = "held", topics = "held")
        void on(String value) throws InterruptedException {
            SEEN.add("held");
            gate.await(10, TimeUnit.SECONDS);
            SEEN.add(value);
        }
    }
}
