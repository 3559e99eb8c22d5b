package dev.kafko.internal.broker;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the sends that linger on one partition, and the rule for when a round of sends may join
 * them. Single-record sends that stream in (a send round less than {@link #STREAM_GAP_NANOS} after the
 * previous one) linger, to be written as one frame with the sends that follow, once they reach
 * {@link #LINGER_BYTES}, after {@link dev.kafko.KafkoOptions#linger()} at the latest (zero turns
 * lingering off), or as soon as anyone needs them: a thread blocks on one of their futures (or on a
 * future derived from one), a consumer of the partition is about to park, any other request arrives,
 * or the partition closes. They never linger while a consumer of the partition is parked, for a while
 * after a thread blocked on one ({@link #AWAITED_BACKOFF_ROUNDS}), nor for the first
 * {@link #WOKEN_ROUNDS} rounds while a consumer that an append woke is not yet running; the
 * {@link PartitionActor} does not offer them under {@link dev.kafko.FsyncPolicy#EVERY_BATCH} or once it
 * stopped running. So a pipelining producer writes few large frames, while an awaited send, a
 * sporadic send and a waiting consumer see no delay.
 *
 * <p>Flags with a Dekker-style handshake keep a blocked waiter from being missed: the owner raises
 * {@link #lingering} before it reads {@link Request#awaited} and the waiters' states; a waiter raises
 * its flag (or sets its state to parked) before it reads {@link #isLingering()}.
 *
 * <p>One per {@link PartitionActor}. Every method runs on the partition's owner, but for
 * {@link #isLingering()} (any thread).
 */
final class LingerChain {

    /** Lingering sends are written once they hold this many bytes. */
    static final long LINGER_BYTES = 64 * 1024;
    /** A send round this close to the previous one is part of a stream, and its sends may linger. */
    static final long STREAM_GAP_NANOS = 100_000;
    /**
     * After an append woke a parked consumer, at most this many send rounds are written at once
     * rather than linger while it is still waking up: the rest of the burst whose first send woke it
     * (a producer pacing itself to a rate sends a few records each time it wakes, as the kernel parks
     * a thread for at least ~50 µs) is then there for the consumer's first read, where lingering it
     * would wait until the consumer has finished the first record and written the rest itself. The
     * bound keeps a stream coalescing while a woken consumer waits long for a CPU.
     */
    static final int WOKEN_ROUNDS = 32;
    /** After a thread blocked on a lingering send, this many send rounds are written at once. */
    static final int AWAITED_BACKOFF_ROUNDS = 256;

    private final Duration linger;
    private final Waiters waiters;
    private final Scheduler scheduler;
    /** The scheduler's task that submits the command ending a linger, once {@link #linger} has passed. */
    private final Runnable end;

    /** Sends accepted but not yet written, in arrival order, chained through {@link Request#next}. */
    private @Nullable Request<?> head;
    private @Nullable Request<?> tail;
    private long bytes;
    private boolean endScheduled;
    private long lastSendRound = Long.MIN_VALUE / 2;
    private int backoff;
    /**
     * Stream rounds written at once (not lingered) for a woken consumer since an append last woke one;
     * {@link #WOKEN_ROUNDS} once none is woken any more.
     */
    private int wokenRounds = WOKEN_ROUNDS;
    /** True while sends linger (and briefly, harmlessly, around it); written by the owner, read by anyone. */
    private volatile boolean lingering;

    LingerChain(Duration linger, Waiters waiters, Scheduler scheduler, Runnable end) {
        this.linger = linger;
        this.waiters = waiters;
        this.scheduler = scheduler;
        this.end = end;
    }

    /**
     * Lets every request of {@code round} linger, after the sends lingering already, when the round
     * is made of single sends only and may linger (see the class comment); false leaves the round
     * untouched.
     */
    boolean offer(Request<?> round) {
        if (linger.isZero()) {
            return false;
        }
        long total = bytes;
        Request<?> last = round;
        for (Request<?> q = round; q != null; q = q.next) {
            if (!(q instanceof SendRequest)) {
                return false;
            }
            total += q.encodedBytes();
            last = q;
        }
        if (backoff > 0) {
            // written at once, and without a clock read (~90 ns here, a tenth of an awaited send): the
            // round after the back-off reads a stale time, so it is written at once too
            backoff--;
            return false;
        }
        if (head == null || total >= LINGER_BYTES) {
            // a round added to sends lingering already does not read the clock either:
            // they started a stream, and are written within the linger time whatever follows
            long now = System.nanoTime();
            boolean stream = now - lastSendRound < STREAM_GAP_NANOS;
            lastSendRound = now;
            if (!stream || total >= LINGER_BYTES) {
                return false;
            }
        }
        // raised before reading the waiters' flags: either a waiter sees it, or this sees the waiter's flag
        // (the sends lingering already were checked when they started to: their waiters see the flag)
        lingering = true;
        for (Request<?> q = round; q != null; q = q.next) {
            if (q.awaited) {
                return false;
            }
        }
        if (waiters.anyParked()) {
            return false;
        }
        if (wokenRounds < WOKEN_ROUNDS) {
            if (waiters.anyWoken()) {
                wokenRounds++;
                return false;
            }
            // the consumers woken have run: what is left of the allowance is not for a later wake-up
            wokenRounds = WOKEN_ROUNDS;
        }
        // it outlives the send's call: its records copied (a send written at once never is; Request#detach)
        for (Request<?> q = round; q != null; q = q.next) {
            q.detach();
        }
        if (!endScheduled) {
            scheduler.schedule(end, linger);
            endScheduled = true;
        }
        // linked last, with no call after: a thread out of stack before this point has linked nothing,
        // and the owner fails the round it took, which never lingered
        if (head == null) {
            head = round;
        } else {
            tail.next = round;
        }
        tail = last;
        bytes = total;
        return true;
    }

    /**
     * Empties the chain: returns the sends that lingered followed by {@code round} (they arrived
     * before anything in the mailbox), or {@code round} alone when none did.
     */
    Request<?> takeBefore(Request<?> round) {
        Request<?> first = round;
        if (head != null) {
            tail.next = round;
            first = head;
            head = null;
            tail = null;
            bytes = 0;
        }
        lingering = false;
        return first;
    }

    /** An append just woke a parked consumer: the next rounds are written for its first read. */
    void consumerWoken() {
        wokenRounds = 0;
    }

    /** The command scheduled when sends started to linger has run (it found them written). */
    void ended() {
        endScheduled = false;
    }

    /** A thread blocked on a lingering send: the next rounds are written at once. */
    void awaitedBlocked() {
        backoff = AWAITED_BACKOFF_ROUNDS;
    }

    /** Whether sends may be lingering; a volatile read. Any thread. */
    boolean isLingering() {
        return lingering;
    }
}
