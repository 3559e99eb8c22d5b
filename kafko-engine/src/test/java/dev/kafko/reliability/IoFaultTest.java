package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One injected failure of one file-system call, at a chosen moment (what {@link RandomIoFaultTest} found at
 * random): whatever the failure, nothing acknowledged is lost after a reopen, a failed call reaches the caller as a
 * {@link KafkoException}, and the files never disagree with what the log holds.
 */
class IoFaultTest {

    @TempDir
    Path tmp;

    /** Fails the first call the predicate accepts, once. */
    static Predicate<String> once(Predicate<String> p) {
        AtomicBoolean done = new AtomicBoolean();
        return s -> p.test(s) && done.compareAndSet(false, true);
    }

    static RandomFaultIo replaying(RandomFaultIo.Kind kind, Predicate<String> which) {
        RandomFaultIo io = new RandomFaultIo(kind, 1, 1, 0, false);
        io.replay(once(which));
        io.arm(true);
        return io;
    }

    /** Topic "t" with nine records of 10 bytes. */
    private static void nineRecords(Kafko kafko, TopicConfig config) {
        kafko.createTopic("t", config);
        for (int i = 0; i < 9; i++) {
            kafko.producer("t").send(null, new byte[10]).join();
        }
    }

    static List<String> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * Retention: the delete of a deleted segment's index file fails with a RuntimeException. The partition fails,
     * and the log keeps the segments still on disk: no segment file below its log start is left to come back at
     * the next open below a hole, and the reopened log reads from its start.
     */
    @Test
    void aRuntimeFailureDeletingARetainedSegmentLeavesNoHoleAfterReopen() throws Exception {
        retentionDeleteFails(RandomFaultIo.Kind.RUNTIME);
    }

    /** The same with an IOException. */
    @Test
    void anIoFailureDeletingARetainedSegmentRecoversOnReopen() throws Exception {
        retentionDeleteFails(RandomFaultIo.Kind.IO);
    }

    private void retentionDeleteFails(RandomFaultIo.Kind kind) throws Exception {
        Path data = tmp.resolve("ret-" + kind);
        RandomFaultIo io = replaying(kind, s -> s.startsWith("delete ") && s.contains("/r/0/")
                && s.endsWith(".index") && !s.endsWith("00000000000000000000.index"));
        KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(100)).build();
        List<RecordPosition> acked = new ArrayList<>();
        PartitionInfo before;
        try (Kafko kafko = BrokerBridge.open(data, options, io)) {
            kafko.createTopic("r", TopicConfig.builder().segmentBytes(1024).retentionBytes(3000).build());
            Producer p = kafko.producer("r");
            for (int i = 0; i < 400; i++) {
                try {
                    acked.add(p.send(null, new byte[100]).join());
                } catch (CompletionException e) {
                    // the partition failed (IO): later sends fail
                }
                if (i % 80 == 79) {
                    Thread.sleep(150); // retention runs, deleting a dozen segments at once
                }
            }
            before = kafko.topic("r").orElseThrow().partition(0);
        }
        List<String> afterClose = files(data.resolve("r/0"));
        long start = before.logStartOffset();
        List<String> forgotten = afterClose.stream().filter(f -> f.endsWith(".log"))
                .filter(f -> Long.parseLong(f.substring(0, 20)) < start).toList();
        assertThat(forgotten).as("segment files below the log start %d (retention deleted them from the log) left on"
                + " disk, to come back at the next open below a hole", start).isEmpty();
        try (Kafko kafko = Kafko.open(data); Consumer c = kafko.consumer("r")) {
            PartitionInfo after = kafko.topic("r").orElseThrow().partition(0);
            long read = 0;
            Throwable failure = null;
            try {
                for (int idle = 0; idle < 5; ) {
                    List<KafkoRecord> got = c.poll(Duration.ofMillis(50));
                    idle = got.isEmpty() ? idle + 1 : 0;
                    read += got.size();
                }
            } catch (KafkoException e) {
                failure = e;
            }
            assertThat(failure).as("reading the reopened log from its start").isNull();
            assertThat(after.logStartOffset()).as("log start after reopen: no deleted segment comes back")
                    .isGreaterThanOrEqualTo(before.logStartOffset());
        }
    }

    /**
     * A roll whose new segment cannot be created (a RuntimeException from the open): as for an IOException, the
     * partition fails, typed and with the cause, and a reopen reads every record acknowledged before.
     */
    @Test
    void aRuntimeFailureCreatingTheNextSegmentFailsThePartitionAndLosesNothingAcknowledged() throws Exception {
        Path data = tmp.resolve("roll");
        RandomFaultIo io = replaying(RandomFaultIo.Kind.RUNTIME, s -> s.startsWith("open ") && s.contains("/t/0/")
                && s.endsWith(".log") && !s.endsWith("00000000000000000000.log"));
        long acked = 0;
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            kafko.createTopic("t", TopicConfig.builder().segmentBytes(1024).build());
            Producer p = kafko.producer("t");
            List<Throwable> failures = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                try {
                    p.send(null, new byte[100]).get(10, TimeUnit.SECONDS);
                    acked++;
                } catch (java.util.concurrent.ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
            PartitionInfo info = kafko.topic("t").orElseThrow().partition(0);
            assertThat(info.state()).isEqualTo(PartitionState.FAILED);
            assertThat(failures.get(0)).isInstanceOf(KafkoException.class)
                    .hasRootCauseInstanceOf(RandomFaultIo.InjectedRuntimeException.class);
            assertThat(failures).allSatisfy(f -> assertThat(f).isInstanceOf(KafkoException.class));
            assertThat(acked).isPositive();
        } catch (KafkoException closeOfTheFailedPartition) {
            // the close reports the partition's failure; what was acknowledged is on disk
        }
        try (Kafko kafko = Kafko.open(data); Consumer c = kafko.consumer("t")) {
            long read = 0;
            for (int idle = 0; idle < 5; ) {
                List<KafkoRecord> got = c.poll(Duration.ofMillis(50));
                idle = got.isEmpty() ? idle + 1 : 0;
                read += got.size();
            }
            assertThat(read).isEqualTo(acked);
        }
    }

    /** An Error (OutOfMemoryError, InternalError) while taking the directory lock leaves the directory free. */
    @Test
    void anErrorWhileOpeningLeavesTheDirectoryFreeForTheNextOpen() throws Exception {
        Path data = tmp.resolve("lock");
        RandomFaultIo io = replaying(RandomFaultIo.Kind.ERROR, s -> s.startsWith("truncate ") && s.endsWith(".lock"));
        Throwable first = catchThrowable(() -> BrokerBridge.open(data, KafkoOptions.DEFAULTS, io).close());
        assertThat(first).isInstanceOf(RandomFaultIo.InjectedError.class);
        Throwable second = catchThrowable(() -> Kafko.open(data).close());
        assertThat(second).as("a second open once the fault is gone").isNull();
    }

    /** A commit whose write fails with a RuntimeException: the caller gets a KafkoException. */
    @Test
    void aRuntimeFailureWritingACommitReachesTheCallerTyped() throws Exception {
        Path data = tmp.resolve("commit");
        RandomFaultIo io = new RandomFaultIo(RandomFaultIo.Kind.RUNTIME, 1, 1, 0, false);
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            kafko.createTopic("t");
            kafko.producer("t").send(null, new byte[10]).join();
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                c.poll(Duration.ofSeconds(1));
                c.commit();
                kafko.producer("t").send(null, new byte[10]).join();
                c.poll(Duration.ofSeconds(1));
                io.replay(once(s -> s.startsWith("write ") && s.endsWith("/offsets")));
                io.arm(true);
                Throwable t = catchThrowable(c::commit);
                assertThat(t).as("a failed commit").isInstanceOf(KafkoException.class);
            }
        }
    }

    /**
     * A roll whose new segment file is created but whose header write fails with a RuntimeException: the
     * partition fails and the file goes, so no later frame goes into the rolled segment and no empty file
     * shadows what it holds: every acknowledged (EVERY_BATCH: fsynced) record is read after a reopen.
     */
    @Test
    void aRuntimeFailureWritingTheNextSegmentsHeaderLosesNoAcknowledgedRecord() throws Exception {
        Path data = tmp.resolve("header");
        RandomFaultIo io = replaying(RandomFaultIo.Kind.RUNTIME, s -> s.startsWith("write ") && s.contains("/t/0/")
                && s.endsWith(".log") && !s.endsWith("00000000000000000000.log"));
        List<RecordPosition> acked = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            kafko.createTopic("t", TopicConfig.builder().segmentBytes(1024).fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = kafko.producer("t");
            for (int i = 0; i < 60; i++) {
                // ten small frames, a large one that makes the segment roll (the roll fails), small ones after it
                byte[] v = new byte[i == 10 ? 700 : 20];
                v[0] = (byte) i;
                try {
                    acked.add(p.sendTo(0, null, v).join());
                    values.add(v);
                } catch (CompletionException e) {
                }
            }
        }
        try (Kafko kafko = Kafko.open(data); Consumer c = kafko.consumer("t")) {
            java.util.Map<Long, KafkoRecord> read = new java.util.HashMap<>();
            for (int idle = 0; idle < 5; ) {
                List<KafkoRecord> got = c.poll(Duration.ofMillis(50));
                idle = got.isEmpty() ? idle + 1 : 0;
                got.forEach(r -> read.put(r.offset(), r));
            }
            List<String> lost = new ArrayList<>();
            for (int i = 0; i < acked.size(); i++) {
                // as a consumer resuming at this offset (a group's commit) reads it
                c.seek(0, acked.get(i).offset());
                KafkoRecord r;
                try {
                    List<KafkoRecord> got = c.poll(Duration.ofMillis(200));
                    r = got.isEmpty() || got.get(0).offset() != acked.get(i).offset() ? null : got.get(0);
                } catch (KafkoException e) {
                    r = null;
                }
                if (r == null || !java.util.Arrays.equals(r.value(), values.get(i))) {
                    lost.add(acked.get(i).offset() + (r == null ? " missing" : " differs"));
                }
            }
            assertThat(lost).as("acknowledged (fsynced) records after reopen").isEmpty();
        }
    }

    /**
     * The first commit of a group fails writing the new offsets file's header (ENOSPC, say): the commit
     * throws. The next commit returns normally, and it survives a reopen (the file is written again with its
     * header first, not appended to one without it).
     */
    @Test
    void aFailedHeaderWriteOfANewOffsetsFileLosesNoLaterCommit() throws Exception {
        Path data = tmp.resolve("offsets");
        RandomFaultIo io = new RandomFaultIo(RandomFaultIo.Kind.IO, 1, 1, 0, false);
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            kafko.createTopic("t");
            for (int i = 0; i < 5; i++) {
                kafko.producer("t").send(null, new byte[10]).join();
            }
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                assertThat(c.poll(Duration.ofSeconds(1))).hasSize(5);
                io.replay(once(s -> s.startsWith("write ") && s.endsWith("/groups/g/offsets")));
                io.arm(true);
                Throwable first = catchThrowable(c::commit);
                assertThat(first).isInstanceOf(KafkoException.class);
                c.commit(); // returns normally
            }
        }
        try (Kafko kafko = Kafko.open(data)) {
            assertThat(kafko.groupInfo("t", "g").committed()).as("the commit that returned normally").containsEntry(0, 5L);
        }
    }

    /**
     * A commit whose entry write fails once the file exists: the commit throws typed, the group goes on reporting
     * what was committed before it, and the next commit (written after the file is rewritten) survives a reopen.
     */
    @Test
    void aFailedCommitChangesNothingTheGroupReportsAndTheNextOneSurvivesAReopen() throws Exception {
        Path data = tmp.resolve("entries");
        RandomFaultIo io = new RandomFaultIo(RandomFaultIo.Kind.IO, 1, 1, 0, false);
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            nineRecords(kafko, TopicConfig.DEFAULTS);
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                c.commit(java.util.Map.of(0, 5L));
                io.replay(once(s -> s.startsWith("write ") && s.endsWith("/groups/g/offsets")));
                io.arm(true);
                assertThat(catchThrowable(() -> c.commit(java.util.Map.of(0, 7L)))).isInstanceOf(KafkoException.class);
                io.arm(false);
                assertThat(kafko.groupInfo("t", "g").committed()).as("the failed commit").containsEntry(0, 5L);
                c.commit(java.util.Map.of(0, 8L));
            }
        }
        try (Kafko kafko = Kafko.open(data)) {
            assertThat(kafko.groupInfo("t", "g").committed()).containsEntry(0, 8L);
        }
    }

    /** A commit whose fsync failed, with no commit after it: the close rewrites the file without it. */
    @Test
    void aCommitWhoseForceFailedDoesNotComeBackAtTheNextOpen() throws Exception {
        Path data = tmp.resolve("force");
        RandomFaultIo io = new RandomFaultIo(RandomFaultIo.Kind.IO, 1, 1, 0, false);
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            nineRecords(kafko, TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                c.commit(java.util.Map.of(0, 5L));
                io.replay(once(s -> s.startsWith("force ") && s.endsWith("/groups/g/offsets")));
                io.arm(true);
                assertThat(catchThrowable(() -> c.commit(java.util.Map.of(0, 7L)))).isInstanceOf(KafkoException.class);
                io.arm(false);
                assertThat(kafko.groupInfo("t", "g").committed()).containsEntry(0, 5L);
            }
        }
        try (Kafko kafko = Kafko.open(data)) {
            assertThat(kafko.groupInfo("t", "g").committed()).as("after a reopen, no commit since the failed one")
                    .containsEntry(0, 5L);
        }
    }

    /** A scheduled fsync of the offsets that failed: the close still makes what was committed durable. */
    @Test
    void aCloseAfterAFailedScheduledFsyncMakesTheCommitsDurable() throws Exception {
        Path data = tmp.resolve("interval");
        RandomFaultIo io = new RandomFaultIo(RandomFaultIo.Kind.IO, 1, 1, 0, false);
        Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io);
        nineRecords(kafko, TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(50))).build());
        Consumer c = kafko.groupConsumer("t", "g");
        c.commit(java.util.Map.of(0, 1L)); // creates the file
        Thread.sleep(300); // and its scheduled fsync passes
        io.replay(once(s -> s.startsWith("force ") && s.endsWith("/groups/g/offsets")));
        io.arm(true);
        c.commit(java.util.Map.of(0, 5L)); // returns; its fsync 50 ms later fails
        for (long deadline = System.nanoTime() + 10_000_000_000L; io.injected.isEmpty() && System.nanoTime() < deadline; ) {
            Thread.sleep(10);
        }
        assertThat(io.injected).as("the scheduled fsync failed").hasSize(1);
        io.arm(false);
        c.close();
        io.recordCalls = true;
        kafko.close();
        io.recordCalls = false;
        assertThat(io.log).as("calls while closing: %s", io.log)
                .anyMatch(s -> s.equals("force offsets") || s.equals("move offsets"));
        try (Kafko reopened = Kafko.open(data)) {
            assertThat(reopened.groupInfo("t", "g").committed()).containsEntry(0, 5L);
        }
    }

    /** A group whose offsets file a failed commit damaged, on a disk that refuses writes there: the topic deletes. */
    @Test
    void aTopicWhoseGroupFileIsDamagedDeletesWhileTheDiskRefusesWrites() throws Exception {
        Path data = tmp.resolve("delete");
        RandomFaultIo io = new RandomFaultIo(RandomFaultIo.Kind.IO, 1, 1, 0, false);
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            nineRecords(kafko, TopicConfig.DEFAULTS);
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                c.commit(java.util.Map.of(0, 5L));
                io.replay(s -> (s.startsWith("write ") || s.startsWith("open ") || s.startsWith("move "))
                        && s.contains("/groups/g/"));
                io.arm(true);
                assertThat(catchThrowable(() -> c.commit(java.util.Map.of(0, 7L)))).isInstanceOf(KafkoException.class);
            }
            assertThat(catchThrowable(() -> kafko.deleteTopic("t"))).as("the deletion").isNull();
            io.arm(false);
            assertThat(kafko.topics()).doesNotContain("t");
            try (Stream<Path> files = Files.walk(data)) {
                assertThat(files.map(Path::toString)).noneMatch(f -> f.contains("/groups/g"));
            }
        }
    }
}
