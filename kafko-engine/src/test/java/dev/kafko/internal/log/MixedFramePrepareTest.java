package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.internal.io.FileIo;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Large frames (written with {@code pwrite} past the zeros, which leaves the allocated end anywhere) mixed
 * with small ones (stored through the mapping): the preparer keeps touching pages ahead of the writer, and
 * every frame reads back.
 */
class MixedFramePrepareTest {

    private static final long LIMIT = 64L << 20;

    @TempDir
    Path dir;

    @Test
    void thePreparerKeepsPreparingAheadOfAWriterThatMixesLargeAndSmallFrames() {
        List<String> failures = new CopyOnWriteArrayList<>();
        Logger jul = Logger.getLogger(SegmentFile.class.getName());
        Level before = jul.getLevel();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getMessage() != null && r.getMessage().contains("ahead failed")) {
                    failures.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.setLevel(Level.ALL);
        jul.addHandler(handler);
        HeldExecutor preparer = new HeldExecutor();
        SegmentFile f = SegmentFiles.create(FileIo.SYSTEM, dir.resolve("0.log"), new byte[16], LIMIT);
        try {
            f.prepareWith(preparer);
            List<long[]> frames = new ArrayList<>();
            long pos = 16;
            int n = 0;
            for (int round = 0; round < 60; round++) {
                int large = SegmentFile.CHANNEL_WRITE_MIN + 1 + 977 * round;
                pos = write(f, pos, large, n++, frames);
                for (int i = 0; i < 150; i++) {
                    pos = write(f, pos, 300, n++, frames);
                    if (i % 10 == 0) {
                        preparer.runAll();
                    }
                }
            }
            preparer.runAll();
            for (long[] frame : frames) {
                byte[] back = new byte[(int) frame[1]];
                f.read(frame[0], back, 0, back.length);
                assertThat(ByteBuffer.wrap(back).getInt(0)).isEqualTo((int) frame[2]);
                assertThat(ByteBuffer.wrap(back).getInt(back.length - 4)).isEqualTo(~(int) frame[2]);
            }
        } finally {
            f.endAppends();
            f.closeChannel();
            jul.removeHandler(handler);
            jul.setLevel(before);
        }
        assertThat(failures).as("preparation steps that failed").isEmpty();
    }

    private static long write(SegmentFile f, long pos, int size, int n, List<long[]> frames) {
        byte[] frame = new byte[size];
        ByteBuffer.wrap(frame).putInt(0, n).putInt(size - 4, ~n);
        f.write(pos, frame, 0, size);
        frames.add(new long[] {pos, size, n});
        return pos + size;
    }
}
