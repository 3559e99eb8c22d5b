package dev.kafko.spring.listener;

import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.StackTraceLimiter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one member logs of the failures it meets again and again, and of its death: a failure repeated at each
 * poll timeout or each redelivery is one line each time, naming what failed, with its stack trace the first time
 * and then at most once a minute; a member that dies names the records its listener had in hand. Logs as the
 * polling loop it is part of. Polling thread only.
 */
final class MemberLog {

    private static final Logger LOG = LoggerFactory.getLogger(ListenerConsumer.class);

    private final KafkoMessageListenerContainer container;
    private final StackTraceLimiter traces = new StackTraceLimiter();
    /** The records the listener was given and has not returned from. */
    private @Nullable List<KafkoRecord> inHand;
    /** Whether a poll failure was logged, and when ({@link System#nanoTime}, whose origin is arbitrary). */
    private boolean pollFailureLogged;
    private long pollFailureLoggedNanos;
    /** Whether the last commit failed; the failures since the last warning of one, each logged at DEBUG. */
    private boolean commitsFailing;
    private int commitFailuresUnwarned;
    /**
     * What the last line about commits above DEBUG said: that they fail (a warning), or that they work again (the INFO
     * line); neither before the first failure. A user reading at INFO takes the last one for the state of commits.
     */
    private boolean saidCommitsFail;
    private boolean saidCommitsWork;

    MemberLog(KafkoMessageListenerContainer container) {
        this.container = container;
    }

    /** The listener is given {@code records}. */
    void delivering(List<KafkoRecord> records) {
        inHand = records;
    }

    /** The listener returned (or threw, but for the JVM's own errors, which end the member with them in hand). */
    void delivered() {
        inHand = null;
    }

    /** The member's polling thread ends with {@code cause}. */
    void died(Throwable cause) {
        List<KafkoRecord> records = inHand;
        LOG.error("Polling thread {} of listener '{}' died{}", container.memberName(), container.getListenerId(),
                records == null || records.isEmpty() ? "" : " delivering " + describe(records)
                        + " (not committed: delivered again after a restart)", cause);
    }

    /**
     * A poll failed (a corrupt record below the end, a failed partition); the member polls again in
     * {@code pollMillis}, or at once while its {@code others} partitions have records: then a line a poll
     * timeout at most.
     */
    void pollFailed(KafkoException e, boolean others, long pollMillis) {
        long now = System.nanoTime();
        if (others && pollFailureLogged && now - pollFailureLoggedNanos < TimeUnit.MILLISECONDS.toNanos(pollMillis)) {
            return;
        }
        pollFailureLogged = true;
        pollFailureLoggedNanos = now;
        long retryMillis = others ? 0 : pollMillis;
        String what = retryMillis == 0
                ? "Listener '{}' could not poll {} ({}); reading its other partitions meanwhile{}"
                : "Listener '{}' could not poll {} ({}); trying again in {} ms";
        Object retry = retryMillis == 0 ? "" : retryMillis;
        if (traces.traceDue("poll " + e.getClass().getName())) {
            LOG.error(what, container.getListenerId(), container.topic(), e, retry, e);
        } else {
            LOG.error(what, container.getListenerId(), container.topic(), StackTraceLimiter.oneLine(e), retry);
        }
    }

    /** The error handler could not finish {@code records} (a dead-letter partition that failed, say). */
    void notFinished(List<KafkoRecord> records, Throwable unhandled, long retryMillis) {
        String what = "Listener '{}' did not finish {} ({}); delivered again in {} ms";
        if (traces.traceDue("recover " + unhandled.getClass().getName())) {
            LOG.warn(what, container.getListenerId(), describe(records), unhandled, retryMillis, unhandled);
        } else {
            LOG.warn(what, container.getListenerId(), describe(records), StackTraceLimiter.oneLine(unhandled),
                    retryMillis);
        }
    }

    /**
     * A commit failed (a full disk, say): a WARN line naming the offsets and the cause, with the stack trace, at most
     * once a minute, saying how many more failed since the last one; those between are DEBUG lines, since under a
     * steady flow of records a commit fails for every record or batch (an outside tryout logged 50,785 warnings in
     * three seconds). A failure after the line saying that commits work again is warned at once (with its trace only
     * when one is due), so that line is never the last word while commits fail; that line comes at most once a minute
     * too, so commits that fail and succeed by turns warn at most twice a minute.
     */
    void commitFailed(Map<Integer, Long> offsets, KafkoException e) {
        commitsFailing = true;
        String what = "Listener '{}' could not commit {} on {} ({}); its records are delivered again after a restart"
                + " unless a later commit succeeds";
        boolean traceDue = traces.traceDue("commit " + e.getClass().getName());
        if (traceDue || saidCommitsWork) {
            int earlier = commitFailuresUnwarned;
            commitFailuresUnwarned = 0;
            saidCommitsFail = true;
            saidCommitsWork = false;
            String more = earlier == 0 ? "" : "; " + earlier + " more commits failed since the last warning (logged at"
                    + " DEBUG)";
            if (traceDue) {
                LOG.warn(what + "{}", container.getListenerId(), offsets, container.topic(), e, more, e);
            } else {
                LOG.warn(what + "{}", container.getListenerId(), offsets, container.topic(),
                        StackTraceLimiter.oneLine(e), more);
            }
        } else {
            commitFailuresUnwarned++;
            LOG.debug(what, container.getListenerId(), offsets, container.topic(), StackTraceLimiter.oneLine(e));
        }
    }

    /**
     * A commit succeeded: after a warning of failures, says that commits work again, at most once a minute (a commit
     * that succeeds in the minute after the last such line says so at DEBUG, and a later one at INFO).
     */
    void committed() {
        boolean wasFailing = commitsFailing;
        commitsFailing = false;
        if (saidCommitsFail && traces.traceDue("commits work again")) {
            saidCommitsFail = false;
            saidCommitsWork = true;
            LOG.info("Listener '{}' commits on {} again{}", container.getListenerId(), container.topic(),
                    commitFailuresUnwarned == 0 ? ""
                            : ", after " + commitFailuresUnwarned + " more failed commits logged at DEBUG");
            commitFailuresUnwarned = 0;
        } else if (wasFailing) {
            LOG.debug("Listener '{}' commits on {} again", container.getListenerId(), container.topic());
        }
    }

    /**
     * The member could not read its topic again after it was deleted; it tries again at the next poll timeout. A
     * race with a deletion is passing: a WARN with the trace once a minute at most, DEBUG between.
     */
    void rejoinFailed(KafkoException e) {
        if (traces.traceDue("rejoin " + e.getClass().getName())) {
            LOG.warn("Listener '{}' could not read topic '{}' again yet; it tries again at each poll timeout",
                    container.getListenerId(), container.topic(), e);
        } else {
            LOG.debug("Listener '{}' could not read topic '{}' again yet: {}", container.getListenerId(),
                    container.topic(), StackTraceLimiter.oneLine(e));
        }
    }

    /** "record orders-0@5", or "3 records from orders-0@5 to orders-1@9". */
    static String describe(List<KafkoRecord> records) {
        KafkoRecord first = records.get(0);
        String at = first.topic() + "-" + first.partition() + "@" + first.offset();
        if (records.size() == 1) {
            return "record " + at;
        }
        KafkoRecord last = records.get(records.size() - 1);
        return records.size() + " records from " + at + " to " + last.topic() + "-" + last.partition() + "@"
                + last.offset();
    }
}
