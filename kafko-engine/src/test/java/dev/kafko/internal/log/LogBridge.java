package dev.kafko.internal.log;

import dev.kafko.Compression;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.internal.io.FileIo;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Test-only: opens the package-private parsers of the storage layer to the reliability and fuzz
 * suites (dev.kafko.reliability, dev.kafko.fuzz). Each method calls exactly one production method.
 */
public final class LogBridge {

    public static final int FRAME_HEADER_SIZE = FrameFormat.HEADER_SIZE;
    public static final int SEGMENT_HEADER_SIZE = FrameFormat.SEGMENT_HEADER_SIZE;
    public static final int RECORDS_LENGTH_OFFSET = FrameFormat.RECORDS_LENGTH_OFFSET;
    public static final int ATTRIBUTES_OFFSET = FrameFormat.ATTRIBUTES_OFFSET;

    private LogBridge() {
    }

    /** {@link FrameFormat#plausibleHeader}: the check every reader makes before decoding a frame. */
    public static boolean plausibleHeader(byte[] frame, int length) {
        return FrameFormat.plausibleHeader(frame, 0, length);
    }

    /** {@link FrameDecoder#decode} of the whole of {@code frame}. */
    public static int decode(byte[] frame, List<KafkoRecord> out) {
        return FrameDecoder.decode(frame, 0, frame.length, Long.MIN_VALUE, Integer.MAX_VALUE, "t", 0, out);
    }

    /** {@link Codec#decompress} of {@code compression}. */
    public static byte[] decompress(Compression compression, byte[] src, int dstLen) {
        return Codec.of(compression).decompress(src, 0, src.length, dstLen);
    }

    /** Encodes one frame as the writer would (CRC included). */
    public static byte[] encode(Compression compression, List<OutgoingRecord> records, long baseOffset, long now) {
        FrameEncoder e = new FrameEncoder("t-0", compression, 1 << 20);
        int n = e.encode(records, baseOffset, now);
        return Arrays.copyOf(e.buffer(), n);
    }

    /** Rewrites the CRC of a frame after a test changed it on purpose. */
    public static void fixCrc(byte[] frame) {
        FrameFormat.putInt(frame, FrameFormat.CRC_OFFSET, FrameFormat.frameCrc(new java.util.zip.CRC32C(), frame, 0,
                frame.length));
    }

    /**
     * {@link MappingBudget#setLimit}: with 0 no sealed segment is mapped after a reopen (its reads are positional
     * reads through channels opened at the read); a negative limit restores the configured one.
     */
    public static void setMappingLimit(int windows) {
        MappingBudget.setLimit(windows);
    }

    /** {@link IndexFiles#load}: whether the index files of the segment at {@code base} were accepted. */
    public static boolean indexLoads(FileIo io, Path dir, long base) {
        return IndexFiles.load(io, dir, base) != null;
    }
}
