package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk, twice: a real 8 MiB tmpfs mounted by the test (skipped where mounting is not
 * permitted), and ENOSPC injected through the file-I/O seam after a seeded number of bytes. Each
 * time: producing fails with a {@link KafkoException} (never an {@link Error}, never a JVM crash),
 * and once space is back the directory reopens with every acknowledged record and commit, and
 * every offsets file replays.
 */
class DiskFullTest {

    private static final long SEED = Workload.seed("kafko.diskfull.seed", 0x5EED_0007L);
    private static Path mount;
    private static boolean mounted;

    @TempDir
    Path tmp;

    @BeforeAll
    static void mountSmallTmpfs() throws Exception {
        mount = Files.createTempDirectory("kafko-tmpfs");
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        mounted = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        if (!mounted) {
            System.out.println("disk full: cannot mount a tmpfs here (" + out.trim() + "); the tmpfs test is skipped");
        }
    }

    @AfterAll
    static void unmount() throws Exception {
        if (mounted) {
            // lazy: segment mappings released only by the garbage collector may still pin the mount
            Process p = new ProcessBuilder("umount", "-l", mount.toString()).redirectErrorStream(true).start();
            assertThat(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0).as("umount -l " + mount).isTrue();
        }
        Scratch.delete(mount);
    }

    @Test
    void fullTmpfsFailsTypedAndReopensWithEveryAcknowledgedRecordOnceSpaceIsFreed() throws Exception {
        Assumptions.assumeTrue(mounted, "mounting a tmpfs needs root (mount -t tmpfs -o size=8m tmpfs <dir>)");
        Path data = mount.resolve("data");
        Path filler = mount.resolve("filler");
        Files.write(filler, new byte[2 << 20]);
        Run run = fill(Kafko.open(data), 64 * 1024);
        Files.delete(filler);
        verifyAfterFreeing(data, run, "tmpfs 8 MiB");
    }

    /**
     * A restart before anyone freed space, after a frame was torn at a page boundary (a {@code pwrite} that ran out
     * of space part way: on a file system this small every frame is one). The segment's mapping, grown ahead for
     * readers, leaves a hole after the data, and the open CRC-scans a partition not closed cleanly up to its last
     * good frame, reading the torn one into the hole. On tmpfs a read of a hole through a shared mapping allocates a
     * page, so on a full tmpfs that read faulted: {@code Kafko.open} threw the JVM's {@code InternalError} ("a fault
     * occurred in a recent unsafe memory access operation"), naming no file, where a {@link KafkoException} is
     * promised. The loader's recovery reads with {@code pread} now, which reads a hole as zeros without allocating:
     * the open cuts the torn frame, then recovers or fails with a {@link KafkoException} where it must write (the
     * recovered segment's index, on a disk still full), and once space is freed the records before the frame read
     * back.
     */
    @Test
    void fullTmpfsReopensAfterATornFrameBeforeSpaceIsFreed() throws Exception {
        Assumptions.assumeTrue(mounted, "mounting a tmpfs needs root (mount -t tmpfs -o size=8m tmpfs <dir>)");
        Path data = mount.resolve("data-still-full");
        Path filler = mount.resolve("filler-to-the-brim");
        Map<Long, Long> checksums = new HashMap<>();
        // durableClose(false): the next open recovers the partition as after a crash of the process
        try (Kafko kafko = Kafko.open(data, KafkoOptions.builder().durableClose(false).build())) {
            kafko.createTopic(Workload.TOPIC, TopicConfig.builder().partitions(1).segmentBytes(1 << 20).build());
            Producer p = kafko.producer(Workload.TOPIC);
            for (long seq = 0; seq < 100; seq++) {
                byte[] key = Workload.key("f", seq);
                checksums.put(p.send(key, Workload.value(key)).join().offset(), Workload.checksum(Workload.value(key)));
            }
        }
        // tear the frame across the last page boundary of the data: its bytes after the boundary become a hole
        Path segment = data.resolve(Workload.TOPIC).resolve("0").resolve(FileNames.segmentFile(Path.of(""), 0).toString());
        byte[] bytes = Files.readAllBytes(segment);
        int last = bytes.length - 1;
        while (bytes[last] == 0) {
            last--;
        }
        try (var ch = java.nio.channels.FileChannel.open(segment, java.nio.file.StandardOpenOption.WRITE)) {
            ch.truncate(last / 4096 * 4096L);
        }
        try (var raf = new java.io.RandomAccessFile(segment.toFile(), "rw")) {
            raf.setLength(bytes.length);
        }
        try (var out = Files.newOutputStream(filler)) {
            byte[] block = new byte[4096];
            while (true) {
                out.write(block);
                out.flush();
            }
        } catch (IOException full) {
            // the disk is full now, but for the one page the open's write of the lock file's owner takes
            try (var ch = java.nio.channels.FileChannel.open(filler, java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(ch.size() / 4096 * 4096 - 4096);
            }
        }
        try {
            // the disk still full: the open recovers the partition, or fails typed where it must write (the index
            // of the recovered segment), never with an Error
            try (Kafko kafko = Kafko.open(data)) {
                assertThat(kafko.topics()).containsExactly(Workload.TOPIC);
            } catch (KafkoException stillFull) {
                assertThat(stillFull).hasMessageContaining(data.toString());
            }
            Files.delete(filler);
            try (Kafko kafko = Kafko.open(data); Consumer c = kafko.consumer(Workload.TOPIC)) {
                long end = kafko.topic(Workload.TOPIC).orElseThrow().partition(0).endOffset();
                assertThat(end).as("records before the torn frame").isBetween(1L, 99L);
                List<KafkoRecord> got = new ArrayList<>();
                for (int i = 0; i < 100 && got.size() < end; i++) {
                    got.addAll(c.poll(Duration.ofMillis(100)));
                }
                assertThat(got).hasSize((int) end);
                for (KafkoRecord r : got) {
                    assertThat(Workload.checksum(r.value())).as("value at %d", r.offset())
                            .isEqualTo(checksums.get(r.offset()));
                }
            }
        } finally {
            Files.deleteIfExists(filler);
            Scratch.delete(data);
            System.gc(); // the deleted segments' mappings hold their blocks until collected
        }
    }

    @Test
    void injectedEnospcFailsTypedAndReopensWithEveryAcknowledgedRecord() throws Exception {
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 6; i++) {
            long budget = 4096 + random.nextLong(1 << 20);
            Path data = tmp.resolve("enospc-" + i);
            AtomicLong left = new AtomicLong(budget);
            HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
                @Override
                public void beforeWrite(Path path, long bytes) throws IOException {
                    if (left.addAndGet(-bytes) < 0) {
                        left.addAndGet(bytes);
                        throw new IOException("No space left on device (injected)");
                    }
                }
            });
            Run run;
            try {
                run = fill(BrokerBridge.open(data, KafkoOptions.DEFAULTS, io), 4096);
            } catch (KafkoException e) {
                // the disk filled while the topic was being created: nothing was acknowledged
                run = new Run(List.of(), Map.of(), e);
            }
            verifyAfterFreeing(data, run, "injected ENOSPC after " + budget + " bytes");
        }
    }

    private record Run(List<Ack> acked, Map<Integer, Long> commits, Throwable failure) {
    }

    /** Produces and commits until the disk is full; closes the instance. */
    private static Run fill(Kafko kafko, int segmentAllocation) {
        List<Ack> acked = new ArrayList<>();
        Map<Integer, Long> commits = new HashMap<>();
        Throwable failure = null;
        try (kafko) {
            kafko.createTopic(Workload.TOPIC, TopicConfig.builder().partitions(2).segmentBytes(256 * 1024).build());
            Producer p = kafko.producer(Workload.TOPIC);
            try (Consumer c = kafko.groupConsumer(Workload.TOPIC, "g")) {
                for (long seq = 0; failure == null && seq < 1_000_000; seq++) {
                    byte[] key = Workload.key("f", seq);
                    byte[] value = Workload.value(key);
                    try {
                        var pos = p.send(key, value).join();
                        acked.add(new Ack(pos.partition(), pos.offset(), new String(key, StandardCharsets.US_ASCII),
                                Workload.checksum(value)));
                        if (seq % 50 == 49) {
                            List<KafkoRecord> got = c.poll(Duration.ofMillis(10));
                            Map<Integer, Long> positions = new HashMap<>();
                            for (int partition : c.assignment()) {
                                positions.put(partition, c.position(partition));
                            }
                            c.commit();
                            positions.forEach((part, off) -> commits.merge(part, off, Math::max));
                            assertThat(got).isNotNull();
                        }
                    } catch (CompletionException e) {
                        failure = e.getCause();
                    } catch (KafkoException e) {
                        failure = e;
                    }
                }
            } catch (KafkoException e) {
                failure = failure == null ? e : failure;
            }
        } catch (KafkoException e) {
            // close on a full disk may fail too; it must fail typed
            failure = failure == null ? e : failure;
        }
        assertThat(failure).as("the disk filled up").isNotNull();
        assertThat(failure).as("failure type").isInstanceOf(KafkoException.class);
        return new Run(acked, commits, failure);
    }

    private static void verifyAfterFreeing(Path data, Run run, String what) throws IOException {
        String group = run.commits().isEmpty() ? null : "g";
        LogVerifier.Figures f = LogVerifier.verify(data, run.acked(), run.commits(), group);
        try (Stream<Path> s = Files.walk(data)) {
            for (Path offsets : s.filter(p -> p.getFileName().toString().equals(FileNames.OFFSETS_FILE)).toList()) {
                assertThat(Files.size(offsets)).as("%s is the old or the new version, never empty", offsets)
                        .isGreaterThanOrEqualTo(run.commits().isEmpty() ? 0 : 8);
            }
        }
        try (Kafko kafko = Kafko.open(data)) {
            if (kafko.topic(Workload.TOPIC).isPresent()) {
                kafko.producer(Workload.TOPIC).send(null, new byte[10]).join();
            }
        }
        System.out.printf("disk full (%s): failed with %s; %d acknowledged records and %d commits kept, %d records"
                + " on disk%n", what, run.failure() == null ? "-" : run.failure().getClass().getSimpleName(),
                run.acked().size(), run.commits().size(), f.records());
    }
}
