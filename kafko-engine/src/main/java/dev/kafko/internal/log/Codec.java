package dev.kafko.internal.log;

import dev.kafko.Compression;
import dev.kafko.CompressionUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * Internal: compresses and decompresses the records section of a frame. The implementations for
 * LZ4 and zstd live in their own classes, loaded only once {@link Compression#isAvailable()} said
 * the library is there, so a missing optional jar surfaces as {@link CompressionUnavailableException}
 * and never as {@code NoClassDefFoundError}. Decompression is stateless and thread-safe; a
 * {@link Compressor} belongs to the one writer of a log.
 */
interface Codec {

    /** Compresses {@code src[srcOff, srcOff + srcLen)}; one per writer, reusing its workspace. */
    interface Compressor extends AutoCloseable {

        /** The most bytes {@link #compress} can write for {@code srcLen} input bytes. */
        int maxCompressedLength(int srcLen);

        /** Compresses into {@code dst} at {@code dstOff}; returns the number of bytes written. */
        int compress(byte[] src, int srcOff, int srcLen, byte[] dst, int dstOff, int dstCapacity);

        @Override
        void close();
    }

    /**
     * Decompresses exactly {@code dstLen} bytes into a new array. Never writes more than
     * {@code dstLen} bytes, whatever the input claims.
     *
     * @throws IllegalArgumentException when the input is malformed, inflates past {@code dstLen}
     *     or to fewer bytes (the caller turns it into a {@link dev.kafko.CorruptLogException})
     */
    byte[] decompress(byte[] src, int srcOff, int srcLen, int dstLen);

    /** A new compressor. */
    Compressor newCompressor();

    /** The codec of {@code compression}, or {@code null} for {@link Compression#NONE}. */
    static @Nullable Codec of(Compression compression) {
        if (compression == Compression.NONE) {
            return null;
        }
        compression.requireAvailable();
        try {
            return compression == Compression.LZ4 ? Lz4Codec.Holder.INSTANCE : ZstdCodec.Holder.INSTANCE;
        } catch (LinkageError e) {
            throw new CompressionUnavailableException("compression " + compression + " failed to load: " + e, e);
        }
    }
}
