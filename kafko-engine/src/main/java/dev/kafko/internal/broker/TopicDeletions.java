package dev.kafko.internal.broker;

import dev.kafko.TopicExistsException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Internal: the topic deletions of a {@link Broker} in flight (taken out of the instance, their partitions
 * and files not yet gone) and those that failed (a partition could not be closed: its files, and its name,
 * stay). Guarded by the broker's admin lock, which a deletion holds only to begin and to end.
 */
final class TopicDeletions {

    private final ReentrantLock admin;
    private final Condition ended;
    private final Path dataDir;
    private final Set<String> inFlight = new HashSet<>();
    private final Set<String> failed = new HashSet<>();

    TopicDeletions(ReentrantLock admin, Path dataDir) {
        this.admin = admin;
        this.ended = admin.newCondition();
        this.dataDir = dataDir;
    }

    /** Admin lock held: the topic named so has just left the instance. */
    void begin(String name) {
        inFlight.add(name);
    }

    /** The deletion of {@code name} ended; {@code closed} false when a partition could not be closed. */
    void end(String name, boolean closed) {
        admin.lock();
        try {
            inFlight.remove(name);
            if (!closed) {
                failed.add(name);
            }
            ended.signalAll();
        } finally {
            admin.unlock();
        }
    }

    /**
     * Admin lock held: waits until no deletion of {@code name} is in flight, as a create of the name waited
     * for the deletion's lock before (another caller may then have created it: check the name after this).
     * Inside kafko's own work (a send's callback, an observer) the deletion may be waiting for this very
     * thread: refused there. {@code ensureOpen} runs after each wait.
     *
     * @throws TopicExistsException when the wait is refused, or the name's deletion failed
     */
    void awaitDeletionOf(String name, Runnable ensureOpen) {
        boolean interrupted = false;
        try {
            while (inFlight.contains(name)) {
                int[] marks = ThreadMarks.get();
                if (marks[ThreadMarks.OWNING] > 0 || marks[ThreadMarks.COMPLETING] > 0
                        || marks[ThreadMarks.OBSERVING] > 0) {
                    throw new TopicExistsException("topic '" + name + "' is being deleted in " + dataDir + "; a send's"
                            + " callback or an observer cannot wait for that (the deletion may wait for it): create it"
                            + " from another thread, or once deleteTopic has returned");
                }
                try {
                    ended.await();
                } catch (InterruptedException e) {
                    interrupted = true; // as the wait for the admin lock was: the create goes on
                }
                ensureOpen.run();
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (failed.contains(name)) {
            throw new TopicExistsException("topic '" + name + "' could not be deleted in " + dataDir
                    + " (see the failure of its deleteTopic); it is gone from this instance, its files are not");
        }
        Names.checkNoCollision(name, inFlight);
        Names.checkNoCollision(name, failed);
    }

    /** Whether a deletion is in flight. */
    boolean pending() {
        admin.lock();
        try {
            return !inFlight.isEmpty();
        } finally {
            admin.unlock();
        }
    }

    /** Waits until no deletion is in flight (they end on their own threads); an interrupt is kept. */
    void awaitNone() {
        admin.lock();
        try {
            boolean interrupted = false;
            while (!inFlight.isEmpty()) {
                try {
                    ended.await();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        } finally {
            admin.unlock();
        }
    }
}
