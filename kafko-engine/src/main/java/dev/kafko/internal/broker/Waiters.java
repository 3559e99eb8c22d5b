package dev.kafko.internal.broker;

import java.util.Arrays;

/**
 * Internal: the consumers registered with one partition, to be woken after its appends. A
 * copy-on-write array: registering and leaving (rare) copy it under the lock; waking (after every
 * append) and asking whether one is parked read it without one. Any thread.
 */
final class Waiters {

    private static final Waiter[] NONE = new Waiter[0];

    private volatile Waiter[] all = NONE;

    /** Registers {@code w}; nothing when it is registered already. */
    synchronized void add(Waiter w) {
        Waiter[] ws = all;
        for (Waiter x : ws) {
            if (x == w) {
                return;
            }
        }
        Waiter[] copy = Arrays.copyOf(ws, ws.length + 1);
        copy[ws.length] = w;
        all = copy;
    }

    synchronized void remove(Waiter w) {
        Waiter[] ws = all;
        for (int i = 0; i < ws.length; i++) {
            if (ws[i] == w) {
                Waiter[] copy = new Waiter[ws.length - 1];
                System.arraycopy(ws, 0, copy, 0, i);
                System.arraycopy(ws, i + 1, copy, i, ws.length - i - 1);
                all = copy;
                return;
            }
        }
    }

    /** How many consumers are registered. */
    int size() {
        return all.length;
    }

    /** Unparks the consumers that are parked (a volatile read each for those that are not); true when any was. */
    boolean wake() {
        boolean woke = false;
        for (Waiter w : all) {
            woke |= w.wake();
        }
        return woke;
    }

    /** Unparks every consumer, parked or not (its next park returns at once). */
    void wakeAll() {
        for (Waiter w : all) {
            w.wakeAlways();
        }
    }

    /** Whether a consumer is parked now (its state read after the caller's own volatile write). */
    boolean anyParked() {
        for (Waiter w : all) {
            if (w.isParked()) {
                return true;
            }
        }
        return false;
    }

    /** Whether a consumer was woken and is not yet running. */
    boolean anyWoken() {
        for (Waiter w : all) {
            if (w.isWoken()) {
                return true;
            }
        }
        return false;
    }
}
