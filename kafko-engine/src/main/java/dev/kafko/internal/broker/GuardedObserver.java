package dev.kafko.internal.broker;

import dev.kafko.KafkoObserver;
import java.lang.System.Logger.Level;

/**
 * Internal: wraps the user's {@link KafkoObserver} so that an exception it throws is logged and
 * never breaks the engine (an observer runs inside a partition's drain). Called on the thread that
 * did the work, like the observer it wraps. While an observer runs, {@link #inCallback()} is true on
 * its thread: that thread may own a partition, so a send it makes must never wait for room.
 */
final class GuardedObserver implements KafkoObserver {

    private static final System.Logger LOG = System.getLogger(GuardedObserver.class.getName());

    /** Per thread, how many observer callbacks are running; they nest when an observer's send drains. */
    private static final ThreadLocal<int[]> CALLBACKS_HERE = ThreadLocal.withInitial(() -> new int[1]);

    private final KafkoObserver delegate;

    GuardedObserver(KafkoObserver delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
        int[] depth = CALLBACKS_HERE.get();
        depth[0]++;
        try {
            delegate.onAppend(topic, partition, records, bytes, nanos);
        } catch (RuntimeException e) {
            complain("onAppend", e);
        } finally {
            depth[0]--;
        }
    }

    @Override
    public void onFsync(String topic, int partition, long nanos) {
        int[] depth = CALLBACKS_HERE.get();
        depth[0]++;
        try {
            delegate.onFsync(topic, partition, nanos);
        } catch (RuntimeException e) {
            complain("onFsync", e);
        } finally {
            depth[0]--;
        }
    }

    @Override
    public void onFailure(String topic, int partition, Throwable cause) {
        int[] depth = CALLBACKS_HERE.get();
        depth[0]++;
        try {
            delegate.onFailure(topic, partition, cause);
        } catch (RuntimeException e) {
            complain("onFailure", e);
        } finally {
            depth[0]--;
        }
    }

    @Override
    public void onCommit(String topic, String group) {
        int[] depth = CALLBACKS_HERE.get();
        depth[0]++;
        try {
            delegate.onCommit(topic, group);
        } catch (RuntimeException e) {
            complain("onCommit", e);
        } finally {
            depth[0]--;
        }
    }

    @Override
    public void onRetention(String topic, int partition, int segments, long bytes) {
        int[] depth = CALLBACKS_HERE.get();
        depth[0]++;
        try {
            delegate.onRetention(topic, partition, segments, bytes);
        } catch (RuntimeException e) {
            complain("onRetention", e);
        } finally {
            depth[0]--;
        }
    }

    /** Whether an observer callback is running on this thread (a partition's owner, possibly). */
    static boolean inCallback() {
        return CALLBACKS_HERE.get()[0] > 0;
    }

    private static void complain(String method, RuntimeException e) {
        LOG.log(Level.WARNING, "KafkoObserver." + method + " threw " + e + "; ignored", e);
    }
}
