package dev.kafko.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.log.LogBridge;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes the loader of {@code .index} and {@code .timeindex} files. Damaged files must be refused
 * (the index is then rebuilt from the segment), never throw anything but a
 * {@link dev.kafko.KafkoException}, and never allocate much more than the files' size. The
 * fuzzer may ask for valid magic, base offset and CRCs so that it reaches the entry checks.
 */
class IndexLoaderFuzzTest {

    private static final Path DIR = FuzzFiles.newDirectory("kafko-fuzz-index");
    private static final long BASE = 0;

    @AfterAll
    static void cleanUp() throws IOException {
        FuzzFiles.delete(DIR);
    }

    @FuzzTest(maxDuration = "30s")
    void damagedIndexFilesAreRefusedNotTrusted(FuzzedDataProvider in) throws IOException {
        boolean fix = in.consumeBoolean();
        byte[] index = in.consumeBytes(in.consumeInt(0, 4096));
        byte[] time = in.consumeRemainingAsBytes();
        if (fix) {
            header(index, 0x4B464B49);
            header(time, 0x4B464B54);
            FuzzFiles.fixSkippingCrc(index, 40);
            FuzzFiles.fixSkippingCrc(time, 20);
        }
        Files.write(DIR.resolve(String.format("%020d.index", BASE)), index);
        Files.write(DIR.resolve(String.format("%020d.timeindex", BASE)), time);
        Bounds.check(8L * (index.length + time.length) + (1 << 20), () -> LogBridge.indexLoads(FileIo.SYSTEM, DIR,
                BASE));
    }

    private static void header(byte[] b, int magic) {
        if (b.length >= 16) {
            ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt(0, magic).putShort(4, (short) 1).putLong(8, BASE);
        }
    }
}
