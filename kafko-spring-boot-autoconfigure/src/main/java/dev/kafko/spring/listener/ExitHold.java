package dev.kafko.spring.listener;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A member's hold on the {@link KeepAlive} while its listener (or an application listener of its stop) shuts the
 * application down on the member's own thread: member threads are daemon threads, which a JVM ends as soon as its
 * last non-daemon thread has, so without the hold the listener's own code after the close (a {@code System.exit}
 * with the code {@code SpringApplication.exit} returned) might never run. One per member; each hold belongs to
 * one run (its {@link ListenerConsumer}), released once: by the end of that run's thread, or the shutdown timeout
 * after the application context finished closing.
 */
final class ExitHold {

    private final AtomicReference<@Nullable Object> held = new AtomicReference<>();

    /**
     * Holds the keep-alive for {@code run}, unless a hold is in place, and starts a daemon thread that releases it
     * {@code shutdownTimeout} after the context behind {@code publisher} is no longer active (with no context to look
     * at, after the hold was taken). The bound counts from the end of the close, not from its start: the close
     * itself (other members' shutdown timeout, kafko's close, other beans') may take longer than the timeout, and the
     * listener reaches its {@code System.exit} only after it.
     */
    void take(Object run, Duration shutdownTimeout, @Nullable ApplicationEventPublisher publisher, String memberName) {
        if (held.compareAndSet(null, run)) {
            KeepAlive.acquire();
            Thread watch = new Thread(() -> releaseAfterClose(run, shutdownTimeout.toNanos(), publisher),
                    memberName + "-exit-hold");
            watch.setDaemon(true);
            watch.start();
        }
    }

    /** Releases the hold of {@code run}, if it is the one in place. */
    void release(Object run) {
        if (held.compareAndSet(run, null)) {
            KeepAlive.release();
        }
    }

    private void releaseAfterClose(Object run, long timeoutNanos, @Nullable ApplicationEventPublisher publisher) {
        ConfigurableApplicationContext context = publisher instanceof ConfigurableApplicationContext c ? c : null;
        boolean closed = context == null;
        long closedAt = System.nanoTime();
        while (held.get() == run) {
            if (!closed && !context.isActive()) {
                closed = true;
                closedAt = System.nanoTime();
            }
            if (closed && System.nanoTime() - closedAt >= timeoutNanos) {
                release(run);
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }
}
