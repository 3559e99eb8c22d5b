package dev.kafko.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kafko.Compression;
import dev.kafko.internal.log.LogBridge;

/**
 * Fuzzes LZ4 and zstd decompression with a stated size: it either returns exactly that many bytes
 * or fails with {@link IllegalArgumentException} (the codec contract; readers report it as
 * {@link dev.kafko.CorruptLogException}), and never allocates more than 2.5 times the stated size
 * (zstd grows its buffer fourfold towards the stated size; the buffers before the last add up to at
 * most 4/3 of it).
 */
class DecompressionFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void lz4InflatesToTheStatedSizeOrFails(FuzzedDataProvider in) {
        inflate(Compression.LZ4, in);
    }

    @FuzzTest(maxDuration = "30s")
    void zstdInflatesToTheStatedSizeOrFails(FuzzedDataProvider in) {
        inflate(Compression.ZSTD, in);
    }

    private static void inflate(Compression c, FuzzedDataProvider in) {
        int stated = in.consumeInt(0, 1 << 24);
        byte[] src = in.consumeRemainingAsBytes();
        Bounds.check(stated * 5L / 2 + 64L * src.length + (1 << 20), () -> {
            byte[] out = LogBridge.decompress(c, src, stated);
            assertThat(out).hasSize(stated);
        }, IllegalArgumentException.class);
    }
}
