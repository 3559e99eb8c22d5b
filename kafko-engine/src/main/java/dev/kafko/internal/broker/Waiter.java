package dev.kafko.internal.broker;

import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a consumer's parking spot. The consumer's polling thread sets {@link #parked} and parks;
 * any thread that makes records available (a partition owner after an append) or changes the
 * consumer's situation (rebalance, close, wakeup) calls {@link #wake()}.
 */
final class Waiter {

    volatile @Nullable Thread thread;
    volatile boolean parked;

    /** Unparks the consumer if it is parked; a volatile read when it is not. */
    void wake() {
        if (parked) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Unparks the consumer's thread whether or not it is parked now (its next park returns at once). */
    void wakeAlways() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
