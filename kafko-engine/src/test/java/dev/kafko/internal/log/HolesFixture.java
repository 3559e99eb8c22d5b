package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

/**
 * A compacted partition whose frames hold holes, and a model of it: batches of records of a few hundred keys (fixed
 * seed), their timestamps out of order, in segments of 16 KiB, compacted once every segment before a tail record is
 * sealed; and the checks every read path must pass against the model (each offset, every read size, a reader that
 * jumps about in frames, lookups by time).
 */
final class HolesFixture {

    static final Duration AGE = Duration.ofMinutes(1);
    static final long T0 = 1_700_000_000_000L;

    /** What was sent at an offset. */
    record Sent(String key, byte[] value, long timestamp, Headers headers) {
    }

    final MutableClock clock = new MutableClock(T0);
    /**
     * Whether {@link #assertReadsAsModel} skips the reads of one record from each offset and the scans without a
     * reader's verified frame: a read of the segment being written without one copies up to 1 MiB with {@code pread}.
     */
    boolean fewerReads;
    /** Every record appended, by offset. */
    final NavigableMap<Long, Sent> sent = new TreeMap<>();
    private final Random rnd;

    HolesFixture(long seed) {
        this.rnd = new Random(seed);
    }

    static TopicConfig config(Compression compression) {
        return config(compression, 16 << 10);
    }

    static TopicConfig config(Compression compression, int segmentBytes) {
        return TopicConfig.builder().compact().compression(compression).segmentBytes(segmentBytes).segmentAge(AGE)
                .indexIntervalBytes(512).build();
    }

    /** Appends {@code records} records in batches of 1 to 40, of {@code keys} keys, their timestamps shuffled. */
    void append(PartitionLog log, int records, int keys) {
        int done = 0;
        while (done < records) {
            int n = Math.min(records - done, 1 + rnd.nextInt(40));
            List<OutgoingRecord> batch = new ArrayList<>(n);
            long base = log.endOffset();
            for (int i = 0; i < n; i++) {
                String key = String.format("k%03d", rnd.nextInt(keys));
                byte[] value = new byte[rnd.nextInt(60)];
                rnd.nextBytes(value);
                long ts = clock.millis() - 10_000 + rnd.nextInt(10_000);
                Headers headers = rnd.nextInt(4) == 0 ? Headers.of("h", new byte[] {(byte) i}) : Headers.empty();
                batch.add(new OutgoingRecord(key.getBytes(StandardCharsets.UTF_8), value, headers, ts));
                sent.put(base + i, new Sent(key, value, ts, headers));
            }
            assertThat(log.append(batch)).isEqualTo(base);
            done += n;
        }
    }

    /** Seals every segment: the clock past the roll age, then one record of a key of its own. */
    void seal(PartitionLog log, String tailKey) {
        clock.advance(AGE.plusSeconds(1));
        long offset = log.endOffset();
        log.append(new OutgoingRecord(tailKey.getBytes(StandardCharsets.UTF_8), new byte[] {1}, Headers.empty(),
                clock.millis()));
        sent.put(offset, new Sent(tailKey, new byte[] {1}, clock.millis(), Headers.empty()));
    }

    /** Compacts {@code log} now under {@code config}; returns the records it removed. */
    long compact(PartitionLog log, TopicConfig config) {
        return log.applyCompaction(log.compaction().prepare(config, clock.millis(), true, () -> false), true);
    }

    /** The records that stay after a compaction of everything before {@code end}: the latest of each key before it. */
    NavigableMap<Long, Sent> kept(long end) {
        Map<String, Long> latest = new HashMap<>();
        for (Map.Entry<Long, Sent> e : sent.headMap(end, false).entrySet()) {
            latest.put(e.getValue().key(), e.getKey());
        }
        NavigableMap<Long, Sent> kept = new TreeMap<>(sent.tailMap(end, true));
        for (long o : latest.values()) {
            kept.put(o, sent.get(o));
        }
        return kept;
    }

    /** How many frames of the log's segments have holes, and how many are gap frames: {holes, gaps}. */
    static int[] frameKinds(PartitionLog log) {
        int[] kinds = new int[2];
        byte[] h = new byte[FrameFormat.HEADER_SIZE];
        for (Segment s : log.segments()) {
            int end = s.size();
            for (int pos = FrameFormat.SEGMENT_HEADER_SIZE; pos < end; ) {
                int len = s.readHeader(pos, end, h);
                if (FrameFormat.hasHoles(h)) {
                    kinds[0]++;
                }
                if (FrameFormat.isGap(h)) {
                    kinds[1]++;
                }
                pos += len;
            }
        }
        return kinds;
    }

    static void assertRecord(KafkoRecord r, Map.Entry<Long, Sent> expected) {
        assertThat(r.offset()).isEqualTo(expected.getKey());
        Sent s = expected.getValue();
        assertThat(new String(r.key(), StandardCharsets.UTF_8)).as("key at %d", r.offset()).isEqualTo(s.key());
        assertThat(r.value()).as("value at %d", r.offset()).isEqualTo(s.value());
        assertThat(r.timestamp()).as("timestamp at %d", r.offset()).isEqualTo(s.timestamp());
        assertThat(r.headers()).as("headers at %d", r.offset()).isEqualTo(s.headers());
    }

    /** The first record a reader at {@code offset} gets: reads on past offsets without records, as a consumer does. */
    static List<KafkoRecord> readFrom(PartitionLog log, long offset, int max, int maxBytes, VerifiedFrame verified,
            long[] next) {
        long o = offset;
        while (o < log.endOffset()) {
            ReadResult r = log.read(o, max, maxBytes, verified);
            assertThat(r.nextOffset()).as("a read from %d moves on", o).isGreaterThan(o);
            if (!r.records().isEmpty()) {
                next[0] = r.nextOffset();
                return r.records();
            }
            o = r.nextOffset();
        }
        next[0] = o;
        return List.of();
    }

    /** Every record from {@code from} on in reads of {@code max} records and about {@code maxBytes}. */
    static List<KafkoRecord> scan(PartitionLog log, long from, int max, int maxBytes, VerifiedFrame verified) {
        List<KafkoRecord> out = new ArrayList<>();
        long[] next = {from};
        while (next[0] < log.endOffset()) {
            List<KafkoRecord> got = readFrom(log, next[0], max, maxBytes, verified, next);
            assertThat(got.size()).isBetween(0, max);
            out.addAll(got);
        }
        return out;
    }

    /**
     * Every read path against {@code kept}: a read of one record from each offset, whole scans of several read sizes
     * (with and without a reader's {@link VerifiedFrame}), a reader that jumps about (back, forward inside a frame, to
     * an offset among removed ones) and lookups by time of every timestamp sent, and of those around them.
     */
    void assertReadsAsModel(PartitionLog log, NavigableMap<Long, Sent> kept, Random jumps) {
        long start = log.logStartOffset();
        long end = log.endOffset();
        assertThat(end).isEqualTo(sent.lastKey() + 1);
        long[] next = new long[1];
        for (long o = start; o < end && !fewerReads; o++) {
            List<KafkoRecord> got = readFrom(log, o, 1, 1 << 20, null, next);
            Map.Entry<Long, Sent> e = kept.ceilingEntry(o);
            assertThat(got).as("a read of one record at %d", o).hasSize(1);
            assertRecord(got.get(0), e);
            assertThat(next[0]).as("the next offset after a read at %d", o).isEqualTo(e.getKey() + 1);
        }
        List<Long> keptOffsets = new ArrayList<>(kept.tailMap(start, true).keySet());
        for (int max : new int[] {1, 2, 3, 7, 64, 5000}) {
            for (int maxBytes : new int[] {1, 700, 1 << 20}) {
                List<VerifiedFrame> readers = fewerReads ? List.of(new VerifiedFrame())
                        : Arrays.asList(null, new VerifiedFrame());
                for (VerifiedFrame v : readers) {
                    List<KafkoRecord> all = scan(log, start, max, maxBytes, v);
                    assertThat(all).as("records read %d at a time, %d bytes", max, maxBytes)
                            .extracting(KafkoRecord::offset).isEqualTo(keptOffsets);
                    for (KafkoRecord r : all) {
                        assertRecord(r, kept.ceilingEntry(r.offset()));
                    }
                }
            }
        }
        VerifiedFrame v = new VerifiedFrame();
        long at = start;
        for (int i = 0; i < 1500; i++) {
            int kind = jumps.nextInt(4);
            at = switch (kind) {
                case 0 -> start + (long) jumps.nextInt((int) (end - start));
                case 1 -> Math.max(start, at - jumps.nextInt(20));
                case 2 -> Math.min(end - 1, at + jumps.nextInt(20));
                default -> Math.min(end - 1, at);
            };
            int max = 1 + jumps.nextInt(6);
            List<KafkoRecord> got = readFrom(log, at, max, 1 << 20, v, next);
            assertThat(got).as("a read of %d at %d", max, at).isNotEmpty();
            Map.Entry<Long, Sent> e = kept.ceilingEntry(at);
            for (KafkoRecord r : got) {
                assertThat(e).as("a record at %d after the last kept one", r.offset()).isNotNull();
                assertRecord(r, e);
                e = kept.higherEntry(e.getKey());
            }
            at = next[0] >= end ? start : next[0];
        }
        // lookups of the times of 300 records (kept or removed) and of the instants around them
        List<Long> times = new ArrayList<>(List.of(0L, Long.MAX_VALUE));
        List<Sent> all = new ArrayList<>(sent.values());
        for (int i = 0; i < 300; i++) {
            long ts = all.get(jumps.nextInt(all.size())).timestamp();
            times.addAll(List.of(ts - 1, ts, ts + 1));
        }
        for (long t : times) {
            long expected = end;
            for (Map.Entry<Long, Sent> e : kept.tailMap(start, true).entrySet()) {
                if (e.getValue().timestamp() >= t) {
                    expected = e.getKey();
                    break;
                }
            }
            assertThat(log.offsetForTimestamp(t)).as("the first offset at or after time %d", t).isEqualTo(expected);
        }
    }
}
