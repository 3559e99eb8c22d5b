package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** The kill of a child JVM that the crash tests run: once it said it is ready, after a delay, with SIGKILL. */
final class ChildKill {

    private ChildKill() {
    }

    /**
     * Waits for {@code ready}, sleeps {@code delayMillis}, kills {@code child} with SIGKILL (also when the wait
     * failed) and joins the {@code reader} of its output.
     */
    static void afterReady(Process child, CompletableFuture<?> ready, long delayMillis, Thread reader)
            throws Exception {
        try {
            ready.get(60, TimeUnit.SECONDS);
            Thread.sleep(delayMillis);
        } finally {
            child.destroyForcibly();
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("child ended").isTrue();
            reader.join(60_000);
        }
    }
}
