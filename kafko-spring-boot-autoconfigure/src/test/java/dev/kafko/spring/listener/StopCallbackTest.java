package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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
import org.springframework.context.ApplicationListener;

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

    @Test
    void aCallbackKeptByAStartIsRunByTheNextStopAlsoWhenNoMemberIsLeftToEndIt() throws Exception {
        // a pattern container whose one topic is deleted: the start after the listener's stop(callback) drops the
        // topic and retires the member, whose exit (the container running again) ends nothing; the next stop has
        // no member left to stop, and must run the callback the start kept for it
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(PatternBreaker.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms")
                .run(context -> {
            CONTEXT.set(context);
            ConcurrentMessageListenerContainer container = (ConcurrentMessageListenerContainer) context
                    .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("pattern-breaker");
            template(context).send("tripped-a", 0, null, "trip").join();
            assertThat(PatternBreaker.asked.await(30, TimeUnit.SECONDS)).as("the listener asked for the stop").isTrue();

            context.getBean(Kafko.class).deleteTopic("tripped-a");
            container.start(); // before the member exits: the deleted topic is dropped, its member retired
            assertThat(container.getTopics()).isEmpty();
            PatternBreaker.release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> !container.isPollingThread(PatternBreaker.thread));
            assertThat(callbackRan.getCount()).as("kept for the next stop").isEqualTo(1);

            container.stop();
            assertThat(callbackRan.await(10, TimeUnit.SECONDS)).as("the next stop ran the callback").isTrue();
        });
    }

    @Test
    void aStartWhileTheMembersFinishTheListenersStopThenAStopTellOnceThatTheContainerStopped() throws Exception {
        // the listener's stop(callback), a start while its member still finishes (it restarts once it has), and a
        // stop before it has: one ConcurrentContainerStoppedEvent, then the callback, once each
        runner.withBean(HeldBreaker.class).withBean(StoppedEvents.class).run(context -> {
            CONTEXT.set(context);
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("held-breaker");
            template(context).send("held-breaker", 0, null, "trip").join();
            assertThat(HeldBreaker.asked.await(30, TimeUnit.SECONDS)).as("the listener asked for the stop").isTrue();
            container.start();
            Thread stopper = new Thread(container::stop, "stopper");
            stopper.start();
            // the stop asked for, it waits for the member, which the listener holds until now
            await().atMost(Duration.ofSeconds(30)).until(() -> stopper.getState() == Thread.State.TIMED_WAITING);
            HeldBreaker.release.countDown();
            stopper.join(30_000);
            assertThat(stopper.isAlive()).isFalse();
            assertThat(callbackRan.await(10, TimeUnit.SECONDS)).as("the callback ran").isTrue();
            assertThat(StoppedEvents.told).as("told once that the container stopped, before the callback")
                    .containsExactly("stopped", "callback");
        });
    }

    private static MessageListenerContainer container(ApplicationContext context) {
        return context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("breaker");
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class HeldBreaker {
        static final CountDownLatch asked = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);

        @KafkoListener(id = "held-breaker", topics = "held-breaker")
        void on(String value) throws InterruptedException {
            CONTEXT.get().getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("held-breaker")
                    .stop(() -> {
                        StoppedEvents.told.add("callback");
                        callbackRan.countDown();
                    });
            asked.countDown();
            release.await(30, TimeUnit.SECONDS);
        }
    }

    static class StoppedEvents implements ApplicationListener<ConcurrentContainerStoppedEvent> {
        static final List<String> told = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(ConcurrentContainerStoppedEvent event) {
            told.add("stopped");
        }
    }

    static class PatternBreaker {
        static final CountDownLatch asked = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);
        static volatile Thread thread;

        @KafkoListener(id = "pattern-breaker", topicPattern = "tripped-.*")
        void on(String value) throws InterruptedException {
            MessageListenerContainer container = CONTEXT.get().getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("pattern-breaker");
            thread = Thread.currentThread();
            container.stop(callbackRan::countDown);
            asked.countDown();
            release.await(30, TimeUnit.SECONDS);
        }
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
