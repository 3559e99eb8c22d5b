package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link DaemonThreads#joinAll}: a close waits for every thread an executor made, also for one made just before
 * another, when it had not started yet (an executor makes its thread, then starts it).
 */
class DaemonThreadsTest {

    @Test
    void aThreadMadeButNotYetStartedWhenAnotherIsMadeIsStillJoined() throws Exception {
        DaemonThreads threads = new DaemonThreads("kafko-test-daemon");
        CountDownLatch release = new CountDownLatch(1);
        Thread first = threads.newThread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        // made while the first is made but not started, as two steps handed to the executor at once make them
        Thread second = threads.newThread(() -> { });
        first.start();
        second.start();
        second.join();

        Thread joiner = new Thread(threads::joinAll, "joiner");
        joiner.start();
        // the joiner either waits in a join for the first thread (it must) or, were the first pruned, has ended
        // already; its state alone is not enough (a thread can wait on other things on its way there)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!joiner.getState().equals(Thread.State.TERMINATED) && !waitsInAJoin(joiner)
                && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(waitsInAJoin(joiner)).as("joinAll waits for the first thread; the joiner is %s at %s",
                joiner.getState(), Arrays.toString(joiner.getStackTrace())).isTrue();
        assertThat(first.isAlive()).isTrue();
        release.countDown();
        joiner.join();
        assertThat(first.isAlive()).isFalse();
    }

    @Test
    void endedThreadsAreNoLongerKept() throws Exception {
        DaemonThreads threads = new DaemonThreads("kafko-test-daemon");
        Thread done = threads.newThread(() -> { });
        done.start();
        done.join();
        CountDownLatch release = new CountDownLatch(1);
        Thread live = threads.newThread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        live.start();
        release.countDown();
        threads.joinAll();
        assertThat(live.isAlive()).isFalse();
    }

    private static boolean waitsInAJoin(Thread t) {
        if (t.getState() != Thread.State.WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().equals(Thread.class.getName()) && e.getMethodName().equals("join")) {
                return t.getState() == Thread.State.WAITING;
            }
        }
        return false;
    }
}
