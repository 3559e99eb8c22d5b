package dev.kafko.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoException;
import java.lang.management.ManagementFactory;

/** The checks every fuzz target makes around one call. Stateless; any thread. */
final class Bounds {

    private Bounds() {
    }

    /** A call that may fail only with the types given, or with a {@link KafkoException}. */
    interface Call {
        void run() throws Exception;
    }

    /**
     * Runs {@code call}; fails on an {@link Error} or an exception that is neither a
     * {@link KafkoException} nor one of {@code allowed}; fails when the thread allocated more than
     * {@code maxAllocatedBytes}.
     */
    @SafeVarargs
    static void check(long maxAllocatedBytes, Call call, Class<? extends Exception>... allowed) {
        long used = run(call, allowed);
        if (used > maxAllocatedBytes) {
            // the first call of a run also pays for class loading and native set-up: measure once more
            used = run(call, allowed);
        }
        assertThat(used).as("bytes allocated by one call").isLessThanOrEqualTo(maxAllocatedBytes);
    }

    @SafeVarargs
    private static long run(Call call, Class<? extends Exception>... allowed) {
        long before = allocated();
        try {
            call.run();
        } catch (KafkoException e) {
            // the documented failure
        } catch (Exception e) {
            for (Class<? extends Exception> a : allowed) {
                if (a.isInstance(e)) {
                    return allocated() - before;
                }
            }
            throw new AssertionError("undocumented exception " + e, e);
        }
        return allocated() - before;
    }

    static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}
