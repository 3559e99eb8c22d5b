package dev.kafko.internal.log;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the frame one reader decoded last. A published frame never changes, so a later read by
 * the same reader that starts inside it (a poll that stopped in the middle of a large frame, at its
 * record limit) decodes it again without checking its CRC again, and a read that starts where it
 * ended goes to the next frame without looking the offset up, and one that starts inside the copy the
 * previous one made reads on from that copy. One per reader and partition; used
 * by one thread at a time.
 */
public final class VerifiedFrame {

    @Nullable Segment segment;
    int position;
    int length;
    long baseOffset;
    long endOffset;
    /** The last {@code pread} copy this reader made of the segment being written (records slice it: never changed). */
    @Nullable ByteBuffer copy;
    @Nullable Segment copySegment;
    int copyStart;
    /**
     * The records section of one frame this reader decoded from a buffer of its own (a compressed frame,
     * inflated; or a frame that crosses a mapping window, copied), at {@link #sectionPosition} of
     * {@link #sectionSegment}, starting at {@link #sectionStart}: polls that stop inside the frame read on
     * from it, so the frame is inflated or copied once per reader, and the records of its polls share one
     * buffer, rather than a whole frame each. Dropped once the reader has read the frame to its end.
     */
    @Nullable ByteBuffer section;
    @Nullable Segment sectionSegment;
    int sectionPosition;
    int sectionStart;

    /** Whether the frame at {@code position} of {@code segment} is the one checked last. */
    boolean is(Segment segment, int position) {
        return this.segment == segment && this.position == position;
    }

    /**
     * Where {@code offset} is in {@code segment} as far as the last frame tells: that frame's position
     * when it holds the offset, the position after it when the offset follows it, else -1.
     */
    int positionOf(Segment segment, long offset) {
        if (this.segment != segment || offset < baseOffset || offset > endOffset) {
            return -1;
        }
        return offset < endOffset ? position : position + length;
    }

    /**
     * Whether {@link #copy} holds the whole frame at {@code position} of {@code segment} (its length as
     * the copy has it: the caller checks the header as usual).
     */
    boolean copyHolds(Segment segment, int position) {
        ByteBuffer c = copy;
        if (c == null || copySegment != segment || position < copyStart) {
            return false;
        }
        int at = position - copyStart;
        if (at > c.capacity() - FrameFormat.HEADER_SIZE) {
            return false;
        }
        int len = c.getInt(at + FrameFormat.LENGTH_OFFSET);
        return len >= FrameFormat.HEADER_SIZE && len <= c.capacity() - at;
    }

    /** Keeps {@code copy} (the published bytes of {@code segment} from {@code start}; null forgets it). */
    void keepCopy(Segment segment, int start, @Nullable ByteBuffer copy) {
        this.copySegment = copy == null ? null : segment;
        this.copyStart = start;
        this.copy = copy;
    }

    /**
     * Where this reader's last read of a frame stopped: the frame at {@link #cursorPosition} of
     * {@link #cursorSegment}, the offset of its next record and that record's index in the frame and
     * position in its records section, so that the next read there starts at that record rather than
     * walking the frame from its first (polls of a few records through a frame of 200,000 were quadratic).
     */
    @Nullable Segment cursorSegment;
    int cursorPosition;
    long cursorOffset;
    final int[] cursor = new int[2];

    /**
     * The cursor to decode the frame at {@code position} of {@code segment} from, for a read from
     * {@code offset}: the kept one when it is of that frame and at or before the offset, else the frame's
     * first record. The caller passes it to the decoder, which leaves it after the last record read.
     */
    int[] cursorFor(Segment segment, int position, long offset) {
        if (cursorSegment != segment || cursorPosition != position || cursorOffset > offset) {
            cursorSegment = segment;
            cursorPosition = position;
            cursor[0] = 0;
            cursor[1] = 0;
        }
        return cursor;
    }

    /** Notes the offset of the record the {@link #cursor} now points at, after a decode. */
    void cursorAt(long offset) {
        cursorOffset = offset;
    }

    /** The kept {@link #section} of the frame at {@code position} of {@code segment}, or null. */
    @Nullable ByteBuffer sectionOf(Segment segment, int position) {
        return sectionSegment == segment && sectionPosition == position ? section : null;
    }

    /** Keeps the records section of the frame at {@code position} of {@code segment} (null forgets it). */
    void keepSection(@Nullable Segment segment, int position, @Nullable ByteBuffer section, int start) {
        this.sectionSegment = section == null ? null : segment;
        this.sectionPosition = position;
        this.section = section;
        this.sectionStart = start;
    }

    void set(Segment segment, int position, int length, long baseOffset, long endOffset) {
        this.segment = segment;
        this.position = position;
        this.length = length;
        this.baseOffset = baseOffset;
        this.endOffset = endOffset;
    }
}
