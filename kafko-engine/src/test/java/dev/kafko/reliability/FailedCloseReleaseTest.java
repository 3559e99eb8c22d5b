package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.ProcMaps;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A close one of whose steps fails (an fsync, the close of a channel) still releases every file of the instance,
 * reports the failure as a {@code KafkoStorageException}, stays idempotent, and lets the directory be opened again.
 */
class FailedCloseReleaseTest {

    /** Fails, once each, the next fsync and the next close of a channel of the file they are armed with. */
    static final class FailOnce implements HookedFileIo.Hooks {
        final AtomicReference<Path> force = new AtomicReference<>();
        final AtomicReference<Path> close = new AtomicReference<>();

        @Override
        public void beforeForce(Path path) throws IOException {
            if (takeIf(force, path)) {
                throw new IOException("injected fsync failure: " + path);
            }
        }

        @Override
        public void afterClose(Path path) throws IOException {
            if (takeIf(close, path)) {
                throw new IOException("injected close failure: " + path);
            }
        }

        private static boolean takeIf(AtomicReference<Path> armed, Path path) {
            Path p = armed.get();
            return path.equals(p) && armed.compareAndSet(p, null);
        }
    }

    /**
     * A rolled segment whose seal failed keeps its channel until the close; a close of that channel that fails
     * must not leave the channels of the segments after it (the active one's) open.
     */
    @Test
    void aFailedCloseOfOneSegmentLeavesNoOtherSegmentOpen(@TempDir Path dir) throws Exception {
        FailOnce faults = new FailOnce();
        Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, new HookedFileIo(faults));
        kafko.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).segmentBytes(1024).build());
        Path first = FileNames.segmentFile(FileNames.partitionDir(dir.toRealPath().resolve("t"), 0), 0);
        faults.force.set(first);
        faults.close.set(first);
        Producer producer = kafko.producer("t");
        for (int i = 0; i < 50 && kafko.topic("t").orElseThrow().partition(0).state() == PartitionState.RUNNING;
                i++) {
            try {
                producer.send(null, new byte[200]).join();
            } catch (CompletionException e) {
                // the seal failed the partition
            }
            sleepQuietly(i);
        }
        assertThat(kafko.topic("t").orElseThrow().partition(0).state()).as("the seal's fsync failed it")
                .isEqualTo(PartitionState.FAILED);
        assertThat(faults.force.get()).isNull();

        kafko.close();

        assertThat(faults.close.get()).as("the first segment's close failed").isNull();
        assertThat(openUnder(dir)).as("descriptors of the closed instance").isEmpty();
        kafko.close();
        Kafko.open(dir).close();
    }

    /**
     * The fsync of a clean close fails, then so does the close of that segment's channel: the close reports the
     * fsync's failure, the one that cost durability, with the other suppressed in it.
     */
    @Test
    void aCloseReportsItsFirstFailureWithTheCloseFailuresSuppressed(@TempDir Path dir) throws Exception {
        FailOnce faults = new FailOnce();
        Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, new HookedFileIo(faults));
        kafko.createTopic("t");
        kafko.producer("t").send(null, new byte[100]).join();
        Path segment = FileNames.segmentFile(FileNames.partitionDir(dir.toRealPath().resolve("t"), 0), 0);
        faults.force.set(segment);
        faults.close.set(segment);

        Throwable failure = catchThrowable(kafko::close);

        assertThat(failure).isInstanceOf(KafkoStorageException.class).hasMessageContaining("injected fsync failure");
        assertThat(failure.getSuppressed()).anySatisfy(s -> assertThat(s).hasMessageContaining("injected close"));
        assertThat(openUnder(dir)).isEmpty();
        try (Kafko again = Kafko.open(dir)) {
            assertThat(again.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(1);
        }
    }

    /** A step of a clean close that fails once: the call it fails, on the file it names. */
    enum CloseFault {
        SEGMENT_TRUNCATE, SEGMENT_FSYNC, INDEX_WRITE, MARKER_RENAME, DIRECTORY_FSYNC, SEGMENT_CLOSE, OFFSETS_FSYNC,
        OFFSETS_CLOSE, LOCK_TRUNCATE
    }

    /** Fails the call {@code fault} names, once, from when it is armed. */
    static final class CloseFaults implements HookedFileIo.Hooks {
        final CloseFault fault;
        final Path partition;
        final Path offsets;
        volatile boolean armed;
        volatile boolean fired;

        CloseFaults(CloseFault fault, Path dir) {
            this.fault = fault;
            this.partition = FileNames.partitionDir(dir.resolve("t"), 0);
            this.offsets = FileNames.groupOffsetsFile(dir.resolve("t"), "g");
        }

        private void fail(CloseFault at, boolean matches, Path path) throws IOException {
            if (armed && at == fault && matches && !fired) {
                fired = true;
                throw new IOException("injected " + fault + " failure: " + path);
            }
        }

        @Override
        public void beforeForce(Path path) throws IOException {
            fail(CloseFault.SEGMENT_FSYNC, path.equals(FileNames.segmentFile(partition, 0)), path);
            fail(CloseFault.OFFSETS_FSYNC, path.equals(offsets), path);
        }

        @Override
        public void beforeWrite(Path path, long bytes) throws IOException {
            fail(CloseFault.INDEX_WRITE, path.getParent().equals(partition)
                    && path.getFileName().toString().startsWith(FileNames.indexFile(partition, 0).getFileName()
                            .toString()), path);
        }

        @Override
        public void beforeTruncate(Path path, long size) throws IOException {
            fail(CloseFault.SEGMENT_TRUNCATE, path.equals(FileNames.segmentFile(partition, 0)), path);
            fail(CloseFault.LOCK_TRUNCATE, path.getFileName().toString().equals(FileNames.LOCK_FILE), path);
        }

        @Override
        public void beforeMove(Path source, Path target) throws IOException {
            fail(CloseFault.MARKER_RENAME, target.equals(partition.resolve(FileNames.CLEAN_SHUTDOWN_FILE)), target);
        }

        @Override
        public void afterFsyncDirectory(Path dir) throws IOException {
            fail(CloseFault.DIRECTORY_FSYNC, dir.equals(partition), dir);
        }

        @Override
        public void afterClose(Path path) throws IOException {
            fail(CloseFault.SEGMENT_CLOSE, path.equals(FileNames.segmentFile(partition, 0)), path);
            fail(CloseFault.OFFSETS_CLOSE, path.equals(offsets), path);
        }
    }

    /**
     * Each step of a clean close failing once: the close reports a {@code KafkoStorageException} (or nothing,
     * when the step is redone: a group's offsets file is rewritten), every later close the same; no descriptor,
     * mapping or thread of the instance is left, and the directory opens again with every record and commit.
     */
    @ParameterizedTest
    @EnumSource(CloseFault.class)
    void aCloseOneOfWhoseStepsFailsReleasesEverythingAndReportsAStorageFailure(CloseFault fault, @TempDir Path dir)
            throws Exception {
        CloseFaults faults = new CloseFaults(fault, dir.toRealPath());
        Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, new HookedFileIo(faults));
        sendTwentyAndCommit(kafko);
        faults.armed = true;

        Throwable first = catchThrowable(kafko::close);

        assertThat(faults.fired).as("the %s failed", fault).isTrue();
        if (fault != CloseFault.OFFSETS_FSYNC && fault != CloseFault.OFFSETS_CLOSE) {
            assertThat(first).isInstanceOf(KafkoStorageException.class).hasMessageContaining("injected");
        } else if (first != null) {
            assertThat(first).isInstanceOf(KafkoStorageException.class);
        }
        assertThat(catchThrowable(kafko::close)).as("a second close").isSameAs(first);
        assertThat(openUnder(dir)).as("descriptors of the closed instance").isEmpty();
        Path real = dir.toRealPath();
        assertThat(ProcMaps.collectUntil(() -> ProcMaps.mappings(real, false) == 0))
                .as("mappings of the closed instance").isTrue();
        assertThat(ProcMaps.collectUntil(() -> Workload.kafkoThreads() == 0)).as("kafko threads").isTrue();
        try (Kafko again = Kafko.open(dir)) {
            assertThat(again.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(10);
            assertThat(again.topic("t").orElseThrow().partition(1).endOffset()).isEqualTo(10);
            try (Consumer group = again.groupConsumer("t", "g")) {
                group.poll(Duration.ZERO);
                assertThat(group.committed(0).orElse(-1)).isEqualTo(10);
                assertThat(group.committed(1).orElse(-1)).isEqualTo(10);
            }
        }
    }

    /**
     * A close that runs out of heap while it closes a group's offsets (an {@code Error}, which the close passes on
     * as it is) still closes the other partitions and lets the directory go: this JVM may open it again.
     */
    @Test
    void aCloseThatFailsWithAnErrorStillReleasesTheDirectory(@TempDir Path dir) throws Exception {
        Path offsets = FileNames.groupOffsetsFile(dir.toRealPath().resolve("t"), "g");
        AtomicReference<Path> failing = new AtomicReference<>();
        Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeForce(Path path) {
                Path armed = failing.get();
                if (path.equals(armed) && failing.compareAndSet(armed, null)) {
                    throw new OutOfMemoryError("injected: Java heap space");
                }
            }
        }));
        sendTwentyAndCommit(kafko);
        failing.set(offsets);

        assertThat(catchThrowable(kafko::close)).isInstanceOf(OutOfMemoryError.class);

        assertThat(failing.get()).as("the offsets' fsync failed").isNull();
        assertThat(catchThrowable(kafko::close)).as("a second close").isInstanceOf(OutOfMemoryError.class);
        assertThat(openUnder(dir)).as("descriptors of the closed instance").isEmpty();
        assertThat(ProcMaps.collectUntil(() -> Workload.kafkoThreads() == 0)).as("kafko threads").isTrue();
        try (Kafko again = Kafko.open(dir)) {
            assertThat(again.topic("t").orElseThrow().partition(1).endOffset()).isEqualTo(10);
        }
    }

    /**
     * An open that fails on one partition (the directory fsync of its recovery) after others opened: it fails
     * with a {@code KafkoStorageException}, keeps no descriptor, mapping or thread, and the next open succeeds.
     */
    @Test
    void anOpenThatFailsOnOnePartitionReleasesWhatItOpened(@TempDir Path dir) throws Exception {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("a", TopicConfig.builder().partitions(2).build());
            kafko.createTopic("t", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 20; i++) {
                kafko.producer(i % 4 < 2 ? "a" : "t").sendTo(i % 2, null, new byte[100]).join();
            }
        }
        Path partition = FileNames.partitionDir(dir.toRealPath().resolve("t"), 1);
        Files.delete(partition.resolve(FileNames.CLEAN_SHUTDOWN_FILE)); // recovered as after a crash
        AtomicReference<Path> failing = new AtomicReference<>(partition);
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void afterFsyncDirectory(Path d) throws IOException {
                Path armed = failing.get();
                if (d.equals(armed) && failing.compareAndSet(armed, null)) {
                    throw new IOException("injected directory fsync failure: " + d);
                }
            }
        });

        assertThat(catchThrowable(() -> BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)))
                .isInstanceOf(KafkoStorageException.class).hasMessageContaining("injected");

        assertThat(failing.get()).isNull();
        assertThat(openUnder(dir)).isEmpty();
        Path real = dir.toRealPath();
        assertThat(ProcMaps.collectUntil(() -> ProcMaps.mappings(real, false) == 0)).as("mappings").isTrue();
        assertThat(ProcMaps.collectUntil(() -> Workload.kafkoThreads() == 0)).as("kafko threads").isTrue();
        try (Kafko again = Kafko.open(dir)) {
            assertThat(again.topic("t").orElseThrow().partition(1).endOffset()).isEqualTo(5);
        }
    }

    private static List<String> openUnder(Path dir) {
        String prefix = dir.toAbsolutePath().toString();
        return Workload.openFileDescriptorTargets().stream().filter(t -> t.startsWith(prefix)).toList();
    }

    private static void sleepQuietly(int i) {
        try {
            Thread.sleep(i < 10 ? 1 : 20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Topic {@code t} of two partitions with 20 records, all of them read and committed by group {@code g}. */
    private static void sendTwentyAndCommit(Kafko kafko) {
        kafko.createTopic("t", TopicConfig.builder().partitions(2).build());
        Producer producer = kafko.producer("t");
        for (int i = 0; i < 20; i++) {
            producer.sendTo(i % 2, null, new byte[100]).join();
        }
        try (Consumer group = kafko.groupConsumer("t", "g")) {
            int read = 0;
            while (read < 20) {
                read += group.poll(Duration.ofSeconds(5)).size();
            }
            group.commit();
        }
    }
}
