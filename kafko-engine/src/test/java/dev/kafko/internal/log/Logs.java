package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.io.FileIo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Helpers for the storage tests: deterministic records, opening, reading everything, copying a live log. */
final class Logs {

    static final String TOPIC = "t";

    private Logs() {
    }

    static PartitionLog open(Path dir, TopicConfig config, Clock clock) {
        return PartitionLog.open(TOPIC, 0, dir, config, clock, FileIo.SYSTEM);
    }

    static PartitionLog open(Path dir, TopicConfig config) {
        return open(dir, config, Clock.systemUTC());
    }

    /** Opens with fsyncs skipped: for tests that open and close logs hundreds of times. */
    static PartitionLog openWithoutSyncs(Path dir, TopicConfig config) {
        return PartitionLog.open(TOPIC, 0, dir, config, Clock.systemUTC(), new FaultyFileIo().syncs(false));
    }

    /** The value of the record at {@code offset} in every test that uses these helpers. */
    static byte[] value(long offset, int size) {
        byte[] v = new byte[size];
        byte[] tag = ("v" + offset + ";").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < size; i++) {
            v[i] = i < tag.length ? tag[i] : (byte) ('a' + (offset + i) % 7);
        }
        return v;
    }

    static OutgoingRecord record(long offset, int size) {
        return OutgoingRecord.of(("k" + offset).getBytes(StandardCharsets.UTF_8), value(offset, size));
    }

    static List<OutgoingRecord> batch(long firstOffset, int count, int size) {
        List<OutgoingRecord> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(record(firstOffset + i, size));
        }
        return out;
    }

    /** Appends {@code frames} frames of {@code perFrame} records of {@code size}-byte values. */
    static void appendFrames(PartitionLog log, int frames, int perFrame, int size) {
        for (int f = 0; f < frames; f++) {
            long base = log.endOffset();
            assertThat(log.append(batch(base, perFrame, size))).isEqualTo(base);
        }
    }

    /** Checks a record written by {@link #record}. */
    static void assertRecord(KafkoRecord r, long offset, int size) {
        assertThat(r.offset()).isEqualTo(offset);
        assertThat(r.key()).isEqualTo(("k" + offset).getBytes(StandardCharsets.UTF_8));
        assertThat(r.value()).isEqualTo(value(offset, size));
        assertThat(r.headers()).isEqualTo(Headers.empty());
    }

    /** Reads from {@code from} to the end in reads of at most {@code maxRecords}. */
    static List<KafkoRecord> readAll(PartitionLog log, long from, int maxRecords, int maxBytes) {
        List<KafkoRecord> out = new ArrayList<>();
        long next = from;
        while (next < log.endOffset()) {
            ReadResult r = log.read(next, maxRecords, maxBytes);
            assertThat(r.records()).isNotEmpty();
            assertThat(r.records().get(0).offset()).isEqualTo(next);
            out.addAll(r.records());
            next = r.nextOffset();
        }
        return out;
    }

    static List<KafkoRecord> readAll(PartitionLog log) {
        return readAll(log, log.logStartOffset(), 1000, 1 << 20);
    }

    /** Copies a partition directory as a crash would leave it (the page cache holds every stored byte). */
    static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.copy(p, to.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    static TopicConfig.Builder config() {
        return TopicConfig.builder();
    }
}
