package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.PartitionLog;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer hands the next step of zeros to the preparer once it has used half of what is allocated; the
 * preparer's {@code execute} starts a thread when none is alive (they time out after 5 s idle), which fails with
 * an {@link OutOfMemoryError} when no native thread can be had, or the heap is short. That Error left the step's
 * "queued" flag set for good, so the segment was never prepared ahead again (its writer allocating 64 KiB steps
 * itself until it rolled), and, since B137, failed the append as "nothing of it was written" although its frame
 * was already stored. The preparation is work ahead of a writer that allocates what it needs itself: its failure
 * fails no append, and the next step is asked for again.
 */
class PreparerStartFailureTest {

    @Test
    void aPreparerThatCannotStartFailsNoAppendAndIsAskedAgain(@TempDir Path dir) {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger(1);
        Executor preparer = step -> {
            calls.incrementAndGet();
            if (failures.getAndDecrement() > 0) {
                throw new OutOfMemoryError("unable to create native thread: possibly out of memory (injected)");
            }
            step.run();
        };
        List<Throwable> failed = new ArrayList<>();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(),
                FileIo.SYSTEM, preparer)) {
            byte[] value = new byte[100];
            for (int i = 0; i < 20_000; i++) {
                try {
                    log.append(OutgoingRecord.of(null, value));
                } catch (RuntimeException | Error e) {
                    failed.add(e);
                }
            }
            assertThat(failed).as("appends that failed").isEmpty();
            assertThat(log.endOffset()).isEqualTo(20_000);
        }
        assertThat(calls.get()).as("steps asked of the preparer").isGreaterThan(1);
    }
}
