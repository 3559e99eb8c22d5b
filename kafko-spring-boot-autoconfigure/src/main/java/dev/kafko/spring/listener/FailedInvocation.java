package dev.kafko.spring.listener;

/**
 * What an {@link KafkoErrorHandler} may do with a failed delivery: invoke the listener again and
 * wait between attempts. Used only on the container member's polling thread.
 */
public interface FailedInvocation {

    String listenerId();

    String groupId();

    /**
     * Invokes the listener again with the same records; throws what it throws. Once a stop that overran its shutdown
     * timeout cancelled the stage a listener returned for these records, throws a
     * {@link java.util.concurrent.CancellationException} without invoking it: the records are the stop's, not
     * committed whatever the handler does, and delivered again at the next start (see {@link KafkoErrorHandler#handle}).
     */
    void retry() throws Exception;

    /**
     * Waits {@code millis} before the next attempt.
     *
     * @return false when the container is stopping or pausing, a pause of one of the records' partitions was
     *     asked for ({@code pausePartition}), or the listener asked for a seek of one of them
     *     ({@link ConsumerSeekAware}) (the wait then ends early): give up at once and let the records be
     *     delivered again, after the restart or the resume, or from where the seek puts their partition
     */
    boolean backOff(long millis);

    /**
     * Stops the listener's container as one of its listeners stopping it would: every member stops after its records
     * in hand, this one once the handler is done. A handler that then throws leaves the records uncommitted, to be
     * delivered again when the container starts again ({@link ContainerStoppingErrorHandler}).
     *
     * @throws UnsupportedOperationException when this invocation has no container to stop (one a test made)
     */
    default void stopContainer() {
        throw new UnsupportedOperationException("listener '" + listenerId() + "': this invocation has no container"
                + " to stop");
    }
}
