package dev.kafko.internal.broker;

import dev.kafko.KafkoObserver;
import java.lang.System.Logger.Level;

/**
 * Internal: wraps the user's {@link KafkoObserver} so that an exception it throws is logged and
 * never breaks the engine (an observer runs inside a partition's drain). Called on the thread that
 * did the work, like the observer it wraps. Errors that leave a partition's work intact (a missing
 * class, a failed assertion) are caught as well.
 */
final class GuardedObserver implements KafkoObserver {

    private static final System.Logger LOG = System.getLogger(GuardedObserver.class.getName());

    private final KafkoObserver delegate;

    GuardedObserver(KafkoObserver delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onAppend(topic, partition, records, bytes, nanos);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onAppend", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onFsync(String topic, int partition, long nanos) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onFsync(topic, partition, nanos);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onFsync", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onFailure(String topic, int partition, Throwable cause) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onFailure(topic, partition, cause);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onFailure", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onCommit(String topic, String group) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onCommit(topic, group);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onCommit", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onGroupDeleted(String topic, String group) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onGroupDeleted(topic, group);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onGroupDeleted", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onCompaction(String topic, int partition, long records, long bytes) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onCompaction(topic, partition, records, bytes);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onCompaction", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onRetention(String topic, int partition, int segments, long bytes) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onRetention(topic, partition, segments, bytes);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onRetention", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onTopicCreated(String topic) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onTopicCreated(topic);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onTopicCreated", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    @Override
    public void onTopicDeleted(String topic) {
        int[] marks = ThreadMarks.get();
        marks[ThreadMarks.OBSERVING]++;
        try {
            delegate.onTopicDeleted(topic);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("onTopicDeleted", e);
        } finally {
            marks[ThreadMarks.OBSERVING]--;
        }
    }

    private static void complain(String method, Throwable e) {
        try {
            LOG.log(Level.WARNING, "KafkoObserver." + method + " threw " + e + "; ignored", e);
        } catch (RuntimeException | Error ignored) {
            // a log handler that fails as well changes nothing: the observer's exception is ignored
        }
    }
}
