package dev.kafko.internal.log;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;

/**
 * Internal: direct buffers of one size, lent to a {@code pwrite} of a frame held in a heap array and
 * taken back after it. A {@code FileChannel} given a heap buffer copies it into a temporary direct
 * buffer of exactly its size, cached per thread: frames of varying sizes (sends coalesced from
 * several threads) then allocate fresh native memory again and again, and every fresh page of it
 * costs a page fault. These buffers are allocated once, whatever the frame sizes and whichever thread
 * writes. Any thread.
 */
final class StagingBuffers {

    /** Each buffer's size: a larger frame is written in several {@code pwrite}s of at most this. */
    static final int SIZE = 1 << 20;
    /** Buffers kept for reuse; a writer that finds none allocates one, kept if there is room. */
    private static final int KEEP = 8;
    private static final ArrayBlockingQueue<ByteBuffer> FREE = new ArrayBlockingQueue<>(KEEP);

    private StagingBuffers() {
    }

    /** A cleared buffer of {@link #SIZE} bytes, to be given back with {@link #give}. */
    static ByteBuffer take() {
        ByteBuffer b = FREE.poll();
        return b != null ? b.clear() : ByteBuffer.allocateDirect(SIZE);
    }

    static void give(ByteBuffer b) {
        FREE.offer(b);
    }
}
