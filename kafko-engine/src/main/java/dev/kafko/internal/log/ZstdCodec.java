package dev.kafko.internal.log;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdException;

/**
 * Internal: Zstandard through zstd-jni. Loaded only through {@link Holder} once the library and
 * its native part are known to be present. Decompression writes into a buffer that never exceeds
 * the length the frame header states, whether or not the zstd frame declares its size, so a bomb
 * fails as soon as it overflows. Thread-safe; each {@link Compressor} owns a native context.
 */
final class ZstdCodec implements Codec {

    /** Level 1: the speed end of zstd; still a far better ratio than lz4 on typical records. */
    static final int LEVEL = 1;
    /** The first decompression buffer is at most this many times the compressed size. */
    private static final int FIRST_GUESS_RATIO = 16;
    private static final int MIN_FIRST_GUESS = 64 * 1024;

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

    @Override
    public Compressor newCompressor() {
        ZstdCompressCtx ctx = new ZstdCompressCtx().setLevel(LEVEL).setChecksum(false);
        return new Compressor() {
            @Override
            public int maxCompressedLength(int srcLen) {
                return (int) Zstd.compressBound(srcLen);
            }

            @Override
            public int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCapacity) {
                return ctx.compressByteArray(dst, dstOff, dstCapacity, src, srcOff, srcLen);
            }

            @Override
            public void close() {
                ctx.close();
            }
        };
    }
}
