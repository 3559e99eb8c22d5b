package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.KafkoRecord;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A reader whose reads stop inside a frame that needs a buffer of its own (a compressed frame, inflated;
 * a frame that crosses a mapping window, copied) makes that buffer once and reads on from it: every read
 * inflated or copied the whole frame again, so polls of one record over a frame of 2,000 inflated it
 * 2,000 times, and records kept from those polls held 2,000 copies of it (an outside test ran out of a
 * 4 GiB heap).
 */
class FrameSectionReuseTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void smallReadsOfACompressedFrameShareOneInflatedSection(Compression codec) {
        try (PartitionLog log = Logs.open(dir, Logs.config().compression(codec).build())) {
            log.append(Logs.batch(0, 2_000, 100));
            log.append(Logs.batch(2_000, 10, 100));

            VerifiedFrame verified = new VerifiedFrame();
            List<KafkoRecord> kept = readInSmallReads(log, verified, 1, 2_010);

            Set<ByteBuffer> buffers = buffersOf(kept.subList(0, 2_000));
            assertThat(buffers).as("the first frame's records share one inflated section").hasSize(1);
            assertThat(buffersOf(kept.subList(2_000, 2_010))).hasSize(1).doesNotContainAnyElementsOf(buffers);
            for (int i = 0; i < kept.size(); i++) {
                Logs.assertRecord(kept.get(i), i, 100);
            }
            assertThat(verified.section).as("dropped once the frame was read to its end").isNull();
        }
    }

    @Test
    void smallReadsOfAFrameAcrossMappingWindowsShareOneCopy() {
        try (PartitionLog log = Logs.open(dir, Logs.config().build())) {
            // one frame of 24 MiB: it crosses the first 16 MiB window's end
            log.append(Logs.batch(0, 240, 100 * 1024));

            VerifiedFrame verified = new VerifiedFrame();
            List<KafkoRecord> kept = readInSmallReads(log, verified, 2, 240);

            Set<ByteBuffer> buffers = buffersOf(kept);
            assertThat(buffers).as("one copy of the frame for all the reads").hasSize(1);
            assertThat(buffers.iterator().next().isDirect()).isFalse();
            for (int i = 0; i < kept.size(); i += 37) {
                Logs.assertRecord(kept.get(i), i, 100 * 1024);
            }
            assertThat(verified.section).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4"})
    void readsInsideAFrameResumeAtTheRecordThePreviousOneStoppedBefore(Compression codec) {
        try (PartitionLog log = Logs.open(dir, Logs.config().compression(codec).build())) {
            log.append(Logs.batch(0, 5_000, 50));
            VerifiedFrame verified = new VerifiedFrame();
            long next = 0;
            while (next < 4_990) {
                ReadResult r = log.read(next, 7, 1 << 20, verified);
                for (int i = 0; i < r.records().size(); i++) {
                    Logs.assertRecord(r.records().get(i), next + i, 50);
                }
                next = r.nextOffset();
                // the next read starts where this one stopped, not at the frame's first record
                assertThat(verified.cursorOffset).isEqualTo(next);
                assertThat(verified.cursor[0]).isEqualTo((int) next);
            }
            // a read before the kept position (a seek back) walks from the frame's start again
            ReadResult back = log.read(1_000, 3, 1 << 20, verified);
            assertThat(back.records()).hasSize(3);
            Logs.assertRecord(back.records().get(0), 1_000, 50);
            assertThat(verified.cursorOffset).isEqualTo(1_003);
        }
    }

    @Test
    void aReaderWithoutAVerifiedFrameStillReadsEveryRecord() {
        try (PartitionLog log = Logs.open(dir, Logs.config().compression(Compression.LZ4).build())) {
            log.append(Logs.batch(0, 300, 100));

            List<KafkoRecord> all = Logs.readAll(log, 0, 7, 1 << 20);

            assertThat(all).hasSize(300);
            for (int i = 0; i < all.size(); i++) {
                Logs.assertRecord(all.get(i), i, 100);
            }
        }
    }

    private static List<KafkoRecord> readInSmallReads(PartitionLog log, VerifiedFrame verified, int perRead, int total) {
        List<KafkoRecord> kept = new ArrayList<>();
        long next = 0;
        while (next < total) {
            ReadResult r = log.read(next, perRead, 1 << 20, verified);
            assertThat(r.records()).hasSizeBetween(1, perRead);
            kept.addAll(r.records());
            next = r.nextOffset();
        }
        return kept;
    }

    private static Set<ByteBuffer> buffersOf(List<KafkoRecord> records) {
        Set<ByteBuffer> buffers = Collections.newSetFromMap(new IdentityHashMap<>());
        for (KafkoRecord r : records) {
            buffers.add(((LogRecord) r).buffer());
        }
        return buffers;
    }
}
