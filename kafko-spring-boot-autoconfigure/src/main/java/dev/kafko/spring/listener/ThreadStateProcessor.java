package dev.kafko.spring.listener;

/**
 * Sets up and clears what a container member's polling thread needs around each poll, as spring-kafka's interface of
 * the same name does (there both methods take the {@code Consumer}; kafko has none to give). Both are called on the
 * member's own polling thread: {@link #setupThreadState} right before each poll, {@link #clearThreadState} once the
 * records of that poll were delivered (their retries and recovery included) and what was due was committed, even when
 * the poll or the listener failed. A paused member, which does not poll, calls neither. Something either method
 * throws is logged; the member goes on.
 */
public interface ThreadStateProcessor {

    /** Called on the member's polling thread before each poll. Does nothing by default. */
    default void setupThreadState() {
    }

    /** Called on the member's polling thread after each poll's records were dealt with. Does nothing by default. */
    default void clearThreadState() {
    }
}
