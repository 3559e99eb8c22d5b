package dev.kafko.internal.log;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Internal: LZ4 block compression through lz4-java. Loaded only through {@link Holder} once the
 * library is known to be present. Decompression uses the <em>safe</em> decompressor, which bounds
 * every write by the destination length. Thread-safe.
 */
final class Lz4Codec implements Codec {

    /** LZ4 never expands more than 255 times; a header claiming more is a bomb. */
    private static final int MAX_RATIO = 255;

    /** Lazy holder: touching it is the first moment an lz4 class is loaded. */
    static final class Holder {
        static final Lz4Codec INSTANCE = new Lz4Codec();

        private Holder() {
        }
    }

    private final LZ4Compressor compressor;
    private final LZ4SafeDecompressor decompressor;

    private Lz4Codec() {
        LZ4Factory factory = LZ4Factory.fastestInstance();
        compressor = factory.fastCompressor();
        decompressor = factory.safeDecompressor();
    }

    @Override
    public byte[] decompress(byte[] src, int srcOff, int srcLen, int dstLen) {
        if ((long) srcLen * MAX_RATIO + 64 < dstLen) {
            throw new IllegalArgumentException("lz4 block of " + srcLen + " bytes cannot inflate to " + dstLen);
        }
        byte[] dst = new byte[dstLen];
        int n;
        try {
            n = decompressor.decompress(src, srcOff, srcLen, dst, 0, dstLen);
        } catch (LZ4Exception | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("malformed lz4 block: " + e.getMessage(), e);
        }
        if (n != dstLen) {
            throw new IllegalArgumentException("lz4 block inflated to " + n + " bytes, header says " + dstLen);
        }
        return dst;
    }

    @Override
    public Compressor newCompressor() {
        return new Compressor() {
            @Override
            public int maxCompressedLength(int srcLen) {
                return compressor.maxCompressedLength(srcLen);
            }

            @Override
            public int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCapacity) {
                return compressor.compress(src, srcOff, srcLen, dst, dstOff, dstCapacity);
            }

            @Override
            public void close() {
                // the lz4 compressors are stateless
            }
        };
    }
}
