package dev.kafko.bench.log;

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
 * Opens and closes the {@value #PARTITIONS} partition logs of one topic, as an application start and
 * stop does: {@code reopenIdle} opens and closes them without an append; {@code reopenAppendClose}
 * appends one record to each before closing (so each close makes the log durable and writes its
 * index files and marker). Scores are milliseconds for all partitions, real fsyncs included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@Warmup(iterations = 3)
@Measurement(iterations = 10)
public class LogOpenCloseBenchmark {

    static final int PARTITIONS = 16;

    private final OutgoingRecord record = OutgoingRecord.of(null, BenchFiles.value(1, 256));
    private Path dir;

    @Setup(Level.Trial)
    public void createLogs() {
        dir = BenchFiles.tempDir("kafko-open");
        PartitionLog[] logs = open();
        for (PartitionLog log : logs) {
            for (int i = 0; i < 100; i++) {
                log.append(record);
            }
            log.close();
        }
    }

    @TearDown(Level.Trial)
    public void deleteLogs() {
        BenchFiles.deleteTree(dir);
    }

    private PartitionLog[] open() {
        PartitionLog[] logs = new PartitionLog[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            logs[p] = PartitionLog.open("bench", p, dir.resolve(Integer.toString(p)), TopicConfig.DEFAULTS,
                    Clock.systemUTC(), FileIo.SYSTEM);
        }
        return logs;
    }

    @Benchmark
    public long reopenIdle() {
        long end = 0;
        for (PartitionLog log : open()) {
            end += log.endOffset();
            log.close();
        }
        return end;
    }

    @Benchmark
    public long reopenAppendClose() {
        long end = 0;
        for (PartitionLog log : open()) {
            end += log.append(record);
            log.close();
        }
        return end;
    }
}
