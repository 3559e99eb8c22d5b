package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.DelegatingFileChannel;
import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.WrappingFileIo;
import dev.kafko.internal.log.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An append of a frame larger than the encoder keeps (4 MiB: a large record, or a {@code sendBatch}) drops its
 * buffers once the frame is published ({@code FrameEncoder.trim}), and the log's close drops them first of all
 * ({@code FrameEncoder.close}). Both allocated a fresh buffer. With the heap exhausted by then (B137's case: another
 * thread took the rest), the {@link OutOfMemoryError} (1) left {@code PartitionLog.append} after its frame was
 * published and the log's end had moved past it: the partition's owner failed the send as "ran out of heap;
 * nothing of it was written" while its records were in the log and delivered (a retry stores them twice); and (2)
 * left {@code PartitionLog.close} before any channel was closed, with the log marked closed, so its descriptors
 * (the segment's and its side channel) stayed open for good. Here the heap is filled, in a child JVM, right after
 * the frame's last byte is written, or right before the close, so that the next allocation is the encoder's.
 */
class OutOfMemoryAfterPublishTest {

    /** Filled once the frame's last piece is written; emptied by the child once the append returned. */
    static Object[] ballast = new Object[100_000];
    static volatile boolean armed;

    /** The child: {@code <data dir>}; prints whether the append threw, and the log's end after it. */
    public static void main(String[] args) throws Exception {
        FileIo io = new WrappingFileIo((path, options, real) -> {
            if (!path.toString().endsWith(".log")) {
                return real;
            }
            return new DelegatingFileChannel(real) {
                @Override
                public int write(ByteBuffer src, long position) throws IOException {
                    int piece = src.remaining();
                    int n = delegate.write(src, position);
                    if (armed && !src.hasRemaining() && piece < (1 << 20)) {
                        armed = false;
                        fill(); // the frame's last (short) piece is on disk: nothing is left to allocate
                    }
                    return n;
                }
            };
        });
        TopicConfig config = TopicConfig.builder().maxRecordBytes(TopicConfig.MAX_RECORD_BYTES_LIMIT).build();
        if (args.length > 1 && args[1].equals("close")) {
            closeOutOfMemory(Path.of(args[0]), config, io);
            return;
        }
        List<OutgoingRecord> frame = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            frame.add(OutgoingRecord.of(null, new byte[1_000_000]));
        }
        try (PartitionLog log = PartitionLog.open("t", 0, Path.of(args[0]), config, Clock.systemUTC(), io)) {
            log.append(OutgoingRecord.of(null, new byte[10])); // every path of an append run once
            log.append(frame);
            String outcome;
            armed = true;
            try {
                log.append(frame);
                outcome = "returned";
            } catch (Throwable e) {
                ballast = null;
                outcome = "threw " + e;
            }
            ballast = null;
            System.out.println("append " + outcome);
            System.out.println("end=" + log.endOffset());
        }
    }

    /** Closes a log with the heap exhausted; prints what the close threw and the log's files still open. */
    static void closeOutOfMemory(Path dir, TopicConfig config, FileIo io) throws Exception {
        PartitionLog log = PartitionLog.open("t", 0, dir, config, Clock.systemUTC(), io);
        log.append(OutgoingRecord.of(null, new byte[10]));
        String outcome;
        fill();
        try {
            log.close();
            outcome = "returned";
        } catch (Throwable e) {
            ballast = null;
            outcome = "threw " + e;
        }
        ballast = null;
        System.out.println("close " + outcome);
        int open = 0;
        try (var fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (java.nio.file.Files.readSymbolicLink(fd).toString().endsWith(".log")) {
                        open++;
                    }
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        }
        System.out.println("openLogFiles=" + open);
    }

    static void fill() {
        int i = 0;
        for (int size = 1 << 20; size >= 16 && i < ballast.length; ) {
            try {
                ballast[i] = new byte[size];
                i++;
            } catch (OutOfMemoryError e) {
                size /= 2;
            }
        }
    }

    @Test
    void aCloseThatRunsOutOfHeapStillClosesTheSegmentFiles(@TempDir Path tmp) throws Exception {
        String out = ChildJvm.run(tmp.resolve("child.out"), List.of("-Xmx64m", "-XX:+UseSerialGC"),
                OutOfMemoryAfterPublishTest.class, tmp.resolve("data").toString(), "close");
        assertThat(out).as(out).contains("openLogFiles=0");
    }

    @Test
    void anAppendThatPublishedItsFrameDoesNotThrow(@TempDir Path tmp) throws Exception {
        String out = ChildJvm.run(tmp.resolve("child.out"), List.of("-Xmx64m", "-XX:+UseSerialGC"),
                OutOfMemoryAfterPublishTest.class, tmp.resolve("data").toString());
        assertThat(out).contains("end=11");
        // published, so returned: a throw here has the partition's owner write the sends of the frame again
        assertThat(out).as(out).contains("append returned");
    }
}
