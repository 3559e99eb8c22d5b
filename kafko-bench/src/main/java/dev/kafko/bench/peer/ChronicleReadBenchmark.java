package dev.kafko.bench.peer;

import java.nio.file.Path;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Chronicle Queue read sequentially by one tailer: one operation is one 256-byte message copied
 * into a {@code byte[]}, so the score is messages per second. The queue is written once per trial
 * ({@link #messages} messages, in the page cache by the time reading starts); when the tailer
 * reaches the end it goes back to the start, inside the measurement, which costs one seek per
 * {@link #messages} reads.
 */
@State(Scope.Benchmark)
public class ChronicleReadBenchmark extends ChronicleJvm {

    /** Messages written before reading: 1 M × 256 B is 256 MB, well inside the page cache. */
    @Param("1000000")
    public int messages;

    private final byte[] buffer = new byte[PAYLOAD_BYTES];
    private Path dir;
    private ChronicleQueue queue;
    private ExcerptTailer tailer;

    @Setup(Level.Trial)
    public void writeQueue() {
        dir = BenchFiles.createTempDir("chronicle-read-");
        queue = ChronicleQueue.singleBuilder(dir).build();
        BytesStore<?, byte[]> payload = BytesStore.wrap(BenchFiles.payload(PAYLOAD_BYTES, PAYLOAD_SEED));
        try (ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < messages; i++) {
                appender.writeBytes(payload);
            }
        }
        tailer = queue.createTailer();
    }

    @TearDown(Level.Trial)
    public void closeAndDelete() {
        tailer.close();
        queue.close();
        BenchFiles.deleteRecursively(dir);
    }

    @Benchmark
    public byte[] read() {
        if (!readNext()) {
            tailer.toStart();
            if (!readNext()) {
                throw new IllegalStateException("queue in " + dir + " is empty after rewinding");
            }
        }
        return buffer;
    }

    private boolean readNext() {
        try (DocumentContext dc = tailer.readingDocument()) {
            if (!dc.isPresent()) {
                return false;
            }
            dc.wire().bytes().read(buffer);
            return true;
        }
    }
}
