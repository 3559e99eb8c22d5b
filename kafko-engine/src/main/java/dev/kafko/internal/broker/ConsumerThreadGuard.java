package dev.kafko.internal.broker;

import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Internal: lets one thread at a time into a consumer, as Kafka's consumer does: a consumer is for one
 * thread at a time (its callbacks, which run on that thread, may call it again, so calls nest), and a
 * second thread gets a {@link ConcurrentModificationException} instead of records read twice or skipped.
 * {@link #enter} from any thread; the {@link Held} it returns is closed by the same thread.
 */
final class ConsumerThreadGuard {

    private final String topic;
    /** The thread using the consumer now, and how deep its calls nest. */
    private final AtomicReference<Thread> user = new AtomicReference<>();
    private int depth;
    private final Held held = new Held();

    ConsumerThreadGuard(String topic) {
        this.topic = topic;
    }

    /** Takes the consumer for the calling thread until the returned {@link Held} is closed. */
    Held enter() {
        Thread self = Thread.currentThread();
        Thread holder = user.get();
        if (holder != self && !user.compareAndSet(null, self)) {
            Thread other = user.get();
            throw new ConcurrentModificationException("the consumer of topic '" + topic + "' is in use by thread '"
                    + (other == null ? "another thread" : other.getName()) + "' while thread '" + self.getName()
                    + "' calls it: a Consumer is for one thread at a time (wakeup() excepted)");
        }
        depth++;
        return held;
    }

    /** Ends a call {@link #enter} began: one instance, reused, so that taking the consumer allocates nothing. */
    final class Held implements AutoCloseable {
        @Override
        public void close() {
            if (--depth == 0) {
                user.set(null);
            }
        }
    }
}
