package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Frames that end exactly at a mapping window's end, fill a staging buffer, a channel write's minimum, a segment. */
class ExactFitTest {

    /** A one-record frame of exactly {@code frame} bytes (uncompressed). */
    static OutgoingRecord frameOf(int frame, long offset) {
        int v = frame;
        while (FrameFormat.HEADER_SIZE + AppendSizes.encodedSize(OutgoingRecord.of(null, new byte[v])) > frame) {
            v--;
        }
        OutgoingRecord r = OutgoingRecord.of(null, Logs.value(offset, v), Headers.empty(), 1_000 + offset);
        assertThat(FrameFormat.HEADER_SIZE + AppendSizes.encodedSize(r)).as("frame of %d", frame).isEqualTo(frame);
        return r;
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void framesOnEveryEdgeReadBack(boolean withPreparer, @TempDir Path dir) {
        int segment = 32 << 20;
        TopicConfig config = TopicConfig.builder().segmentBytes(segment).maxRecordBytes(16 << 20).build();
        ExecutorService preparer = withPreparer ? Executors.newSingleThreadExecutor() : null;
        List<OutgoingRecord> written = new ArrayList<>();
        try {
            try (PartitionLog log = PartitionLog.open(Logs.TOPIC, 0, dir, config, java.time.Clock.systemUTC(),
                    new dev.kafko.internal.io.FaultyFileIo().syncs(false), preparer)) {
                int[] frames = {100, SegmentFile.CHANNEL_WRITE_MIN - 1, SegmentFile.CHANNEL_WRITE_MIN,
                    StagingBuffers.SIZE, StagingBuffers.SIZE + 1, 4096 - 16};
                for (int f : frames) {
                    written.add(frameOf(f, written.size()));
                    log.append(written.get(written.size() - 1));
                }
                // up to exactly the first window's end, a frame straddling nothing
                int at = log.segments()[0].size();
                while (SegmentFile.WINDOW_SIZE - at > (3 << 20)) {
                    written.add(frameOf(2 << 20, written.size()));
                    log.append(written.get(written.size() - 1));
                    at += 2 << 20;
                }
                written.add(frameOf(SegmentFile.WINDOW_SIZE - at, written.size()));
                log.append(written.get(written.size() - 1));
                assertThat(log.segments()[0].size()).isEqualTo(SegmentFile.WINDOW_SIZE);
                // a small store at the very start of the second window, then one straddling into... the segment's end
                written.add(frameOf(60, written.size()));
                log.append(written.get(written.size() - 1));
                at = log.segments()[0].size();
                while (segment - at > (3 << 20)) {
                    written.add(frameOf((2 << 20) + 7, written.size()));
                    log.append(written.get(written.size() - 1));
                    at += (2 << 20) + 7;
                }
                written.add(frameOf(segment - at, written.size()));
                log.append(written.get(written.size() - 1));
                assertThat(log.segments()[0].size()).isEqualTo(segment);
                assertThat(log.segmentCount()).isEqualTo(1);
                written.add(frameOf(61, written.size()));
                log.append(written.get(written.size() - 1));
                assertThat(log.segmentCount()).isEqualTo(2);
                readAll(log, written);
            }
            try (PartitionLog log = Logs.openWithoutSyncs(dir, config)) {
                readAll(log, written);
            }
        } finally {
            if (preparer != null) {
                preparer.shutdown();
            }
        }
    }

    static void readAll(PartitionLog log, List<OutgoingRecord> written) {
        for (int maxBytes : new int[] {1, 4096, 1 << 20, 40 << 20}) {
            VerifiedFrame vf = new VerifiedFrame();
            long o = 0;
            while (o < written.size()) {
                List<KafkoRecord> got = log.read(o, 1 + (int) (o % 3), maxBytes, vf).records();
                assertThat(got).isNotEmpty();
                for (KafkoRecord r : got) {
                    assertThat(r.offset()).isEqualTo(o);
                    assertThat(Arrays.equals(r.value(), written.get((int) o).value())).as("value at %d", o).isTrue();
                    o++;
                }
            }
            // every start, fresh
            for (long s = 0; s < written.size(); s++) {
                assertThat(log.read(s, 1, maxBytes).records().get(0).timestamp()).isEqualTo(1_000 + s);
            }
        }
    }
}
