package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.function.UnaryOperator;

/** The retry handle a member gives its error handler for one failed delivery; polling thread only. */
final class ListenerInvocation implements FailedInvocation {

    /** Calls the listener: the member's own invocation, with its timing. */
    @FunctionalInterface
    interface Invoker {
        void invoke(List<KafkoRecord> records, Acknowledgment ack, int attempt) throws Exception;
    }

    private final KafkoMessageListenerContainer container;
    private final List<KafkoRecord> records;
    private final Acknowledgment ack;
    private final Invoker invoker;
    /** The records the last attempt's listener got for {@link #records} (an interceptor's), for the recovery. */
    private final UnaryOperator<List<KafkoRecord>> delivered;
    /** The attempts so far, the delivery included. */
    private int attempts = 1;
    /** Whether the last retry returned: the listener processed the records, no recoverer did. */
    private boolean retried;

    ListenerInvocation(KafkoMessageListenerContainer container, List<KafkoRecord> records, Acknowledgment ack,
                       Invoker invoker, UnaryOperator<List<KafkoRecord>> delivered) {
        this.container = container;
        this.records = records;
        this.ack = ack;
        this.invoker = invoker;
        this.delivered = delivered;
    }

    /**
     * The records the last attempt's listener got: those failed, or those the container's interceptor gave it in
     * their place (see {@link InterceptingListener#delivered}); what the error handler recovers.
     */
    List<KafkoRecord> delivered() {
        return delivered.apply(records);
    }

    /**
     * The records polled for the failed delivery, which the container commits (or not) and delivers again: where a
     * report of what is not committed points, whatever the interceptor gave the listener in their place.
     */
    List<KafkoRecord> polled() {
        return records;
    }

    @Override
    public String listenerId() {
        return container.getListenerId();
    }

    @Override
    public String groupId() {
        return container.getGroupId();
    }

    @Override
    public void retry() throws Exception {
        retried = false;
        AwaitedStage awaited = AwaitedStage.current(); // the polling thread's, which runs the error handler
        if (awaited != null && awaited.stageCancelled()) {
            // the stop took the records when it cancelled a stage: no attempt after it, whatever the handler does
            throw new CancellationException("Listener '" + container.getListenerId() + "' stopped past its shutdown"
                    + " timeout and cancelled the stage its listener returned; the records are not retried, and are "
                    + awaited.notCommittedAtCancel(false));
        }
        try {
            invoker.invoke(records, ack, ++attempts);
            retried = true;
        } catch (Exception e) {
            // a batch of the one failed record failed again: the cause named is the failure
            BatchListenerFailedException named = BatchListenerFailedException.findIn(e);
            throw named != null && named.getCause() instanceof Exception cause ? cause : e;
        }
    }

    @Override
    public void stopContainer() {
        container.parent().stop(); // from its own polling thread: returns at once
    }

    /** Whether the member's stop cancelled the stage a retry's listener returned: not a failure to recover. */
    boolean cancelledByStop() {
        AwaitedStage awaited = AwaitedStage.current(); // the polling thread's, which runs the error handler
        return awaited != null && awaited.stageCancelled();
    }

    /** Whether the last retry returned (the records are the listener's to acknowledge, as at their delivery). */
    boolean retried() {
        return retried;
    }

    @Override
    public boolean backOff(long millis) {
        if (millis > 0) {
            try {
                container.awaitStopOrPause(millis, records);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        // a pause of the records' partition holds them too: their retries go on after its resume
        // and a seek of their partition moves the member away from them: they are read again only from where it goes
        return !container.stopRequested() && !container.pauseRequested() && !container.partitionPauseRequested(records)
                && !container.seekRequested(records);
    }
}
