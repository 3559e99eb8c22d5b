package dev.kafko.internal.broker;

import dev.kafko.KafkoObserver;
import java.util.concurrent.atomic.AtomicReference;

/** A test's observer that runs, inside the next append of any partition, the action set in {@link #next}, once. */
final class OnNextAppend implements KafkoObserver {

    final AtomicReference<Runnable> next = new AtomicReference<>();

    @Override
    public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
        Runnable r = next.getAndSet(null);
        if (r != null) {
            r.run();
        }
    }
}
