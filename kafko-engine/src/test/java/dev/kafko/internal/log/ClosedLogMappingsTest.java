package dev.kafko.internal.log;

import static dev.kafko.internal.log.Logs.assertRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * B127 item 3: a closed log's segment files let go of their mappings, so that whatever still reaches them (a
 * handle kept to a deleted topic or a closed instance, a consumer's {@link VerifiedFrame}) keeps neither the
 * mappings nor a deleted file's blocks; a reader that comes to a segment after the close fails cleanly, and the
 * records read before keep their bytes.
 */
class ClosedLogMappingsTest {

    @TempDir
    Path dir;

    @Test
    void aClosedLogsSegmentsHoldNoMappingAndAReadOfThemAfterFailsWithKafkoClosed() throws IOException {
        ProcMaps.assumeReadable();
        Path logDir = dir.resolve("t-0");
        PartitionLog log = Logs.open(logDir, TopicConfig.builder().segmentBytes(4096).build());
        Logs.appendFrames(log, 80, 2, 100);
        List<KafkoRecord> kept = Logs.readAll(log);
        VerifiedFrame verified = new VerifiedFrame();
        log.read(0, 1, 1 << 20, verified); // a reader's frame, as a consumer keeps it
        Segment[] segments = log.segments(); // as a reader in flight holds them
        assertThat(segments.length).isGreaterThan(3);
        boolean[] mapped = new boolean[segments.length];
        for (int i = 0; i < segments.length; i++) {
            mapped[i] = segments[i].file().isMapped();
        }
        assertThat(mapped[segments.length - 1]).as("the active segment is mapped").isTrue();

        log.close(false);
        deleteTree(logDir); // as a deleteTopic does

        for (int i = 0; i < segments.length; i++) {
            Segment s = segments[i];
            assertThat(s.file().isMapped()).isFalse();
            assertThat(s.file().budgetWindows()).isZero();
            if (mapped[i]) {
                // a reader that took the segment before the close and reads it after: an exception, never a fault
                assertThatThrownBy(() -> s.read(s.baseOffset(), 10, 1 << 20, "t", 0, new ArrayList<>(), verified))
                        .isInstanceOf(KafkoClosedException.class);
            }
        }
        assertThatThrownBy(() -> log.read(0, 10, 1 << 20)).isInstanceOf(KafkoClosedException.class);
        // the records read before the close slice the mappings, and keep them while they are held
        checkKept(kept);
        kept = null;
        // before the fix the log (and so a topic's handle) kept every segment mapped, deleted, for good
        assertThat(ProcMaps.collectUntil(() -> ProcMaps.mappedSegments(logDir).isEmpty()))
                .as("segments still mapped: %s", ProcMaps.mappedSegments(logDir)).isTrue();
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.endOffset()).isEqualTo(160);
        assertThat(log.segmentCount()).isEqualTo(segments.length);
        Reference.reachabilityFence(log);
        Reference.reachabilityFence(segments);
        Reference.reachabilityFence(verified);
    }

    private static void checkKept(List<KafkoRecord> kept) {
        for (KafkoRecord r : kept) {
            assertRecord(r, r.offset(), 100);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
