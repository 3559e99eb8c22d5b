package dev.kafko.internal.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Internal: how far and in what pieces {@link SegmentFile} writes the zeros its writer stores over (see
 * its class comment): the sizes of the steps, the pieces of zeros within a step, and the writes
 * themselves. Stateless; any thread.
 */
final class ZeroSteps {

    private static final int PAGE = 4096;

    /** The first step of zeros written ahead of the writer. */
    static final int ALLOCATION_STEP_MIN = 64 * 1024;
    /** Zeros are written ahead of the writer in steps of at most this many bytes. */
    static final int ALLOCATION_STEP_MAX = 8 << 20;
    /**
     * Zeros are written in aligned pieces of this size while a writer fills its file fast
     * ({@link #HUGE_PIECES_MIN_RATE}), each in one call, so that the page cache holds the region in one
     * huge folio (ext4 on Linux 6.16 or later) and a mapping takes one page fault for all of it:
     * single-record appends into such pieces ran about twice as fast here. The preparer then allocates
     * a step in pieces of this size, taking the lock for each.
     */
    static final int HUGE_PIECE = 2 << 20;
    /**
     * Otherwise the preparer allocates a step in pieces of at most this many bytes: it yields the CPU
     * after each one.
     */
    static final int PREPARE_PIECE = 1 << 20;
    /** Bytes per second from which a writer's zeros are written in huge pieces. */
    static final double HUGE_PIECES_MIN_RATE = 128e6;
    /**
     * Zeros are written in pieces of this many bytes: each {@code pwrite} holds the file's inode lock,
     * and a writer's {@code pwrite} of a frame waits for it (spinning, on a VM, while it runs), so the
     * pieces are kept short (1 MiB pieces cost a template-to-listener stream a tenth of its sender's CPU
     * in that spin; 64 KiB pieces made batch appends about a quarter slower with their extra calls).
     */
    static final int ZEROS_PER_WRITE = 256 * 1024;
    /**
     * Zeros are written one page per {@code pwrite} for a log that fsyncs as it appends: the kernel
     * sizes a page-cache folio by the write that allocates it and tracks dirtiness per folio, so a
     * store of a few hundred bytes into a clean 256 KiB folio made the next fsync write back all of
     * it (16 senders awaiting each send under {@code EVERY_BATCH}: 18 MB/s of records, 2 GB/s to
     * the disk).
     */
    static final int ZEROS_PER_WRITE_FSYNCED = PAGE;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(ZEROS_PER_WRITE).asReadOnlyBuffer();

    private ZeroSteps() {
    }

    /**
     * Writes zeros over {@code [from, target)}: in {@link #HUGE_PIECE}s, each one gathering write,
     * where {@code huge} and a whole aligned piece fits, otherwise in {@code pwrite}s of at most
     * {@code perWrite} bytes (at most {@link #ZEROS_PER_WRITE}) that never cross a huge piece's boundary.
     */
    static void write(FileChannel ch, long from, long target, boolean huge, int perWrite) throws IOException {
        long pos = from;
        while (pos < target) {
            if (huge && pos % HUGE_PIECE == 0 && target - pos >= HUGE_PIECE) {
                pos += writeHugePiece(ch, pos);
            } else {
                ByteBuffer z = ZEROS.duplicate();
                z.limit((int) Math.min(perWrite, Math.min(target - pos, HUGE_PIECE - pos % HUGE_PIECE)));
                pos += ch.write(z, pos);
            }
        }
    }

    /**
     * Writes {@value #HUGE_PIECE} zeros at {@code pos} with one gathering write (the kernel sizes a
     * page-cache folio by the length of the write it is allocated for); returns the bytes written, all
     * of them unless the write failed. The channel's own position is used by nothing else.
     */
    private static long writeHugePiece(FileChannel ch, long pos) throws IOException {
        ByteBuffer[] zeros = new ByteBuffer[HUGE_PIECE / ZEROS_PER_WRITE];
        for (int i = 0; i < zeros.length; i++) {
            zeros[i] = ZEROS.duplicate();
        }
        ch.position(pos);
        long written = 0;
        while (written < HUGE_PIECE) {
            written += ch.write(zeros);
        }
        return written;
    }

    /**
     * The next size for a file region of {@code current} bytes that must reach {@code end}: the region
     * doubles (from {@link #ALLOCATION_STEP_MIN}), in steps of at most {@link #ALLOCATION_STEP_MAX}, up
     * to {@code limit} (or {@code end}, when that is larger).
     */
    static long grownTarget(long current, long end, long limit) {
        long grown = Math.min(current + ALLOCATION_STEP_MAX, Math.max(ALLOCATION_STEP_MIN, 2 * current));
        return roundUp(Math.max(end, Math.min(limit, grown)));
    }

    /**
     * What a writer that caught up with its preparer allocates itself: a short step, or while its zeros
     * come in {@code huge} pieces, to the end of the piece holding {@code end}, so that the pieces stay
     * whole (a short step would leave that region in small folios for good: a page fault for every page
     * the writer stores into, several times the cost of the zeros it saved).
     */
    static long caughtUpTarget(long current, long end, long limit, boolean huge) {
        long target = current + ALLOCATION_STEP_MIN;
        if (huge) {
            target = (Math.max(end, target) + HUGE_PIECE - 1) / HUGE_PIECE * HUGE_PIECE;
        }
        return roundUp(Math.max(end, Math.min(limit, target)));
    }

    static long roundUp(long n) {
        return (n + PAGE - 1) / PAGE * PAGE;
    }
}
