package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Only {@code <20-digit offset>.log.swap} is the swap file of a merge an open finishes
 * ({@link FileNames#isSwapFile}); a file in a partition directory whose name merely ends like one (a copy, a
 * backup, a name of another tool) is no swap file: an open neither fails on it nor deletes or renames it, and no
 * segment is deleted for it.
 */
class SwapLookalikeFilesLeftAloneTest {

    private static final Duration AGE = Duration.ofMinutes(1);

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(1_700_000_000_000L);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "notes.swap",                          // no offset at all
        "00000000000000000000.idx.swap",       // a swap file's length, another suffix before .swap
        "00000000000000000000.old.log.swap",   // an offset, then more before .log.swap
        "0000000000000000000a.log.swap",       // 20 characters that are not all digits
        "99999999999999999999.log.swap",       // 20 digits past the largest offset
    })
    void anOpenLeavesAFileThatOnlyLooksLikeASwapFileAndEverySegment(String name) throws IOException {
        TopicConfig config = TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).segmentAge(AGE)
                .build();
        List<String> expected;
        List<String> segments;
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
            for (int i = 0; i < 60; i++) {
                log.append(OutgoingRecord.of(bytes("k" + i), bytes("v" + i)));
            }
            assertThat(log.segments().length).isGreaterThan(2);
            expected = records(log);
            segments = segmentFiles();
        }
        // the bytes of the segment the name points at, damaged: taken for a swap file, it would fail the open, or,
        // read whole, replace segments
        byte[] junk = Files.readAllBytes(FileNames.segmentFile(dir, 0));
        junk[junk.length - 1] ^= 0x01;
        Path lookalike = dir.resolve(name);
        Files.write(lookalike, junk);
        assertThat(FileNames.isSwapFile(name)).isFalse();

        for (int open = 0; open < 2; open++) {
            try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, FileIo.SYSTEM)) {
                assertThat(records(log)).isEqualTo(expected);
            }
            assertThat(lookalike).as("left as it was").hasBinaryContent(junk);
            assertThat(segmentFiles()).isEqualTo(segments);
        }
    }

    private List<String> segmentFiles() throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(FileNames::isSegmentFile).sorted().toList();
        }
    }

    private static List<String> records(PartitionLog log) {
        List<String> out = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.endOffset()) {
            ReadResult r = log.read(next, 1000, 1 << 20);
            for (KafkoRecord rec : r.records()) {
                out.add(rec.offset() + " " + new String(rec.value(), StandardCharsets.UTF_8));
            }
            next = r.nextOffset();
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
