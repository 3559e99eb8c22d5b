package dev.kafko.bench.log;

import dev.kafko.Compression;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.bench.BenchJvm;
import dev.kafko.internal.broker.Preparer;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.PartitionLog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Appends to one partition log on the benchmark thread: pre-built batches of {@value #BATCH}
 * records (one frame each) per codec, and single records (one frame per record, the broker's
 * awaited-send path). Values are 256 compressible bytes. A fresh log per iteration, opened with a
 * {@link Preparer} as a broker opens it, and garbage collected after it is deleted; segments roll at
 * the default 1 GiB (and are sealed, fsync included, when they do: in the background for batches, up
 * to 4 at a time), no flush otherwise: the page-cache path.
 * Scores are records per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class LogAppendBenchmark {

    static final int BATCH = 1024;

    @Param({"NONE", "LZ4", "ZSTD"})
    public Compression compression;

    @Param({"256"})
    public int valueSize;

    private List<OutgoingRecord> batch;
    private OutgoingRecord single;
    private Path dir;
    private PartitionLog log;
    private Preparer preparer;

    @Setup(Level.Trial)
    public void buildRecords() {
        batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            batch.add(OutgoingRecord.of(("key-" + i).getBytes(StandardCharsets.UTF_8), BenchFiles.value(i, valueSize)));
        }
        single = batch.get(7);
    }

    @Setup(Level.Iteration)
    public void openLog() {
        dir = BenchFiles.tempDir("kafko-append");
        TopicConfig config = TopicConfig.builder().compression(compression).build();
        // as a broker opens its logs: pages are prepared ahead of the writer on another thread
        preparer = new Preparer();
        log = PartitionLog.open("bench", 0, dir, config, Clock.systemUTC(), FileIo.SYSTEM, preparer);
    }

    @TearDown(Level.Iteration)
    public void closeLog() {
        log.close();
        preparer.close();
        BenchFiles.deleteTree(dir);
        // a deleted segment's pages stay in the page cache until its mapped buffers are collected:
        // without this, each iteration pins gigabytes more, and later iterations measure how fast the
        // VM hands the guest fresh memory instead of the append path (1.5-2 M/s after a few seconds)
        System.gc();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long appendBatch() {
        return log.append(batch);
    }

    @Benchmark
    public long appendOne() {
        return log.append(single);
    }
}
