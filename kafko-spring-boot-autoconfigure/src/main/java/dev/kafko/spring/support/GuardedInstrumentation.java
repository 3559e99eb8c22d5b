package dev.kafko.spring.support;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps a {@link KafkoInstrumentation} so that an exception it throws is logged and changes nothing: a record
 * written is a successful send, a record the listener processed is not delivered again, a dead letter published is
 * not published again (as the engine guards its observer, and the template its producer listener). Called on the
 * threads the wrapped one is; logs a stack trace the first time per method and exception class, then at most once a
 * minute, and a line each time between.
 */
public final class GuardedInstrumentation implements KafkoInstrumentation {

    private static final Logger LOG = LoggerFactory.getLogger(GuardedInstrumentation.class);

    private final KafkoInstrumentation delegate;
    private final StackTraceLimiter traces = new StackTraceLimiter();

    private GuardedInstrumentation(KafkoInstrumentation delegate) {
        this.delegate = delegate;
    }

    /** {@code instrumentation} guarded; {@link KafkoInstrumentation#NOOP} stays itself (nothing is timed for it). */
    public static KafkoInstrumentation of(KafkoInstrumentation instrumentation) {
        return instrumentation == NOOP || instrumentation instanceof GuardedInstrumentation ? instrumentation
                : new GuardedInstrumentation(instrumentation);
    }

    @Override
    public void sendCompleted(String topic, long nanos, @Nullable Throwable failure) {
        try {
            delegate.sendCompleted(topic, nanos, failure);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("sendCompleted", e);
        }
    }

    @Override
    public void listenerInvoked(String listenerId, String topic, long nanos, boolean success) {
        try {
            delegate.listenerInvoked(listenerId, topic, nanos, success);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("listenerInvoked", e);
        }
    }

    @Override
    public void listenerStarting(String listenerId, String groupId, String topic) {
        try {
            delegate.listenerStarting(listenerId, groupId, topic);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("listenerStarting", e);
        }
    }

    @Override
    public void listenerRemoved(String listenerId, String groupId, List<String> topics) {
        try {
            delegate.listenerRemoved(listenerId, groupId, topics);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("listenerRemoved", e);
        }
    }

    @Override
    public void deadLettered(String listenerId, String topic) {
        try {
            delegate.deadLettered(listenerId, topic);
        } catch (RuntimeException | LinkageError | AssertionError e) {
            complain("deadLettered", e);
        }
    }

    private void complain(String method, Throwable e) {
        String what = "KafkoInstrumentation {}.{} threw {}; ignored";
        if (traces.traceDue(method + ' ' + e.getClass().getName())) {
            LOG.warn(what, delegate.getClass().getName(), method, e.toString(), e);
        } else {
            LOG.warn(what, delegate.getClass().getName(), method, StackTraceLimiter.oneLine(e));
        }
    }
}
