package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * zstd's native compression contexts are shared by every compressor of the process, a frame at a time: many
 * compressors (one per partition writer) on several threads at once each get frames that inflate back exactly,
 * and a failed compression (a destination too small) leaves the next ones intact.
 */
class ZstdContextPoolTest {

    private static final long SEED = 20261202L;

    @Test
    void compressorsOnSeveralThreadsAtOnceEachCompressTheirOwnFrames() throws Exception {
        Codec codec = ZstdCodec.Holder.INSTANCE;
        int threads = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long seed = SEED + t;
                results.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    List<Codec.Compressor> compressors = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        compressors.add(codec.newCompressor()); // a writer per partition
                    }
                    go.await();
                    int frames = 0;
                    for (int round = 0; round < 40; round++) {
                        for (Codec.Compressor c : compressors) {
                            byte[] src = new byte[rnd.nextInt(20_000)];
                            for (int i = 0; i < src.length; i++) {
                                src[i] = (byte) (rnd.nextInt(4) == 0 ? rnd.nextInt() : i / 64);
                            }
                            byte[] dst = new byte[c.maxCompressedLength(src.length)];
                            int n = c.compress(src, 0, src.length, dst, 0, dst.length);
                            assertThat(codec.decompress(dst, 0, n, src.length)).isEqualTo(src);
                            frames++;
                        }
                    }
                    compressors.forEach(Codec.Compressor::close);
                    return frames;
                }));
            }
            go.countDown();
            for (Future<Integer> f : results) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(2_000);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCompressionThatFailsLeavesTheNextOnesIntact() {
        Codec codec = ZstdCodec.Holder.INSTANCE;
        Codec.Compressor c = codec.newCompressor();
        byte[] src = new byte[10_000];
        new Random(SEED).nextBytes(src);
        byte[] tooSmall = new byte[100];
        try {
            c.compress(src, 0, src.length, tooSmall, 0, tooSmall.length);
        } catch (RuntimeException expected) {
            // zstd refuses the destination
        }
        byte[] dst = new byte[(int) Zstd.compressBound(src.length)];
        int n = c.compress(src, 0, src.length, dst, 0, dst.length);
        assertThat(codec.decompress(dst, 0, n, src.length)).isEqualTo(src);
        byte[] small = Arrays.copyOf(src, 10);
        n = codec.newCompressor().compress(small, 0, small.length, dst, 0, dst.length);
        assertThat(codec.decompress(dst, 0, n, small.length)).isEqualTo(small);
    }
}
