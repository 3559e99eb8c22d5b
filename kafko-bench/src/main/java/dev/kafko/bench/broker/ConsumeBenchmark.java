package dev.kafko.bench.broker;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.bench.BenchJvm;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A group consumer polling a log of 1,000,000 records of 256 bytes from start to end, over and
 * over (seekToBeginning at the end), 10,000 records per poll; and a group member committing its
 * position under fsync NEVER.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@State(Scope.Benchmark)
public class ConsumeBenchmark {

    static final int RECORDS = 1_000_000;
    static final int PER_POLL = 10_000;
    /** A small poll: ten of them per frame of 1,024 records. */
    static final int SMALL_POLL = 100;

    Path dir;
    Kafko kafko;
    Consumer consumer;
    Consumer smallPolls;
    Consumer committer;

    @Setup(Level.Trial)
    public void open() {
        dir = BenchDirs.create();
        kafko = Kafko.open(dir);
        kafko.createTopic("t", TopicConfig.builder().segmentBytes(256L << 20).build());
        Producer p = kafko.producer("t");
        byte[] value = new byte[ProduceBenchmark.VALUE_BYTES];
        List<OutgoingRecord> batch = new ArrayList<>();
        for (int i = 0; i < 1024; i++) {
            batch.add(OutgoingRecord.of(null, value));
        }
        for (int sent = 0; sent < RECORDS; sent += batch.size()) {
            p.sendBatch(batch.subList(0, Math.min(batch.size(), RECORDS - sent))).join();
        }
        consumer = kafko.groupConsumer("t", "bench", ConsumerOptions.DEFAULTS.withMaxPollRecords(PER_POLL));
        smallPolls = kafko.groupConsumer("t", "small", ConsumerOptions.DEFAULTS.withMaxPollRecords(SMALL_POLL));
        committer = kafko.groupConsumer("t", "committer");
    }

    @TearDown(Level.Trial)
    public void close() {
        consumer.close();
        smallPolls.close();
        committer.close();
        kafko.close();
        BenchDirs.delete(dir);
    }

    /** One poll of 10,000 records; the score counts records. */
    @Benchmark
    @OperationsPerInvocation(PER_POLL)
    public List<KafkoRecord> groupPoll() {
        return pollAround(consumer, PER_POLL);
    }

    /**
     * One poll of 100 records, so that each frame of 1,024 is read in ten pieces (its CRC is checked
     * by the first of them only); the score counts records.
     */
    @Benchmark
    @OperationsPerInvocation(SMALL_POLL)
    public List<KafkoRecord> groupPollSmall() {
        return pollAround(smallPolls, SMALL_POLL);
    }

    /** One poll that must return {@code expected} records; back to the beginning at the log's end. */
    private static List<KafkoRecord> pollAround(Consumer c, int expected) {
        List<KafkoRecord> got = c.poll(Duration.ofSeconds(1));
        if (got.size() != expected) {
            throw new IllegalStateException("poll returned " + got.size());
        }
        if (c.position(0) == RECORDS) {
            c.seekToBeginning();
        }
        return got;
    }

    /** One commit of a member's position. */
    @Benchmark
    public void commit() {
        committer.commit();
    }
}
