package dev.kafko.spring.event;

import java.io.Serial;
import java.util.Objects;

/**
 * A member of a listener's group stopped: it committed what it had to commit and left its group, and its
 * polling thread is about to end. Its {@link #getReason() reason} tells a stop that was asked for from one that
 * was not.
 */
public class ConsumerStoppedEvent extends KafkoEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    /** Why the member stopped. */
    public enum Reason {
        /** A stop of its container, its registry or the application. */
        NORMAL,
        /** An {@link Error} ended its polling thread (out of memory, a fault on the log's files). */
        ERROR,
        /** An exception ended its polling thread (kafko closed under it, an interrupt not from a stop). */
        ABNORMAL
    }

    private final Reason reason;

    public ConsumerStoppedEvent(Object source, Object container, String listenerId, Reason reason) {
        super(source, container, listenerId);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public Reason getReason() {
        return reason;
    }

    @Override
    public String toString() {
        return "ConsumerStoppedEvent [source=" + getSource() + ", reason=" + reason + "]";
    }
}
