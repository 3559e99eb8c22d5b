package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ConfigurableApplicationContext;

/** Stops that race each other while the application shuts down. */
class StopsDuringShutdownTest {

    static final AtomicLong STOP_MILLIS = new AtomicLong(-1);
    static volatile CountDownLatch closing = new CountDownLatch(1);
    static volatile CyclicBarrier both = new CyclicBarrier(2);
    static final AtomicReference<ConfigurableApplicationContext> CONTEXT = new AtomicReference<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    @BeforeEach
    void reset() {
        STOP_MILLIS.set(-1);
        closing = new CountDownLatch(1);
        both = new CyclicBarrier(2);
    }

    /**
     * The context closes (the registry waits for the container's members) while a listener of that container
     * calls stop() on its own container, which returns at once: it must not wait for the registry's stop.
     */
    @Test
    void aListenerStoppingItsOwnContainerWhileTheContextClosesReturnsAtOnce() throws Exception {
        AtomicLong closeMillis = new AtomicLong();
        runner.withBean(SelfStopper.class).withPropertyValues("kafko.listener.shutdown-timeout=8s").run(context -> {
            template(context).send("self-stop", "trip").join();
            await().atMost(Duration.ofSeconds(10)).until(() -> SelfStopper.inListener.getCount() == 0);
            long start = System.nanoTime();
            closing.countDown();
            context.close();
            closeMillis.set((System.nanoTime() - start) / 1_000_000);
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> STOP_MILLIS.get() >= 0);
        assertThat(STOP_MILLIS.get()).as("the listener's own stop() took %s ms; the context close %s ms",
                STOP_MILLIS.get(), closeMillis.get()).isLessThan(4000);
    }

    static class SelfStopper {
        static volatile CountDownLatch inListener = new CountDownLatch(1);
        private final KafkoListenerEndpointRegistry registry;

        SelfStopper(KafkoListenerEndpointRegistry registry) {
            this.registry = registry;
            inListener = new CountDownLatch(1);
        }

        @KafkoListener(id = "self-stop", topics = "self-stop", ackMode = "RECORD")
        void on(String value) throws Exception {
            inListener.countDown();
            closing.await(10, TimeUnit.SECONDS);
            Thread.sleep(300); // the registry's stop holds the container now
            long start = System.nanoTime();
            registry.getListenerContainer("self-stop").stop(); // a circuit breaker
            STOP_MILLIS.set((System.nanoTime() - start) / 1_000_000);
        }
    }

    /** Two members of one container meet the same fatal record kind and both close the application. */
    @Test
    void twoMembersClosingTheirApplicationAtOnceDoNotWaitOutTheShutdownTimeout() throws Exception {
        runner.withBean(TwoClosers.class)
                .withPropertyValues("kafko.listener.shutdown-timeout=8s", "kafko.topics.fatal.partitions=2")
                .run(context -> {
                    template(context).send("fatal", 0, null, "x").join();
                    template(context).send("fatal", 1, null, "y").join();
                    await().atMost(Duration.ofSeconds(30)).until(() -> STOP_MILLIS.get() >= 0);
                    assertThat(STOP_MILLIS.get()).as("close from a listener took %s ms", STOP_MILLIS.get())
                            .isLessThan(4000);
                });
    }

    static class TwoClosers implements ApplicationContextAware {
        private ConfigurableApplicationContext context;

        @Override
        public void setApplicationContext(ApplicationContext context) {
            this.context = (ConfigurableApplicationContext) context;
        }

        @KafkoListener(id = "fatal", topics = "fatal", concurrency = "2")
        void on(String value) throws Exception {
            both.await(10, TimeUnit.SECONDS);
            long start = System.nanoTime();
            context.close();
            STOP_MILLIS.accumulateAndGet((System.nanoTime() - start) / 1_000_000, Math::max);
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
