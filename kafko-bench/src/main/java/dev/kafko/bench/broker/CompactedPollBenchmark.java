package dev.kafko.bench.broker;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Topic;
import dev.kafko.bench.BenchJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A group consumer polling, from its start to its end, the log that a compaction of 1,000,000 records of 256 bytes
 * over {@code keys} keys left ({@link CompactionBenchmark#filled}): {@code keys} records kept, the rest gaps, 10,000
 * records per poll. The score is records read per second, to set beside {@link ConsumeBenchmark}'s poll of a log
 * without gaps.
 *
 * <pre>
 * java -Djmh.ignoreLock=true -jar kafko-bench/target/benchmarks.jar CompactedPollBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@State(Scope.Benchmark)
public class CompactedPollBenchmark {

    @Param({"100000"})
    int keys;

    Path dir;
    Kafko kafko;
    Consumer consumer;
    long end;
    long kept;

    @Setup(Level.Trial)
    public void open() throws InterruptedException {
        dir = BenchDirs.create();
        kafko = Kafko.open(dir);
        Topic t = CompactionBenchmark.filled(kafko, keys);
        kept = CompactionBenchmark.RECORDS + 1 - t.compact();
        end = t.partition(0).endOffset();
        consumer = kafko.groupConsumer("state", "bench", ConsumerOptions.DEFAULTS.withMaxPollRecords(10_000));
    }

    @TearDown(Level.Trial)
    public void close() {
        consumer.close();
        kafko.close();
        BenchDirs.delete(dir);
    }

    /** One poll of up to 10,000 records; at the end, back to the start. */
    @Benchmark
    public int poll() {
        if (consumer.position(0) >= end) {
            consumer.seekToBeginning();
        }
        List<KafkoRecord> records = consumer.poll(Duration.ofSeconds(1));
        return records.size();
    }
}
