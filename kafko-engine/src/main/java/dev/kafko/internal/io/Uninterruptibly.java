package dev.kafko.internal.io;

import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Internal: waits that an interrupt must not cut short (a close and a seal are durability boundaries); the
 * interrupt is kept for the caller's thread afterwards. Any thread.
 */
public final class Uninterruptibly {

    private Uninterruptibly() {
    }

    /** Waits until {@code latch} opens. */
    public static void await(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for {@code threads} to exit. */
    public static void join(List<Thread> threads) {
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
