package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An index file that passes its CRC is still refused when what it says cannot describe a segment: entries out of
 * order, a position past the segment's size, a time index that names other offsets, an end before the base, a
 * size below the segment header, more entries than frames fit in the segment. Each is written here with a valid
 * CRC, so that only the check named can refuse it.
 */
class IndexFilesEdgesTest {

    private static final long BASE = 1_000;
    private static final int SIZE = 16 + 10 * 100;

    @TempDir
    Path dir;

    @Test
    void aWrittenSnapshotReadsBackAsWritten() {
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, index(3), BASE + 30, SIZE, 777L, false);
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, BASE, SIZE);
        assertThat(snap).isNotNull();
        assertThat(snap.index().sameEntries(index(3))).isTrue();
        assertThat(snap.nextOffset()).isEqualTo(BASE + 30);
        assertThat(snap.segmentSize()).isEqualTo(SIZE);
        assertThat(snap.maxTimestamp()).isEqualTo(777L);
    }

    @Test
    void anIndexWithoutEntriesReadsBack() {
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, new OffsetIndex(), BASE, 16, Long.MIN_VALUE, false);
        IndexFiles.Snapshot snap = IndexFiles.load(FileIo.SYSTEM, dir, BASE, 16);
        assertThat(snap).isNotNull();
        assertThat(snap.index().count()).isZero();
        assertThat(snap.nextOffset()).isEqualTo(BASE);
        assertThat(snap.segmentSize()).isEqualTo(16);
    }

    @Test
    void entriesWhosePositionsDoNotGrowAreRefused() {
        OffsetIndex index = index(2);
        index.add(20, 16 + 100, 300); // the offset grows, the position stays
        assertRefused(index, BASE + 40, SIZE);
    }

    @Test
    void entriesWhoseOffsetsDoNotGrowAreRefused() {
        OffsetIndex index = index(2);
        index.add(10, 16 + 300, 300); // the position grows, the offset stays
        assertRefused(index, BASE + 40, SIZE);
    }

    @Test
    void entriesWhoseTimestampsFallAreRefused() {
        OffsetIndex index = index(2);
        index.add(20, 16 + 200, 99); // below the entry before it (100)
        assertRefused(index, BASE + 30, SIZE);
    }

    @Test
    void entriesWithEqualTimestampsAreKept() {
        OffsetIndex index = index(2);
        index.add(20, 16 + 200, 100);
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, index, BASE + 30, SIZE, 100L, false);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, SIZE)).isNotNull();
    }

    @Test
    void anEntryAtOrPastTheRecordedSegmentSizeIsRefused() {
        OffsetIndex index = index(2);
        index.add(20, SIZE, 200);
        assertRefused(index, BASE + 30, SIZE);
        OffsetIndex below = index(2);
        below.add(20, SIZE - 1, 200);
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, below, BASE + 30, SIZE, 200L, false);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, SIZE)).as("one byte before the end").isNotNull();
    }

    @Test
    void aNextOffsetBeforeTheBaseIsRefusedAndOneAtItIsKept() {
        assertRefused(new OffsetIndex(), BASE - 1, 16);
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, new OffsetIndex(), BASE, 16, Long.MIN_VALUE, false);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, 16)).isNotNull();
    }

    @Test
    void aSegmentSizeBelowTheSegmentHeaderIsRefused() {
        assertRefused(new OffsetIndex(), BASE, 15);
    }

    @Test
    void moreEntriesThanFramesFitInTheSegmentFileAreRefusedUnread() {
        // 10 entries: a segment file needs 16 + 10 * 44 bytes to hold that many frames
        OffsetIndex index = new OffsetIndex();
        for (int i = 0; i < 10; i++) {
            index.add(i, 16 + 44 * i, i);
        }
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, index, BASE + 10, 16 + 44 * 10, 9L, false);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, 16 + 44 * 10)).as("exactly room for them").isNotNull();
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, 16 + 44 * 10 - 1)).as("one byte short").isNull();
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE)).as("no segment size given").isNotNull();
    }

    @Test
    void aTimeIndexThatNamesAnotherOffsetIsRefused() throws IOException {
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, index(3), BASE + 30, SIZE, 300L, false);
        Path time = FileNames.timeIndexFile(dir, BASE);
        byte[] b = Files.readAllBytes(time);
        // the relative offset of the second entry, with the CRC made to match
        int at = IndexFiles.TIME_HEADER_SIZE + IndexFiles.TIME_ENTRY_SIZE + 8;
        FrameFormat.putInt(b, at, FrameFormat.getInt(b, at) + 1);
        FrameFormat.putInt(b, IndexFiles.TIME_CRC_OFFSET, crc(b, IndexFiles.TIME_CRC_OFFSET));
        Files.write(time, b);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, SIZE)).isNull();
    }

    @Test
    void aTimeIndexOfAnotherVersionOrBaseIsRefused() throws IOException {
        for (int field : new int[] {4, 8}) {
            IndexFiles.write(FileIo.SYSTEM, dir, BASE, index(3), BASE + 30, SIZE, 300L, false);
            Path time = FileNames.timeIndexFile(dir, BASE);
            byte[] b = Files.readAllBytes(time);
            b[field] ^= 1;
            FrameFormat.putInt(b, IndexFiles.TIME_CRC_OFFSET, crc(b, IndexFiles.TIME_CRC_OFFSET));
            Files.write(time, b);
            assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, SIZE)).as("field at %d", field).isNull();
        }
    }

    @Test
    void anIndexOfAnotherVersionIsRefused() throws IOException {
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, index(3), BASE + 30, SIZE, 300L, false);
        Path idx = FileNames.indexFile(dir, BASE);
        byte[] b = Files.readAllBytes(idx);
        b[4] ^= 1;
        FrameFormat.putInt(b, IndexFiles.INDEX_CRC_OFFSET, crc(b, IndexFiles.INDEX_CRC_OFFSET));
        Files.write(idx, b);
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, SIZE)).isNull();
    }

    private void assertRefused(OffsetIndex index, long nextOffset, int segmentSize) {
        IndexFiles.write(FileIo.SYSTEM, dir, BASE, index, nextOffset, segmentSize, Long.MAX_VALUE, false);
        assertThat(Files.exists(FileNames.indexFile(dir, BASE))).isTrue();
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE, SIZE)).isNull();
        assertThat(IndexFiles.load(FileIo.SYSTEM, dir, BASE)).isNull();
    }

    /** Entries every 10 offsets and 100 bytes, the records before entry i stamped up to 100 * i. */
    private static OffsetIndex index(int entries) {
        OffsetIndex index = new OffsetIndex();
        for (int i = 0; i < entries; i++) {
            index.add(10 * i, 16 + 100 * i, i == 0 ? Long.MIN_VALUE : 100L * i);
        }
        return index;
    }

    private static int crc(byte[] b, int crcOffset) {
        CRC32C c = new CRC32C();
        c.update(b, 0, crcOffset);
        c.update(b, crcOffset + 4, b.length - crcOffset - 4);
        return (int) c.getValue();
    }
}
