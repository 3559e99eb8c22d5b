package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The single-writer check is a plain field since 9ba2e8e: a writer call that leaves by an {@link Error} (one the log
 * does not catch, thrown from inside the file system's call) still clears it, so the next writer, on another thread
 * that took over as the partition's owner would (here: after a join), is not refused as if the first were still
 * inside.
 */
class WriterCheckAfterErrorTest {

    @TempDir
    Path dir;

    @Test
    void aWriterCallThatLeftByAnErrorDoesNotRefuseTheNextWriterOnAnotherThread() throws Exception {
        AtomicReference<Error> throwNext = new AtomicReference<>();
        FaultyFileIo io = new FaultyFileIo().syncs(false).beforeForce(() -> {
            Error e = throwNext.getAndSet(null);
            if (e != null) {
                throw e;
            }
        });
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io)) {
            long offset = 0;
            for (Error e : new Error[] {new AssertionError("injected"), new StackOverflowError("injected")}) {
                assertThat(log.append(Logs.record(offset, 10))).isEqualTo(offset);
                offset++;
                throwNext.set(e);
                Thread first = new Thread(log::flush, "first-writer");
                AtomicReference<Throwable> firstFailure = new AtomicReference<>();
                first.setUncaughtExceptionHandler((t, x) -> firstFailure.set(x));
                first.start();
                first.join();
                assertThat(firstFailure.get()).isSameAs(e);
                long expected = offset;
                // the next writer, on yet another thread
                assertThat(CompletableFuture.supplyAsync(() -> log.append(Logs.record(expected, 10)),
                        r -> new Thread(r, "next-writer").start()).get(10, TimeUnit.SECONDS)).isEqualTo(expected);
                offset++;
                log.flush();
            }
            assertThat(log.endOffset()).isEqualTo(offset);
        }
    }
}
