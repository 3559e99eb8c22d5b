package dev.kafko.bench.log;

import dev.kafko.Compression;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.bench.BenchJvm;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.PartitionLog;
import dev.kafko.internal.log.ReadResult;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Reads a whole partition log of {@value #RECORDS} records (256-byte values, written in frames of
 * 1024) from start to end, the way a consumer polls: reads of up to 2048 records and 1 MiB, every
 * frame CRC-checked and decoded. {@code readAll} hands each record to the blackhole;
 * {@code readAllCopyingValues} also copies every value out. Scores are records per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class LogReadBenchmark {

    static final int RECORDS = 1 << 20;

    @Param({"NONE"})
    public Compression compression;

    private Path dir;
    private PartitionLog log;

    @Setup(Level.Trial)
    public void writeLog() {
        dir = BenchFiles.tempDir("kafko-read");
        log = PartitionLog.open("bench", 0, dir, TopicConfig.builder().compression(compression).build(),
                Clock.systemUTC(), FileIo.SYSTEM);
        List<OutgoingRecord> batch = new ArrayList<>(1024);
        for (int i = 0; i < RECORDS; i++) {
            batch.add(OutgoingRecord.of(("key-" + i).getBytes(StandardCharsets.UTF_8), BenchFiles.value(i, 256)));
            if (batch.size() == 1024) {
                log.append(batch);
                batch.clear();
            }
        }
    }

    @TearDown(Level.Trial)
    public void deleteLog() {
        log.close();
        BenchFiles.deleteTree(dir);
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long readAll(Blackhole bh) {
        long next = 0;
        long end = log.endOffset();
        while (next < end) {
            ReadResult r = log.read(next, 2048, 1 << 20);
            for (KafkoRecord rec : r.records()) {
                bh.consume(rec);
            }
            next = r.nextOffset();
        }
        return next;
    }

    @Benchmark
    @OperationsPerInvocation(RECORDS)
    public long readAllCopyingValues(Blackhole bh) {
        long next = 0;
        long end = log.endOffset();
        while (next < end) {
            ReadResult r = log.read(next, 2048, 1 << 20);
            for (KafkoRecord rec : r.records()) {
                bh.consume(rec.value());
            }
            next = r.nextOffset();
        }
        return next;
    }
}
