package dev.kafko.bench.broker;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.bench.BenchJvm;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Sixteen threads each awaiting its send into one EVERY_BATCH partition: group commit lets one
 * fdatasync cover every send waiting at that moment. Sample mode reports the latency percentiles;
 * throughput is ops/s of the sample count (or run with {@code -bm thrpt}).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@State(Scope.Benchmark)
public class GroupCommitBenchmark {

    Path dir;
    Kafko kafko;
    Producer producer;
    byte[] value = new byte[ProduceBenchmark.VALUE_BYTES];

    @Setup(Level.Trial)
    public void open() {
        dir = BenchDirs.create();
        kafko = Kafko.open(dir);
        kafko.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).segmentBytes(64L << 20).build());
        producer = kafko.producer("t");
    }

    @TearDown(Level.Trial)
    public void close() {
        kafko.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    @Threads(16)
    public RecordPosition everyBatchAwaitedSend() {
        return producer.send(null, value).join();
    }
}
