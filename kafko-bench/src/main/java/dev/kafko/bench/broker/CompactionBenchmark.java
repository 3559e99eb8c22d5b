package dev.kafko.bench.broker;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.bench.BenchJvm;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Compacted topics. {@code compact}: one {@code Topic.compact()} of a partition of 1,000,000 records of 256 bytes
 * over {@code keys} distinct 8-byte keys, all sealed, written again before each invocation (milliseconds per
 * compaction of the 1,000,000). {@link CompactedPollBenchmark} polls what it leaves.
 *
 * <pre>
 * java -Djmh.ignoreLock=true -jar kafko-bench/target/benchmarks.jar CompactionBenchmark
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@State(Scope.Benchmark)
public class CompactionBenchmark {

    static final int RECORDS = 1_000_000;

    @Param({"1000", "100000"})
    int keys;

    Path dir;
    Kafko kafko;
    Topic topic;

    @Setup(Level.Invocation)
    public void fill() throws InterruptedException {
        dir = BenchDirs.create();
        kafko = Kafko.open(dir);
        topic = filled(kafko, keys);
    }

    /**
     * A compacted topic of {@link #RECORDS} records of 256 bytes, key {@code i % keys}, then one more record, after
     * the segment age was cut to 1 ms, that rolls the segment: every one of the million is in a sealed segment.
     */
    static Topic filled(Kafko kafko, int keys) throws InterruptedException {
        TopicConfig config = TopicConfig.builder().compact().build();
        Topic t = kafko.createTopic("state", config);
        Producer p = kafko.producer("state");
        byte[] value = new byte[ProduceBenchmark.VALUE_BYTES];
        List<OutgoingRecord> batch = new ArrayList<>(1024);
        for (int i = 0; i < RECORDS; i++) {
            batch.add(OutgoingRecord.of(ByteBuffer.allocate(8).putLong(i % keys).array(), value));
            if (batch.size() == 1024 || i == RECORDS - 1) {
                p.sendBatch(batch).join();
                batch.clear();
            }
        }
        t.alterConfig(config.toBuilder().segmentAge(Duration.ofMillis(1)).build());
        Thread.sleep(5);
        p.send(new byte[8], value).join();
        return t;
    }

    @TearDown(Level.Invocation)
    public void close() {
        kafko.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    public long compact() {
        return topic.compact();
    }
}
