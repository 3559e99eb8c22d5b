package dev.kafko.bench.log;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a store into a fresh page of a shared file mapping costs, with no log at all: one thread
 * stores 300-byte records one after the other into a mapped file (the size of a single-record frame
 * of a 256-byte value), in five set-ups:
 *
 * <ul>
 *   <li>{@code zeros}: the file was filled with zeros by {@code pwrite} first (as a segment is), and
 *       the writer takes every page fault itself;</li>
 *   <li>{@code zeros+toucher}: the same, with a second thread touching pages (an atomic add of zero)
 *       up to 4 MiB ahead of the writer while it stores, as {@code kafko-preparer} does;</li>
 *   <li>{@code zeros+touched}: every page touched by a second thread before the writer starts;</li>
 *   <li>{@code sparse}: a file of holes (as Chronicle Queue's are), the writer faulting itself;</li>
 *   <li>{@code sparse+toucher}: holes, with the toucher ahead.</li>
 * </ul>
 *
 * Prints nanoseconds per record and microseconds per 4 KiB page for the writer (the touching before
 * the start is not counted in {@code zeros+touched}), for {@code rounds} rounds of {@code mib} MiB
 * each (defaults 3 and 256), in a directory under {@code java.io.tmpdir}.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.kafko.bench.log.PageFaultCost [rounds] [mib]}
 */
public final class PageFaultCost {

    private static final int PAGE = 4096;
    private static final int RECORD = 300;
    private static final int AHEAD_PAGES = 1024;
    private static final VarHandle TOUCH = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    private static final String[] MODES = {"zeros", "zeros+toucher", "zeros+touched", "sparse", "sparse+toucher"};

    private PageFaultCost() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int size = (args.length > 1 ? Integer.parseInt(args[1]) : 256) << 20;
        Path dir = BenchFiles.tempDir("kafko-page-faults");
        try {
            for (int round = 0; round < rounds; round++) {
                for (String mode : MODES) {
                    long nanos = writeOnce(dir.resolve(mode + "-" + round), mode, size);
                    System.out.printf(Locale.ROOT, "%-15s round %d: %5.0f ns/record, %5.2f us/page%n", mode, round,
                            nanos / (double) (size / RECORD), nanos / 1e3 / (size / PAGE));
                }
            }
        } finally {
            BenchFiles.deleteTree(dir);
        }
    }

    /** Stores records over the whole file in {@code mode}; returns the writer's nanoseconds. */
    private static long writeOnce(Path file, String mode, int size) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            if (mode.startsWith("zeros")) {
                fillWithZeros(ch, size);
            }
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
            if (mode.equals("zeros+touched")) {
                Thread t = new Thread(() -> touch(map, 0, size));
                t.start();
                t.join();
            }
            AtomicLong writerAt = new AtomicLong();
            Thread toucher = mode.endsWith("+toucher") ? new Thread(() -> touchAhead(map, size, writerAt)) : null;
            byte[] record = new byte[RECORD];
            long start = System.nanoTime();
            if (toucher != null) {
                toucher.start();
            }
            for (int at = 0; at + RECORD <= size; at += RECORD) {
                map.put(at, record);
                writerAt.lazySet(at);
            }
            long nanos = System.nanoTime() - start;
            writerAt.set(size);
            if (toucher != null) {
                toucher.join();
            }
            return nanos;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void fillWithZeros(FileChannel ch, int size) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        for (long pos = 0; pos < size; ) {
            zeros.clear();
            pos += ch.write(zeros, pos);
        }
    }

    private static void touch(MappedByteBuffer map, int from, int to) {
        for (int p = from; p < to; p += PAGE) {
            TOUCH.getAndAdd(map, p, 0);
        }
    }

    /** Touches pages up to {@value #AHEAD_PAGES} pages past the writer's, until the writer is done. */
    private static void touchAhead(MappedByteBuffer map, int size, AtomicLong writerAt) {
        int next = 0;
        while (next < size && writerAt.get() < size) {
            long goal = Math.min(size, (writerAt.get() / PAGE + 1 + AHEAD_PAGES) * PAGE);
            if (next < goal) {
                next = Math.max(next, (int) (writerAt.get() / PAGE + 1) * PAGE);
                touch(map, next, (int) Math.min(goal, next + 4 * PAGE));
                next = (int) Math.min(goal, next + 4 * PAGE);
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
