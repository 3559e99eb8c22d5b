package dev.kafko.internal.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * B124 item (4): a task of {@code kafko-scheduler} that dies of an {@link Error} (an {@link OutOfMemoryError}
 * while it allocates the command it posts) must not be lost. The one-shot tasks post the commands their
 * partitions mark as scheduled until they run (a linger's end, an interval fsync, a group's offsets force):
 * a task dropped leaves the mark up for ever, so lingering sends are never written by the timer and an
 * interval fsync never runs again. The periodic retention task must survive one too. The Error is thrown by
 * the task itself, as an allocation that fails would.
 */
class SchedulerErrorTest {

    @Test
    void aOneShotTaskThatDiesOfAnErrorRunsAgain() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler()) {
            scheduler.schedule(() -> {
                if (runs.incrementAndGet() <= 2) {
                    throw new OutOfMemoryError("injected: Java heap space");
                }
                done.countDown();
            }, Duration.ofMillis(1));
            assertTrue(done.await(5, TimeUnit.SECONDS), "the task never ran to its end: ran " + runs + " times");
        }
    }

    @Test
    void aPeriodicTaskGoesOnAfterAnError() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler()) {
            scheduler.every(() -> {
                if (runs.incrementAndGet() == 1) {
                    throw new StackOverflowError("injected");
                }
                done.countDown();
            }, Duration.ofMillis(1));
            assertTrue(done.await(5, TimeUnit.SECONDS), "the periodic task stopped: ran " + runs + " times");
        }
    }

    @Test
    void aTaskThatAlwaysFailsStopsWithTheScheduler() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Scheduler scheduler = new Scheduler();
        scheduler.schedule(() -> {
            runs.incrementAndGet();
            throw new OutOfMemoryError("injected: for ever");
        }, Duration.ZERO);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (runs.get() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertTrue(runs.get() >= 3, "ran " + runs + " times");
        long t0 = System.nanoTime();
        scheduler.close(); // neither hangs nor leaves the thread running
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
        int after = runs.get();
        Thread.sleep(50);
        assertTrue(runs.get() == after, "still running after the close");
    }
}
