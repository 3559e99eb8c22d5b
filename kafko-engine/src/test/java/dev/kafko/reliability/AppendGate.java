package dev.kafko.reliability;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A point a {@code KafkoObserver.onAppend} holds the appending thread at (while it owns the partition), to
 * make an interleaving deterministic: a test sets a gate in a slot, the next append takes it, counts
 * {@link #entered} down and waits for {@link #release}.
 */
final class AppendGate {

    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    /** From onAppend: holds this append at the slot's gate, if one is set (taking it). */
    static void stopAt(AtomicReference<AppendGate> slot) {
        AppendGate g = slot.get();
        if (g != null && slot.compareAndSet(g, null)) {
            g.entered.countDown();
            try {
                g.release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
