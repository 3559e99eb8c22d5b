package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConcurrencyTest {

    private static final long SEED = 99L;
    private static final int VALUE = 64;

    @TempDir
    Path dir;

    @Test
    void readersRacingTheWriterAndRetentionSeeOnlyCorrectRecordsOrOutOfRange() throws Exception {
        TopicConfig config = TopicConfig.builder().segmentBytes(8 * 1024).retentionBytes(24 * 1024)
                .indexIntervalBytes(512).build();
        PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, Clock.systemUTC(),
                new FaultyFileIo().syncs(false));
        AtomicBoolean done = new AtomicBoolean();
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        AtomicLong recordsRead = new AtomicLong();
        AtomicLong outOfRange = new AtomicLong();
        Thread[] readers = new Thread[2];
        for (int t = 0; t < readers.length; t++) {
            Random rnd = new Random(SEED + t);
            readers[t] = new Thread(() -> {
                long next = 0;
                try {
                    while (!done.get() || next < log.endOffset()) {
                        if (rnd.nextInt(8) == 0) {
                            // jump to the oldest records: the ones retention is about to delete
                            next = log.logStartOffset();
                        }
                        try {
                            ReadResult r = log.read(next, 1 + rnd.nextInt(50), 64 + rnd.nextInt(4096));
                            for (KafkoRecord rec : r.records()) {
                                Logs.assertRecord(rec, next, VALUE);
                                next++;
                            }
                            recordsRead.addAndGet(r.records().size());
                            if (r.records().isEmpty()) {
                                LockSupport.parkNanos(100_000);
                            }
                        } catch (OffsetOutOfRangeException e) {
                            outOfRange.incrementAndGet();
                            next = log.logStartOffset() + rnd.nextInt(20);
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "reader-" + t);
            readers[t].start();
        }
        try {
            for (int f = 0; f < 4000; f++) {
                Logs.appendFrames(log, 1, 1 + f % 4, VALUE);
                if (f % 5 == 0) {
                    log.applyRetention();
                }
            }
        } finally {
            done.set(true);
            for (Thread t : readers) {
                t.join(TimeUnit.SECONDS.toMillis(30));
            }
            log.close();
        }
        assertThat(errors).isEmpty();
        assertThat(recordsRead.get()).isPositive();
        assertThat(log.logStartOffset()).isPositive();
        System.out.println("read " + recordsRead + " records, " + outOfRange + " out-of-range restarts");
    }

    @Test
    void overlappingWriterCallsBreakTheSingleWriterRule() throws Exception {
        CountDownLatch inFlush = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean hold = new AtomicBoolean();
        FaultyFileIo io = new FaultyFileIo().beforeForce(() -> {
            if (hold.get()) {
                inFlush.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, TopicConfig.DEFAULTS, Clock.systemUTC(), io)) {
            log.append(Logs.record(0, 10));
            hold.set(true);
            Thread owner = new Thread(log::flush, "owner");
            owner.start();
            assertThat(inFlush.await(10, TimeUnit.SECONDS)).isTrue();
            try {
                assertThatThrownBy(() -> log.append(Logs.record(1, 10))).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("single-writer").hasMessageContaining("owner");
                // readers are not writers: they go on while the owner is busy
                assertThat(log.read(0, 1, 1).records()).hasSize(1);
            } finally {
                hold.set(false);
                release.countDown();
                owner.join();
            }
            assertThat(log.append(Logs.record(1, 10))).isEqualTo(1);
        }
    }
}
