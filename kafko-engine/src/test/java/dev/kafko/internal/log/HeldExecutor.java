package dev.kafko.internal.log;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/** Holds the work submitted to it until a test runs it, as a busy background thread would. */
final class HeldExecutor implements Executor {

    final ArrayDeque<Runnable> held = new ArrayDeque<>();

    @Override
    public void execute(Runnable task) {
        held.add(task);
    }

    /** How many of the held tasks are seals of rolled segments. */
    long seals() {
        return held.stream().filter(t -> t instanceof PendingSeal).count();
    }

    /** Removes the newest held seal of a rolled segment (preparation steps may be held beside it) and runs it. */
    void runNewestSeal() {
        Runnable newest = null;
        for (Runnable t : held) {
            if (t instanceof PendingSeal) {
                newest = t;
            }
        }
        if (newest == null) {
            throw new AssertionError("no seal is held: " + held);
        }
        held.remove(newest);
        newest.run();
    }

    void runAll() {
        while (!held.isEmpty()) {
            held.poll().run();
        }
    }
}
