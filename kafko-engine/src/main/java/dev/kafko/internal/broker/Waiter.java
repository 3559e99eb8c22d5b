package dev.kafko.internal.broker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Internal: a consumer's parking spot. The consumer's polling thread announces the park
 * ({@link #parking()}) and parks; any thread that makes records available (a partition owner after an
 * append) or changes the consumer's situation (rebalance, close, wakeup) calls {@link #wake()}; the
 * consumer says when it runs again ({@link #running()}).
 */
final class Waiter {

    private static final int RUNNING = 0;
    private static final int PARKED = 1;
    /** Unparked by a {@link #wake()}, and not yet running again. */
    private static final int WOKEN = 2;
    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Waiter.class, "state", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    volatile @Nullable Thread thread;
    /**
     * {@link #PARKED} from the consumer's announcement until the first {@link #wake()} makes it
     * {@link #WOKEN} (appends that follow while the consumer is still waking up cost a volatile read,
     * not an unpark), and {@link #RUNNING} once the consumer says so. Only the consumer writes it but
     * for that one compare-and-set, which cannot succeed after the consumer wrote {@code RUNNING} until
     * it parks again, so a late waker never leaves it {@code WOKEN} under a running consumer.
     */
    private volatile int state;

    /** The consumer is about to park: appends from now on unpark it. Consumer thread only. */
    void parking() {
        state = PARKED;
    }

    /** The consumer returned from its park. Consumer thread only. */
    void running() {
        state = RUNNING;
    }

    /** Whether the consumer is parked and nobody woke it yet. */
    boolean isParked() {
        return state == PARKED;
    }

    /**
     * Whether the consumer was woken and is not yet running: it will read the partition next, and
     * records written now are there for its first read.
     */
    boolean isWoken() {
        return state == WOKEN;
    }

    /**
     * Unparks the consumer if it is parked and nobody woke it already (a volatile read when not);
     * true when this call woke it.
     */
    boolean wake() {
        if (state == PARKED && STATE.compareAndSet(this, PARKED, WOKEN)) {
            Thread t = thread;
            if (t != null) {
                LockSupport.unpark(t);
            }
            return true;
        }
        return false;
    }

    /** Unparks the consumer's thread whether or not it is parked now (its next park returns at once). */
    void wakeAlways() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
