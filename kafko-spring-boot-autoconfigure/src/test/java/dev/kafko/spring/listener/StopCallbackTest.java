package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * {@link ConcurrentMessageListenerContainer#stop(Runnable)}: called by one of the container's own listeners (a
 * circuit breaker) it returns at once and runs its callback once every member has stopped, the caller's after its
 * listener returned; from any other thread, on that thread once the stop is done.
 */
@Timeout(60)
class StopCallbackTest {

    static final AtomicReference<ApplicationContext> CONTEXT = new AtomicReference<>();
    static final AtomicBoolean listenerReturned = new AtomicBoolean();
    static final AtomicBoolean runningAtCallback = new AtomicBoolean(true);
    static final AtomicBoolean returnedAtCallback = new AtomicBoolean();
    static final AtomicReference<String> callbackThread = new AtomicReference<>();
    static volatile CountDownLatch callbackRan = new CountDownLatch(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Breaker.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.breaker.partitions=2");

    @BeforeEach
    void reset() {
        listenerReturned.set(false);
        runningAtCallback.set(true);
        returnedAtCallback.set(false);
        callbackThread.set(null);
        callbackRan = new CountDownLatch(1);
    }

    @Test
    void aStopAskedForByTheContainersOwnListenerRunsItsCallbackOnceEveryMemberStopped() throws Exception {
        runner.run(context -> {
            CONTEXT.set(context);
            template(context).send("breaker", 0, null, "trip").join();

            assertThat(callbackRan.await(30, TimeUnit.SECONDS)).as("the callback ran").isTrue();
            assertThat(returnedAtCallback).as("after the listener that asked for the stop returned").isTrue();
            assertThat(runningAtCallback).as("with no member running any more").isFalse();
            assertThat(callbackThread.get()).as("on a polling thread of the container").startsWith("breaker-");
            assertThat(container(context).isRunning()).isFalse();
        });
    }

    @Test
    void aStopFromAnotherThreadRunsItsCallbackOnThatThreadOnceStopped() {
        runner.run(context -> {
            MessageListenerContainer container = container(context);
            assertThat(container.isRunning()).isTrue();
            container.stop(() -> {
                runningAtCallback.set(container.isRunning());
                callbackThread.set(Thread.currentThread().getName());
            });
            assertThat(runningAtCallback).isFalse();
            assertThat(callbackThread.get()).isEqualTo(Thread.currentThread().getName());
        });
    }

    private static MessageListenerContainer container(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("breaker");
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Breaker {
        @KafkoListener(id = "breaker", topics = "breaker", concurrency = "2")
        void on(String value) throws InterruptedException {
            if (value.equals("trip")) {
                MessageListenerContainer container = container(CONTEXT.get());
                container.stop(() -> {
                    returnedAtCallback.set(listenerReturned.get());
                    runningAtCallback.set(container.isRunning());
                    callbackThread.set(Thread.currentThread().getName());
                    callbackRan.countDown();
                });
                Thread.sleep(200); // the listener goes on after asking: the callback must wait for it
                listenerReturned.set(true);
            }
        }
    }
}
