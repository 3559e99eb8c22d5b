package dev.kafko.internal.broker;

import dev.kafko.internal.io.Uninterruptibly;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;

/**
 * Internal: makes the daemon threads of one of an instance's executors, all of one name, and keeps those that may
 * still be alive so that a close can wait for them to end (an executor's termination means its last task ended;
 * its thread may still be on its way out). Thread-safe.
 */
final class DaemonThreads implements ThreadFactory {

    private final String name;
    /** The threads made so far that may still be alive; pruned of the ended ones whenever one more is made. */
    private final List<Thread> threads = new ArrayList<>();

    DaemonThreads(String name) {
        this.name = name;
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        synchronized (threads) {
            // ended ones only: a thread made but not started yet is not alive either, and the executor starts it
            // after this returns (two made at once, the first pruned by the second, was never joined by a close)
            threads.removeIf(x -> x.getState() == Thread.State.TERMINATED);
            threads.add(t);
        }
        return t;
    }

    /** Waits, without being cut short by an interrupt, until every thread made so far has ended. */
    void joinAll() {
        List<Thread> started;
        synchronized (threads) {
            started = List.copyOf(threads);
        }
        Uninterruptibly.join(started);
    }
}
