package dev.kafko.spring.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;

/**
 * What a listener of {@link ConsumerStoppedEvent} may do: stop the container or the whole registry without
 * waiting for itself, and a stop made while it runs is the last word over a start asked for before.
 */
class StoppedEventTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    static volatile CountDownLatch recordEntered = new CountDownLatch(1);
    static volatile CountDownLatch recordRelease = new CountDownLatch(1);
    static volatile boolean dieOnRecord;
    static volatile boolean gateStoppedEvent;
    static volatile CountDownLatch inStoppedEvent = new CountDownLatch(1);
    static volatile CountDownLatch releaseStoppedEvent = new CountDownLatch(1);
    static volatile String onStoppedError = "none"; // "stopContainer" | "stopRegistry"
    static final AtomicLong stopFromEventMillis = new AtomicLong(-1);
    static final AtomicReference<ApplicationContext> CONTEXT = new AtomicReference<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Blocking.class).withBean(OnStopped.class)
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void reset() {
        recordEntered = new CountDownLatch(1);
        recordRelease = new CountDownLatch(1);
        dieOnRecord = false;
        gateStoppedEvent = false;
        inStoppedEvent = new CountDownLatch(1);
        releaseStoppedEvent = new CountDownLatch(1);
        onStoppedError = "none";
        stopFromEventMillis.set(-1);
    }

    /** stop(); start() (restart pending, the member overran); stop() while its stopped event runs: must end stopped. */
    @Test
    void aStopDuringTheStoppedEventOfAMemberWithARestartPendingWins() throws Exception {
        runner.withPropertyValues("kafko.listener.shutdown-timeout=300ms").run(context -> {
            MessageListenerContainer container = registry(context).getListenerContainer("blocking");
            template(context).send("blocked", "a").join();
            assertThat(recordEntered.await(20, TimeUnit.SECONDS)).isTrue();
            container.stop();                      // overruns: the member is still in its record
            assertThat(container.isRunning()).isTrue();
            container.start();                     // restart pending behind the stop
            gateStoppedEvent = true;
            recordRelease.countDown();             // the member finishes its record and exits
            assertThat(inStoppedEvent.await(20, TimeUnit.SECONDS)).isTrue();
            container.stop();                      // the last word: stopped
            releaseStoppedEvent.countDown();
            Thread.sleep(1000);
            assertThat(container.isRunning()).as("stop(), start(), stop(): the container must end stopped").isFalse();
        });
    }

    /** A circuit breaker: a member died, its stopped event stops the whole container. */
    @Test
    void aContainerStopFromTheStoppedEventOfADeadMemberDoesNotWaitForItself() {
        onStoppedError = "stopContainer";
        dieOnRecord = true;
        runner.withPropertyValues("kafko.listener.shutdown-timeout=6s").run(context -> {
            template(context).send("blocked", "a").join();
            await().atMost(WAIT).until(() -> stopFromEventMillis.get() >= 0);
            assertThat(stopFromEventMillis.get()).as("stop() from the stopped event: not the shutdown timeout")
                    .isLessThan(3000);
        });
    }

    /** The application stops when a listener died (registry.stop(), as a context close would). */
    @Test
    void aRegistryStopFromTheStoppedEventOfADeadMemberDoesNotWaitForItself() {
        onStoppedError = "stopRegistry";
        dieOnRecord = true;
        runner.withPropertyValues("kafko.listener.shutdown-timeout=6s").run(context -> {
            CONTEXT.set(context);
            template(context).send("blocked", "a").join();
            await().atMost(WAIT).until(() -> stopFromEventMillis.get() >= 0);
            assertThat(stopFromEventMillis.get()).as("registry stop from the stopped event: not the shutdown timeout")
                    .isLessThan(3000);
        });
    }

    private static KafkoListenerEndpointRegistry registry(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class);
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Blocking {
        @KafkoListener(id = "blocking", topics = "blocked")
        void on(String value) throws InterruptedException {
            if (dieOnRecord) {
                throw new OutOfMemoryError("simulated");
            }
            recordEntered.countDown();
            recordRelease.await();
        }
    }

    static class OnStopped implements ApplicationListener<ConsumerStoppedEvent> {
        @Override
        public void onApplicationEvent(ConsumerStoppedEvent event) {
            if (gateStoppedEvent) {
                inStoppedEvent.countDown();
                try {
                    releaseStoppedEvent.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (event.getReason() == ConsumerStoppedEvent.Reason.NORMAL) {
                return;
            }
            long start = System.nanoTime();
            if (onStoppedError.equals("stopContainer")) {
                event.getContainer(ConcurrentMessageListenerContainer.class).stop();
                stopFromEventMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            } else if (onStoppedError.equals("stopRegistry")) {
                CONTEXT.get().getBean(KafkoListenerEndpointRegistry.class).stop();
                stopFromEventMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
        }
    }
}
