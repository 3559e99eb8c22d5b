package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.event.ConsumerStartedEvent;
import dev.kafko.spring.test.KafkoTestUtils;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

/**
 * A stop waits for the run it asked to stop: requestStop() once took the run's latch under the member's lock but
 * set {@code stopRequested} only after releasing it. A member start() (another thread: e.g. a ConsumerStoppedEvent listener restarting the
 * member that died, while the application shuts down) that lands in that window launches a run that DOES get the
 * stop (stopRequested=true is written after launch() cleared it), yet stop() waits on the previous run's latch and
 * returns while the new run is still going: the registry then closes kafko under it.
 *
 * The window is a few instructions wide; the test widens it (simulating the stopping thread being preempted right
 * after the unlock) by swapping the lock of the member's lifecycle for one whose unlock, once, runs the racing start().
 */
class StopRaceTest {

    static volatile boolean slowStart;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Listeners.class).withBean(SlowStart.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.shutdown-timeout=10s");

    @Test
    void aStopReturnsOnlyOnceTheRunItAskedToStopHasEnded() throws Exception {
        runner.run(context -> {
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("solo");
            KafkoTestUtils.waitForAssignment(container, 1, Duration.ofSeconds(20));
            container.stop();
            KafkoMessageListenerContainer member = (KafkoMessageListenerContainer) ((ConcurrentMessageListenerContainer) container).getMembers().get(0);
            assertThat(member.isRunning()).isFalse();

            // the stopping thread is preempted right after requestStop's locked block: a start lands there
            HookLock hook = new HookLock();
            hook.onUnlock = () -> member.start();
            Object lifecycle = get(member, "lifecycle");
            set(lifecycle, "lock", hook);
            set(lifecycle, "signal", hook.newCondition());
            slowStart = true; // the new run spends 2 s in its ConsumerStartedEvent before it looks at stopRequested
            hook.armedFor = Thread.currentThread();

            container.stop();
            boolean runningWhenStopReturned = member.isRunning();
            boolean stopRequestedOfThatRun = (boolean) get(lifecycle, "stopRequested");
            assertThat(runningWhenStopReturned && stopRequestedOfThatRun)
                    .as("stop() returned while a run it had asked to stop was still running").isFalse();
        });
    }

    private static void set(Object target, String name, Object value) throws Exception {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }

    private static Object get(Object target, String name) throws Exception {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(target);
    }

    static final class HookLock extends ReentrantLock {
        volatile Thread armedFor;
        volatile Runnable onUnlock;

        @Override
        public void unlock() {
            super.unlock();
            if (Thread.currentThread() == armedFor && getHoldCount() == 0) {
                armedFor = null;
                onUnlock.run();
            }
        }
    }

    static class Listeners {
        @KafkoListener(id = "solo", topics = "solo")
        void on(String value) {
        }
    }

    static class SlowStart implements ApplicationListener<ConsumerStartedEvent> {
        @Override
        public void onApplicationEvent(ConsumerStartedEvent event) {
            if (slowStart) {
                try {
                    Thread.sleep(2000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
