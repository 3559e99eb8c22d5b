package dev.kafko.bench.peer;

import java.nio.file.Path;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Chronicle Queue appending 256-byte messages from one writer: one operation is one message, so
 * the score is messages per second. Each iteration writes into a fresh queue directory under
 * {@code java.io.tmpdir} (fresh files, like a new kafko segment), deleted after the iteration
 * so that a long run does not fill the disk. Chronicle's default roll cycle and block size; the
 * data reaches the page cache, not the disk (no fsync), as in kafko's default mode.
 */
@State(Scope.Benchmark)
public class ChronicleAppendBenchmark extends ChronicleJvm {

    private final BytesStore<?, byte[]> payload = BytesStore.wrap(BenchFiles.payload(PAYLOAD_BYTES, PAYLOAD_SEED));
    private Path dir;
    private ChronicleQueue queue;
    private ExcerptAppender appender;

    @Setup(Level.Iteration)
    public void openFreshQueue() {
        dir = BenchFiles.createTempDir("chronicle-append-");
        queue = ChronicleQueue.singleBuilder(dir).build();
        appender = queue.createAppender();
    }

    @TearDown(Level.Iteration)
    public void closeAndDelete() {
        appender.close();
        queue.close();
        BenchFiles.deleteRecursively(dir);
        // as LogAppendBenchmark: release the mappings of the deleted files before the next iteration
        System.gc();
    }

    @Benchmark
    public void append() {
        appender.writeBytes(payload);
    }
}
