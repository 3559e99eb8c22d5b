package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random appends (tiny, channel-written and multi-MiB frames, compressed or not, timestamps equal, decreasing,
 * at 0 and Long.MAX_VALUE) interleaved with readers that keep their VerifiedFrame, seek, and fall behind
 * retention, and with timestamp lookups, against a model. Fixed seeds.
 */
class ReadsDifferentialTest {

    @TempDir
    Path dir;

    long[] ts = new long[1 << 20];
    int[] size = new int[1 << 20];
    int n;

    static byte[] key(long offset) {
        return ("k" + offset).getBytes(StandardCharsets.UTF_8);
    }

    @org.junit.jupiter.api.AfterEach
    void restoreTheBudget() {
        MappingBudget.setLimit(-1);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 7, 8})
    void readsMatchTheModel(int seed) {
        if (seed > 6) {
            // no room for any sealed segment's windows: their reads are positional reads
            MappingBudget.setLimit(0);
        }
        for (int round = 0; round < 1; round++) {
            run(seed * 10 + round, dir.resolve("r" + round));
        }
    }

    void run(int seed, Path dir) {
        Random rnd = new Random(seed);
        n = 0;
        ts = new long[1 << 20];
        size = new int[1 << 20];
        Compression c = Compression.values()[seed % 3];
        TopicConfig config = TopicConfig.builder().compression(c).segmentBytes(18 << 20).retentionBytes(30 << 20)
                .maxRecordBytes(8 << 20).indexIntervalBytes(64 + rnd.nextInt(8192)).build();
        ExecutorService preparer = seed % 2 == 0 ? Executors.newSingleThreadExecutor() : null;
        MutableClock clock = new MutableClock(1_000_000);
        PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, clock,
                new dev.kafko.internal.io.FaultyFileIo().syncs(false), preparer);
        try {
            long[] pos = new long[4];
            VerifiedFrame[] vf = new VerifiedFrame[4];
            for (int i = 0; i < vf.length; i++) {
                vf[i] = new VerifiedFrame();
            }
            for (int step = 0; step < 600; step++) {
                if (step == 300) {
                    // reopen: sealed segments come back unmapped, the active one from its index or a scan
                    log.close(rnd.nextBoolean());
                    log = PartitionLog.open(Logs.TOPIC, 0, dir, config, clock, new dev.kafko.internal.io.FaultyFileIo().syncs(false),
                            preparer);
                    assertThat(log.endOffset()).isEqualTo(n);
                    for (int i = 0; i < vf.length; i++) {
                        vf[i] = new VerifiedFrame();
                    }
                }
                int what = rnd.nextInt(10);
                if (what < 4) {
                    append(log, rnd, clock);
                } else if (what < 9) {
                    int r = rnd.nextInt(pos.length);
                    if (rnd.nextInt(20) == 0) {
                        long start = log.logStartOffset();
                        pos[r] = start + (long) (rnd.nextDouble() * (log.endOffset() - start + 1));
                    }
                    pos[r] = read(log, pos[r], rnd, vf[r]);
                } else if (rnd.nextInt(4) == 0) {
                    log.applyRetention();
                } else {
                    lookup(log, rnd);
                }
            }
            for (int r = 0; r < pos.length; r++) {
                long p = Math.max(pos[r], log.logStartOffset());
                while (p < log.endOffset()) {
                    p = read(log, p, rnd, vf[r]);
                }
            }
        } finally {
            log.close();
            if (preparer != null) {
                preparer.shutdown();
            }
        }
    }

    void append(PartitionLog log, Random rnd, MutableClock clock) {
        clock.advance(java.time.Duration.ofMillis(rnd.nextInt(3)));
        int shape = rnd.nextInt(10);
        int count = shape < 5 ? 1 + rnd.nextInt(300) : shape < 8 ? 1 + rnd.nextInt(3) : 1;
        List<OutgoingRecord> batch = new ArrayList<>();
        long base = log.endOffset();
        for (int i = 0; i < count; i++) {
            long offset = base + i;
            int s = shape < 5 ? rnd.nextInt(100) : shape < 8 ? 30_000 + rnd.nextInt(40_000) : (256 << 10) + rnd.nextInt(2 << 20);
            long t = switch (rnd.nextInt(8)) {
                case 0 -> OutgoingRecord.NO_TIMESTAMP;
                case 1 -> 0;
                case 2 -> Long.MAX_VALUE;
                case 3 -> n == 0 ? 5 : Math.max(0, ts[n - 1] == Long.MAX_VALUE ? 7 : ts[n - 1]);
                case 4 -> Math.max(0, clock.millis() - rnd.nextInt(100_000));
                default -> clock.millis() + rnd.nextInt(50);
            };
            batch.add(OutgoingRecord.of(key(offset), rnd.nextInt(30) == 0 ? null : Logs.value(offset, s),
                    Headers.empty(), t));
            ts[(int) offset] = t == OutgoingRecord.NO_TIMESTAMP ? clock.millis() : t;
            size[(int) offset] = batch.get(i).value() == null ? -1 : s;
        }
        long got = count == 1 && rnd.nextBoolean() ? log.append(batch.get(0)) : log.append(batch);
        assertThat(got).isEqualTo(base);
        n = (int) (base + count);
    }

    long read(PartitionLog log, long from, Random rnd, VerifiedFrame vf) {
        int maxRecords = rnd.nextInt(4) == 0 ? 1 : 1 + rnd.nextInt(700);
        int maxBytes = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(100) : 1 + rnd.nextInt(3 << 20);
        long start = log.logStartOffset();
        List<KafkoRecord> got;
        long next;
        try {
            var res = log.read(from, maxRecords, maxBytes, vf);
            got = res.records();
            next = res.nextOffset();
        } catch (OffsetOutOfRangeException e) {
            assertThat(from).as("out of range at %d (start %d, end %d)", from, start, log.endOffset())
                    .isLessThan(log.logStartOffset());
            return log.logStartOffset();
        }
        if (from < log.endOffset()) {
            assertThat(got).as("at least one record at %d", from).isNotEmpty();
        }
        assertThat(got.size()).isLessThanOrEqualTo(maxRecords);
        long o = from;
        for (KafkoRecord r : got) {
            assertThat(r.offset()).isEqualTo(o);
            assertThat(r.timestamp()).as("ts at %d", o).isEqualTo(ts[(int) o]);
            assertThat(r.key()).isEqualTo(key(o));
            if (size[(int) o] < 0) {
                assertThat(r.value()).isNull();
            } else {
                assertThat(Arrays.equals(r.value(), Logs.value(o, size[(int) o]))).as("value at %d", o).isTrue();
            }
            o++;
        }
        assertThat(next).isEqualTo(o);
        return o;
    }

    void lookup(PartitionLog log, Random rnd) {
        long start = log.logStartOffset();
        long end = log.endOffset();
        long target = switch (rnd.nextInt(5)) {
            case 0 -> Long.MIN_VALUE;
            case 1 -> Long.MAX_VALUE;
            case 2 -> 0;
            default -> end == start ? 0 : ts[(int) (start + rnd.nextInt((int) (end - start)))] + rnd.nextInt(3) - 1;
        };
        long expected = end;
        for (long o = start; o < end; o++) {
            if (ts[(int) o] >= target) {
                expected = o;
                break;
            }
        }
        assertThat(log.offsetForTimestamp(target)).as("lookup of %d", target).isEqualTo(expected);
    }
}
