package dev.kafko.internal.log;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Internal: Zstandard through zstd-jni. Loaded only through {@link Holder} once the library and
 * its native part are known to be present. Decompression writes into a buffer that never exceeds
 * the length the frame header states, whether or not the zstd frame declares its size, so a bomb
 * fails as soon as it overflows. Thread-safe; a {@link Compressor} borrows a native context from a pool
 * shared by the process for each frame.
 */
final class ZstdCodec implements Codec {

    /** Level 1: the speed end of zstd; still a far better ratio than lz4 on typical records. */
    static final int LEVEL = 1;
    /** The first decompression buffer is at most this many times the compressed size. */
    private static final int FIRST_GUESS_RATIO = 16;
    private static final int MIN_FIRST_GUESS = 64 * 1024;
    /** The most idle compression contexts kept: about as many as threads compress at once. */
    private static final int MAX_POOLED = 2 * Runtime.getRuntime().availableProcessors() + 2;

    /** Idle compression contexts, shared by every writer of the process. */
    private static final ConcurrentLinkedDeque<ZstdCompressCtx> CONTEXTS = new ConcurrentLinkedDeque<>();
    /** An upper bound of {@link #CONTEXTS}' size: raised before a push, lowered after a successful poll. */
    private static final AtomicInteger POOLED = new AtomicInteger();

    /** Lazy holder: touching it is the first moment a zstd class is loaded. */
    static final class Holder {
        static final ZstdCodec INSTANCE = new ZstdCodec();

        private Holder() {
        }
    }

    private ZstdCodec() {
    }

    @Override
    public byte[] decompress(byte[] src, int srcOff, int srcLen, int dstLen) {
        // grow towards the stated length so that a header lying about a huge size costs memory
        // only in proportion to what the data really inflates to
        int capacity = (int) Math.min(dstLen, Math.max(MIN_FIRST_GUESS, (long) srcLen * FIRST_GUESS_RATIO));
        while (true) {
            byte[] dst = new byte[capacity];
            long n;
            try {
                n = Zstd.decompressByteArray(dst, 0, capacity, src, srcOff, srcLen);
            } catch (ZstdException e) {
                if (e.getErrorCode() != Zstd.errDstSizeTooSmall() || capacity >= dstLen) {
                    throw new IllegalArgumentException("malformed zstd block, or one inflating past the stated "
                            + dstLen + " bytes: " + e.getMessage(), e);
                }
                capacity = (int) Math.min(dstLen, (long) capacity * 4);
                continue;
            }
            if (Zstd.isError(n) || n != dstLen) {
                throw new IllegalArgumentException("zstd block inflated to " + n + " bytes, header says " + dstLen);
            }
            return dst;
        }
    }

    /**
     * A compressor that borrows a native context from the shared pool for each frame: a context costs tens to
     * hundreds of KiB of native memory (growing with the frames it compressed), which one kept per partition
     * writer multiplied by the partitions (1,000 partitions that each wrote a batch of ten small records: 61 MB
     * more resident memory, 20 MB with the pool); the pool holds about as many as frames compressed at once.
     */
    @Override
    public Compressor newCompressor() {
        return new Compressor() {
            @Override
            public int maxCompressedLength(int srcLen) {
                return (int) Zstd.compressBound(srcLen);
            }

            @Override
            public int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCapacity) {
                ZstdCompressCtx ctx = CONTEXTS.poll();
                if (ctx != null) {
                    POOLED.decrementAndGet();
                } else {
                    ctx = new ZstdCompressCtx().setLevel(LEVEL).setChecksum(false);
                }
                int n;
                try {
                    n = ctx.compressByteArray(dst, dstOff, dstCapacity, src, srcOff, srcLen);
                } catch (RuntimeException | Error e) {
                    ctx.close(); // not pooled: whatever state a failure left it in goes with it
                    throw e;
                }
                release(ctx);
                return n;
            }

            @Override
            public void close() {
                // the context went back to the pool after each frame
            }
        };
    }

    /** Back to the pool, unless it holds as many as it keeps. */
    private static void release(ZstdCompressCtx ctx) {
        if (POOLED.incrementAndGet() <= MAX_POOLED) {
            CONTEXTS.push(ctx);
        } else {
            POOLED.decrementAndGet();
            ctx.close();
        }
    }
}
