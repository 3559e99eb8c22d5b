package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application's shutdown releases what keeps the JVM alive, also when a listener's thread died or the
 * listener itself shuts the application down.
 */
class ApplicationShutdownTest {

    static final AtomicLong CLOSE_MILLIS = new AtomicLong(-1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void reset() {
        CLOSE_MILLIS.set(-1);
    }

    @Test
    void aContainerWhoseMemberDiedIsStoppedWithTheContextSoTheJvmCanExit() throws Exception {
        int held = KeepAlive.holders(); // contexts that other test classes left in Spring's test context cache
        runner.withBean(DyingListener.class).run(context -> {
            template(context).send("dying", "x").join();
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("dying");
            awaitUntil(() -> !container.isRunning());
            assertThat(container.getFailure()).isInstanceOf(OutOfMemoryError.class);
            assertThat(KeepAlive.holders()).isEqualTo(held + 1);
        });
        assertThat(KeepAlive.holders()).isEqualTo(held);
    }

    @Test
    void aListenerThatClosesItsApplicationIsNotWaitedForByTheClose() throws Exception {
        int held = KeepAlive.holders();
        runner.withPropertyValues("kafko.listener.shutdown-timeout=60s").withBean(ClosingListener.class)
                .run(context -> {
                    template(context).send("closing", "x").join();
                    awaitUntil(() -> CLOSE_MILLIS.get() >= 0);
                    // without the fix the close waits for the closing listener's own member: 60 s
                    assertThat(CLOSE_MILLIS.get()).isLessThan(30_000);
                    assertThat(context.isActive()).isFalse();
                    assertThat(KeepAlive.holders()).isEqualTo(held);
                });
    }

    static class DyingListener {
        @KafkoListener(id = "dying", topics = "dying")
        void onRecord(String value) {
            throw new OutOfMemoryError("simulated");
        }
    }

    static class ClosingListener implements ApplicationContextAware {
        private ConfigurableApplicationContext context;

        @Override
        public void setApplicationContext(ApplicationContext context) {
            this.context = (ConfigurableApplicationContext) context;
        }

        @KafkoListener(id = "closing", topics = "closing")
        void onRecord(String value) {
            long start = System.nanoTime();
            context.close();
            CLOSE_MILLIS.set((System.nanoTime() - start) / 1_000_000);
        }
    }

    static void awaitUntil(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.sleep(10);
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
