package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A listener closes its application while a member of its own container and a member of another container
 * are both busy: both are asked to stop at once, so their shutdown timeouts overlap instead of adding up.
 */
class ShutdownTimeoutsOverlapTest {

    static final AtomicLong CLOSE_MILLIS = new AtomicLong(-1);
    static final CountDownLatch BUSY = new CountDownLatch(2);
    static final AtomicLong OTHER_STOP_ASKED_AFTER = new AtomicLong(-1);
    static volatile long closeStart;
    /** Ends the busy listeners once the test is done: left to run, they logged into the tests after this one. */
    static final CountDownLatch DONE = new CountDownLatch(1);

    @Test
    void theOtherContainersAreAskedToStopAsSoonAsTheCallersOwn() throws InterruptedException {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms",
                        "kafko.listener.shutdown-timeout=3s", "kafko.topics.a.partitions=2")
                .withBean(Listeners.class)
                .run(context -> {
                    template(context).send("a", 0, null, "busy").join();
                    template(context).send("b", "busy").join();
                    assertThat(BUSY.await(10, TimeUnit.SECONDS)).isTrue();
                    template(context).send("a", 1, null, "exit").join();
                    await().atMost(Duration.ofSeconds(30)).until(() -> CLOSE_MILLIS.get() >= 0);
                    assertThat(CLOSE_MILLIS.get()).as("close from a listener took %s ms (shutdown timeout 3 s); the"
                            + " other container was asked to stop %s ms after the close began", CLOSE_MILLIS.get(),
                            OTHER_STOP_ASKED_AFTER.get()).isLessThan(5000);
                });
        DONE.countDown();
        // their members outlived the shutdown timeout: they end here, not during the next test class
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().matches("[ab]-\\d+"))
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    static class Listeners implements ApplicationContextAware {
        private ConfigurableApplicationContext context;

        @Override
        public void setApplicationContext(ApplicationContext context) {
            this.context = (ConfigurableApplicationContext) context;
        }

        @KafkoListener(id = "a", topics = "a", concurrency = "2")
        void onA(String value) throws Exception {
            if (value.equals("busy")) {
                BUSY.countDown();
                DONE.await(20, TimeUnit.SECONDS);
                return;
            }
            closeStart = System.nanoTime();
            context.close();
            CLOSE_MILLIS.set((System.nanoTime() - closeStart) / 1_000_000);
        }

        @KafkoListener(id = "b", topics = "b")
        void onB(String value) {
            BUSY.countDown();
            // busy until asked to stop (an interruptible wait stands for "checks the stop")
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < until && DONE.getCount() > 0) {
                if (Thread.currentThread().isInterrupted()) {
                    break;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    break;
                }
                if (closeStart != 0 && OTHER_STOP_ASKED_AFTER.get() < 0 && !context.isRunning()) {
                    OTHER_STOP_ASKED_AFTER.set((System.nanoTime() - closeStart) / 1_000_000);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
