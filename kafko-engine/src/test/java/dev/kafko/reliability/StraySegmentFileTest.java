package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.CorruptLogException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stray segment files named inside another segment's offsets, found by {@code DirectoryOpenFuzzTest}: an empty
 * one named inside the active segment is no new active segment (it moved the end back below acknowledged records,
 * and a new send took an offset again, then lost to the old record after a clean reopen), and a read that starts
 * in a segment whose frames run past the next one's base returns none of the next segment's offsets (they are
 * read from the next segment, as FORMAT.md says, whatever offset the read started at). Such a segment that holds
 * records, named inside the segment written last, fails the open: as the active segment it hid the records after it.
 */
class StraySegmentFileTest {

    @TempDir
    Path dir;

    @Test
    void anEmptyStraySegmentNamedInsideTheActiveSegmentHidesNoRecordAndLosesNoSend() throws Exception {
        write(dir, "t", 1024, "a", 50);
        Path partition = dir.resolve("t/0");
        List<Long> bases = bases(partition);
        long active = bases.get(bases.size() - 1);
        assertThat(50 - active).isGreaterThan(2);
        Files.write(partition.resolve(String.format("%020d.log", active + 1)), new byte[0]);

        long added;
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).as("end after the stray").isEqualTo(50);
            Map<Long, String> read = readAll(k, 0);
            assertThat(read).hasSize(50);
            added = k.producer("t").send(null, "new".getBytes()).join().offset();
            assertThat(added).isEqualTo(50);
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(51);
            Map<Long, String> read = readAll(k, 0);
            assertThat(read).hasSize(51);
            for (long o = 0; o < 50; o++) {
                assertThat(read.get(o)).isEqualTo(value("a", o));
            }
            assertThat(read.get(50L)).isEqualTo("new");
        }
    }

    @Test
    void aReadStartingInAnOverlappingSegmentReturnsTheNextSegmentsOffsetsFromIt() throws Exception {
        // the same record sizes in 4 KiB and in 1 KiB segments: the second layout has a segment at 13
        Path other = dir.resolve("other");
        write(dir, "t", 4096, "a", 100);
        write(other, "t", 1024, "b", 50);
        List<Long> bases = bases(dir.resolve("t/0"));
        List<Long> otherBases = bases(other.resolve("t/0"));
        long stray = otherBases.get(1);
        long strayEnd = otherBases.get(2);
        assertThat(bases).hasSize(2);
        assertThat(bases.get(1)).as("a segment after the stray's offsets").isGreaterThan(strayEnd);
        Files.copy(other.resolve("t/0").resolve(String.format("%020d.log", stray)),
                dir.resolve("t/0").resolve(String.format("%020d.log", stray)));
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(100);
            // the offsets from the stray's end to the next segment's base are missing: reads stop before them
            Map<Long, String> fromStart = readAll(k, 0, strayEnd);
            Map<Long, String> fromStray = readAll(k, stray, strayEnd);
            for (long o = stray; o < strayEnd; o++) {
                assertThat(fromStart.get(o)).as("offset %d read from offset 0", o).isEqualTo(value("b", o));
                assertThat(fromStray.get(o)).as("offset %d read from offset %d", o, stray).isEqualTo(value("b", o));
            }
        }
    }

    /**
     * The same stray named inside the segment written last: opened as the active segment, it hid the records after
     * its own (the end moved back from 50 to the stray's end, and new sends took those offsets again). The open now
     * fails naming it, releases the directory, and once the file is moved away every record is there.
     */
    @Test
    void aStrayNamedInsideTheSegmentWrittenLastFailsTheOpenAndHidesNothing() throws Exception {
        Path other = dir.resolve("other");
        write(dir, "t", 4096, "a", 50);
        write(other, "t", 1024, "b", 50);
        assertThat(bases(dir.resolve("t/0"))).containsExactly(0L);
        long stray = bases(other.resolve("t/0")).get(1);
        Path strayFile = dir.resolve("t/0").resolve(String.format("%020d.log", stray));
        Files.copy(other.resolve("t/0").resolve(String.format("%020d.log", stray)), strayFile);
        assertThatThrownBy(() -> Kafko.open(dir).close()).isInstanceOf(CorruptLogException.class)
                .hasMessageContaining(strayFile.toString());
        Files.delete(strayFile);
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(50);
            Map<Long, String> all = readAll(k, 0);
            assertThat(all).hasSize(50);
            for (long o = 0; o < 50; o++) {
                assertThat(all.get(o)).isEqualTo(value("a", o));
            }
        }
    }

    private static void write(Path dir, String topic, long segmentBytes, String prefix, int count) {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic(topic, TopicConfig.builder().segmentBytes(segmentBytes).build());
            for (long i = 0; i < count; i++) {
                k.producer(topic).send(null, value(prefix, i).getBytes()).join();
            }
        }
    }

    static String value(String prefix, long offset) {
        return String.format("%s-%03d-abcdefghabcdefgh", prefix, offset);
    }

    static List<Long> bases(Path partition) throws IOException {
        try (Stream<Path> s = Files.list(partition)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")).sorted()
                    .map(n -> Long.parseLong(n.substring(0, 20))).toList();
        }
    }

    /** Every record from {@code from} to the end, by offset. */
    static Map<Long, String> readAll(Kafko k, long from) {
        return readAll(k, from, k.topic("t").orElseThrow().partition(0).endOffset());
    }

    /** Every record from {@code from} to {@code end} (exclusive; a poll may return a few past it), by offset. */
    static Map<Long, String> readAll(Kafko k, long from, long end) {
        Map<Long, String> out = new TreeMap<>();
        try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS)) {
            c.seek(0, from);
            List<KafkoRecord> got = new ArrayList<>();
            while (c.position(0) < end) {
                got.addAll(c.poll(Duration.ofMillis(200)));
            }
            for (KafkoRecord r : got) {
                assertThat(out.put(r.offset(), new String(r.value()))).as("offset %d read twice", r.offset()).isNull();
            }
        }
        return out;
    }
}
