package dev.kafko.bench.broker;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.bench.BenchJvm;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Producing through the public API into one partition with 256-byte values (fsync NEVER, 1 GiB
 * segments, the default): an awaited send, a pipelined send, four pipelining threads and sendBatch of 1,024.
 *
 * <p>A fresh broker and log per iteration, closed (which forces it) and deleted after it, with the
 * deleted segments' mappings collected, as {@code LogAppendBenchmark} and the Chronicle Queue
 * benchmarks do: one log kept for the whole trial grows by gigabytes, and its later iterations measure
 * how fast the machine hands out fresh memory (BENCHMARKS, Session 21) instead of the send path.
 * {@code SustainedProduce} measures that ceiling.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@State(Scope.Benchmark)
public class ProduceBenchmark {

    static final int VALUE_BYTES = 256;
    static final int BATCH = 1024;

    Path dir;
    Kafko kafko;
    Producer producer;
    byte[] value;
    List<OutgoingRecord> batch;

    @Setup(Level.Trial)
    public void buildRecords() {
        value = new byte[VALUE_BYTES];
        batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            batch.add(OutgoingRecord.of(null, value));
        }
    }

    @Setup(Level.Iteration)
    public void open() {
        dir = BenchDirs.create();
        kafko = Kafko.open(dir);
        kafko.createTopic("t", TopicConfig.builder().segmentBytes(1L << 30).build());
        producer = kafko.producer("t");
    }

    @TearDown(Level.Iteration)
    public void close() {
        kafko.close();
        BenchDirs.delete(dir);
        // a deleted segment's pages stay in the page cache until its mapped buffers are collected
        System.gc();
    }

    /** One thread, each send awaited. */
    @Benchmark
    public RecordPosition awaitedSend() {
        return producer.send(null, value).join();
    }

    /** One thread, sends not awaited (the future is handed to the blackhole). */
    @Benchmark
    public CompletableFuture<RecordPosition> pipelinedSend() {
        return producer.send(null, value);
    }

    /** Four threads pipelining into the same partition; the score is their total. */
    @Benchmark
    @Threads(4)
    public CompletableFuture<RecordPosition> pipelinedSendFourThreads() {
        return producer.send(null, value);
    }

    /** sendBatch of 1,024 records, awaited; the score counts records. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public List<RecordPosition> sendBatch1024() {
        return producer.sendBatch(batch).join();
    }
}
