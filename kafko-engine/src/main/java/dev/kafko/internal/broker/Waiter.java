package dev.kafko.internal.broker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a consumer's parking spot. The consumer's polling thread sets {@link #parked} and parks;
 * any thread that makes records available (a partition owner after an append) or changes the
 * consumer's situation (rebalance, close, wakeup) calls {@link #wake()}.
 */
final class Waiter {

    private static final VarHandle PARKED;

    static {
        try {
            PARKED = MethodHandles.lookup().findVarHandle(Waiter.class, "parked", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    volatile @Nullable Thread thread;
    /**
     * Raised by the consumer before it parks; lowered by it after, or by the first {@link #wake()}:
     * appends that follow while the consumer is still waking up cost a volatile read, not an unpark.
     */
    volatile boolean parked;

    /** Unparks the consumer if it is parked and nobody woke it already; a volatile read when not. */
    void wake() {
        if (parked && PARKED.compareAndSet(this, true, false)) {
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
