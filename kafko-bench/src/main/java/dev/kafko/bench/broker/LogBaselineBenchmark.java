package dev.kafko.bench.broker;

import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.bench.BenchJvm;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.PartitionLog;
import java.nio.file.Path;
import java.time.Clock;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The peer of {@link ProduceBenchmark#awaitedSend()} in the same run: the same record appended
 * straight to the partition log, without the broker (no routing, actor or future). The gap between
 * the two is the broker's cost per send.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@State(Scope.Benchmark)
public class LogBaselineBenchmark {

    Path dir;
    PartitionLog log;
    OutgoingRecord record = OutgoingRecord.of(null, new byte[ProduceBenchmark.VALUE_BYTES]);

    @Setup(Level.Trial)
    public void open() {
        dir = BenchDirs.create();
        log = PartitionLog.open("t", 0, dir.resolve("0"), TopicConfig.builder().segmentBytes(1L << 30).build(),
                Clock.systemUTC(), FileIo.SYSTEM);
    }

    @TearDown(Level.Trial)
    public void close() {
        log.close();
        BenchDirs.delete(dir);
    }

    @Benchmark
    public long logAppend() {
        return log.append(record);
    }
}
