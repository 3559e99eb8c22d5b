package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConsumerTest {

    @TempDir
    Path dir;

    @Test
    void aConsumerUsedByASecondThreadAtTheSameTimeThrowsInsteadOfReadingTwiceOrSkipping() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            try (Consumer c = k.groupConsumer("t", "g")) {
                CompletableFuture<List<KafkoRecord>> parked = CompletableFuture.supplyAsync(() -> c.poll(Duration.ofSeconds(30)));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                // wait until the other thread is inside poll: then this thread's calls are refused
                Throwable refused = null;
                while (refused == null && System.nanoTime() < deadline) {
                    try {
                        c.position(0);
                        Thread.sleep(5);
                    } catch (java.util.ConcurrentModificationException e) {
                        refused = e;
                    }
                }
                assertThat(refused).as("a call made while another thread polls").isNotNull()
                        .hasMessageContaining("for one thread at a time");
                assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(java.util.ConcurrentModificationException.class);
                assertThatThrownBy(c::commit).isInstanceOf(java.util.ConcurrentModificationException.class);
                assertThatThrownBy(c::close).isInstanceOf(java.util.ConcurrentModificationException.class);
                c.wakeup(); // the one call any thread may make
                assertThat(parked.get(10, TimeUnit.SECONDS)).isEmpty();
                // once the other thread is done, this one may take the consumer over
                k.producer("t").send(null, bytes("x")).join();
                assertThat(c.poll(Duration.ofSeconds(5))).extracting(KafkoRecord::offset).containsExactly(0L);
            }
        }
    }

    @Test
    void pollReturnsRecordsInOffsetOrderAndAdvancesThePosition() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 10; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
            try (Consumer c = k.consumer("t")) {
                assertThat(c.assignment()).containsExactly(0);
                assertThat(c.group()).isEmpty();
                List<KafkoRecord> got = c.poll(Duration.ofSeconds(1));
                assertThat(got).extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
                assertThat(text(got.get(3).value())).isEqualTo("v3");
                assertThat(c.position(0)).isEqualTo(10);
                assertThat(c.poll(Duration.ZERO)).isEmpty();
            }
        }
    }

    @Test
    void maxPollRecordsBoundsAPollAndTheStartingPartitionRotates() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().maxPollRecords(5).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            Producer p = k.producer("t");
            for (int part = 0; part < 3; part++) {
                for (int i = 0; i < 20; i++) {
                    p.sendTo(part, null, bytes(part + "-" + i)).join();
                }
            }
            try (Consumer c = k.consumer("t")) {
                List<Integer> firstPartitions = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    List<KafkoRecord> got = c.poll(Duration.ofSeconds(1));
                    assertThat(got).hasSize(5);
                    assertThat(got).extracting(KafkoRecord::partition).containsOnly(got.get(0).partition());
                    firstPartitions.add(got.get(0).partition());
                }
                // fair: every partition gets its turn
                assertThat(firstPartitions).containsExactly(0, 1, 2, 0, 1, 2);
            }
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withMaxPollRecords(50))) {
                List<KafkoRecord> got = c.poll(Duration.ofSeconds(1));
                assertThat(got).hasSize(50);
                assertThat(got).extracting(KafkoRecord::partition).contains(0, 1, 2);
            }
        }
    }

    /**
     * Busy partitions share the polls evenly whatever lies between them: the start moved by one partition
     * each poll, so a busy partition after a run of empty ones got their turns too (partitions 0 and 1 of
     * 100: 590 records against 10 over 60 polls of 10).
     */
    @ParameterizedTest
    @CsvSource({"4, 0, 3", "4, 0, 1", "3, 0, 1", "8, 0, 5", "100, 0, 1", "100, 98, 99", "100, 0, 99"})
    void busyPartitionsShareThePollsEvenlyWhateverEmptyPartitionsLieBetweenThem(int partitions, int a, int b) {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().maxPollRecords(10).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(partitions).build());
            Producer p = k.producer("t");
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                batch.add(OutgoingRecord.of(null, bytes("x")));
            }
            p.sendBatchTo(a, batch).join();
            p.sendBatchTo(b, batch).join();
            for (Consumer c : List.of(k.consumer("t"), k.groupConsumer("t", "g"))) {
                Map<Integer, Integer> got = new HashMap<>();
                for (int i = 0; i < 60; i++) {
                    for (KafkoRecord r : c.poll(Duration.ofSeconds(1))) {
                        got.merge(r.partition(), 1, Integer::sum);
                    }
                }
                assertThat(got).as("records per partition over 60 polls of 10").containsOnly(
                        Map.entry(a, 300), Map.entry(b, 300));
                c.close();
            }
        }
    }

    @Test
    void pollWaitsForAnAppendAndReturnsItWithoutWaitingForTheTimeout() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer c = k.consumer("t")) {
                CompletableFuture<List<KafkoRecord>> polled = Fixtures.onNewThread(() -> c.poll(Duration.ofSeconds(30)));
                Thread.sleep(100);
                assertThat(polled).isNotDone();
                long t0 = System.nanoTime();
                k.producer("t").sendTo(1, null, bytes("hello")).join();
                List<KafkoRecord> got = polled.get(20, TimeUnit.SECONDS);
                assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)).isLessThan(20);
                assertThat(got).extracting(r -> text(r.value())).containsExactly("hello");
            }
        }
    }

    @Test
    void pollTimesOutEmptyAndWakeupEndsAWaitAtOnce() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            try (Consumer c = k.consumer("t")) {
                assertThat(c.poll(Duration.ofMillis(30))).isEmpty();
                CompletableFuture<List<KafkoRecord>> polled = Fixtures.onNewThread(() -> c.poll(Duration.ofMinutes(5)));
                Thread.sleep(50);
                c.wakeup();
                assertThat(polled.get(20, TimeUnit.SECONDS)).isEmpty();
                c.wakeup();
                assertThat(c.poll(Duration.ofMinutes(5))).isEmpty();
            }
        }
    }

    @Test
    void seekVariantsMoveThePosition() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Producer p = k.producer("t");
            for (int i = 0; i < 10; i++) {
                p.send(OutgoingRecord.of(null, bytes("v" + i), Headers.empty(), 1_000L * (i + 1))).join();
            }
            try (Consumer c = k.consumer("t")) {
                c.seek(0, 7);
                assertThat(c.poll(Duration.ofSeconds(1))).extracting(KafkoRecord::offset).containsExactly(7L, 8L, 9L);
                c.seekToBeginning();
                assertThat(c.position(0)).isZero();
                c.seekToEnd();
                assertThat(c.position(0)).isEqualTo(10);
                c.seekAll(4);
                assertThat(c.position(0)).isEqualTo(4);
                c.seekToTimestamp(5_500);
                assertThat(c.position(0)).isEqualTo(5);
                c.seekToTimestamp(99_000);
                assertThat(c.position(0)).isEqualTo(10);
                assertThatThrownBy(() -> c.seek(1, 0)).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> c.position(3)).isInstanceOf(InvalidPartitionException.class);
            }
        }
    }

    @Test
    void aTimestampSeekOfOnePartitionLeavesTheOthersWhereTheyAre() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 10; i++) {
                p.sendTo(0, OutgoingRecord.of(null, bytes("a" + i), Headers.empty(), 1_000L * (i + 1))).join();
                p.sendTo(1, OutgoingRecord.of(null, bytes("b" + i), Headers.empty(), 1_000L * (i + 1))).join();
            }
            try (Consumer c = k.consumer("t")) {
                c.seek(0, 2);
                c.seek(1, 8);
                c.seekToTimestamp(1, 4_500);
                assertThat(c.position(1)).isEqualTo(4);
                assertThat(c.position(0)).isEqualTo(2);
                c.seekToTimestamp(0, 99_000);
                assertThat(c.position(0)).isEqualTo(10);
                assertThat(c.position(1)).isEqualTo(4);
                assertThatThrownBy(() -> c.seekToTimestamp(2, 0)).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> c.seekToTimestamp(0, -1)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("negative timestamp -1");
                assertThat(c.position(0)).isEqualTo(10);
            }
        }
    }

    @Test
    void positionBeyondTheEndResetsByPolicy() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            for (int i = 0; i < 5; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
            try (Consumer c = k.consumer("t")) {
                c.seek(0, 50);
                assertThat(c.poll(Duration.ofMillis(10))).isEmpty();
                assertThat(c.position(0)).isEqualTo(5);
            }
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.FAIL))) {
                c.seek(0, 50);
                assertThat(c.position(0)).isEqualTo(50);
                assertThatThrownBy(() -> c.poll(Duration.ofMillis(10))).isInstanceOf(OffsetOutOfRangeException.class)
                        .hasMessageContaining("position 50").hasMessageContaining("'t'");
            }
        }
    }

    @Test
    void aSeekPastTheEndMovesToTheEndAtOnceSoRecordsAppendedAfterItAreRead() {
        for (OffsetResetPolicy policy : new OffsetResetPolicy[] {OffsetResetPolicy.EARLIEST, OffsetResetPolicy.LATEST}) {
            Path data = dir.resolve(policy.name());
            try (Kafko k = Kafko.open(data)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 10; i++) {
                    p.send(null, bytes("v" + i)).join();
                }
                try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(policy))) {
                    c.seek(0, 1000);
                    assertThat(c.position(0)).as(policy.name()).isEqualTo(10);
                    p.send(null, bytes("after the seek")).join();
                    assertThat(c.poll(Duration.ofSeconds(1))).as(policy.name()).extracting(KafkoRecord::offset)
                            .containsExactly(10L);
                }
            }
        }
    }

    @Test
    void retentionDeletesTheExpiredRecordsOfATopicNobodyAppendsToAnyMore() throws Exception {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        java.time.Clock clock = clockOf(now);
        KafkoOptions opts = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(20)).build();
        try (Kafko k = Kafko.open(dir, opts)) {
            Topic t = k.createTopic("t", TopicConfig.builder().retention(Duration.ofHours(1)).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 10; i++) {
                p.send(null, bytes("v" + i)).join();
            }
            try (Consumer g = k.groupConsumer("t", "g")) {
                assertThat(Fixtures.pollUntil(g, 10)).hasSize(10);
                g.commit(Map.of(0, 4L));
            }
            now.addAndGet(Duration.ofHours(2).toMillis());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (t.partition(0).logStartOffset() < 10 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            // one segment, the active one: it rolled so that its expired records could go, as in Kafka
            assertThat(t.partition(0).logStartOffset()).isEqualTo(10);
            assertThat(t.partition(0).endOffset()).isEqualTo(10);
            assertThat(k.groupInfo("t", "g").lag()).containsEntry(0, 0L);
            p.send(null, bytes("after")).join();
            try (Consumer g = k.groupConsumer("t", "g")) {
                assertThat(Fixtures.pollUntil(g, 1)).extracting(KafkoRecord::offset).containsExactly(10L);
            }
        }
    }

    @Test
    void anActiveSegmentRolledByRetentionRightAfterACleanOpenIsClosedCleanlyToo() throws Exception {
        java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000_000_000L);
        KafkoOptions opts = KafkoOptions.builder().clock(clockOf(now)).build();
        TopicConfig config = TopicConfig.builder().retention(Duration.ofHours(1)).build();
        try (Kafko k = Kafko.open(dir, opts)) {
            k.createTopic("t", config);
            for (int i = 0; i < 10; i++) {
                k.producer("t").send(null, bytes("v" + i)).join();
            }
        }
        now.addAndGet(Duration.ofHours(2).toMillis());
        try (Kafko k = Kafko.open(dir, opts)) {
            // retention runs once at open: nothing appended since the clean open, the roll is the first change
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (k.topic("t").orElseThrow().partition(0).logStartOffset() < 10 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(k.topic("t").orElseThrow().partition(0).logStartOffset()).isEqualTo(10);
        }
        try (dev.kafko.internal.log.CapturedWarnings warnings =
                     dev.kafko.internal.log.CapturedWarnings.of("dev.kafko.internal.log.LogLoader");
             Kafko k = Kafko.open(dir, opts)) {
            PartitionInfo p = k.topic("t").orElseThrow().partition(0);
            assertThat(p.logStartOffset()).isEqualTo(10);
            assertThat(p.endOffset()).isEqualTo(10);
            assertThat(warnings.lines()).as("closed cleanly: nothing to recover").isEmpty();
            java.nio.file.Path segment = dev.kafko.internal.io.FileNames.segmentFile(
                    dev.kafko.internal.io.FileNames.partitionDir(dir.resolve("t"), 0), 10);
            assertThat(java.nio.file.Files.size(segment)).as("the zeros written ahead were cut at the close")
                    .isEqualTo(p.sizeBytes());
        }
    }

    private static java.time.Clock clockOf(java.util.concurrent.atomic.AtomicLong now) {
        return new java.time.Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                return java.time.Instant.ofEpochMilli(now.get());
            }
        };
    }

    @Test
    void positionBelowTheLogStartAfterRetentionResetsToEarliestOrFails() throws Exception {
        KafkoOptions opts = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(20)).build();
        try (Kafko k = Kafko.open(dir, opts)) {
            Topic t = k.createTopic("t", TopicConfig.builder().segmentBytes(1024).retentionBytes(2048).build());
            Consumer early = k.consumer("t");
            Consumer failing = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.FAIL));
            Producer p = k.producer("t");
            for (int i = 0; i < 200; i++) {
                p.send(null, new byte[100]).join();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (t.partition(0).logStartOffset() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            long start = t.partition(0).logStartOffset();
            assertThat(start).isPositive();
            List<KafkoRecord> got = early.poll(Duration.ofSeconds(1));
            assertThat(got.get(0).offset()).isGreaterThanOrEqualTo(start);
            assertThatThrownBy(() -> failing.poll(Duration.ofSeconds(1))).isInstanceOfSatisfying(
                    OffsetOutOfRangeException.class, e -> {
                        assertThat(e.partition()).hasValue(0);
                        assertThat(e.offset()).hasValue(0);
                    });
            assertThatThrownBy(() -> failing.seek(0, -5)).isInstanceOfSatisfying(OffsetOutOfRangeException.class,
                    e -> assertThat(e.offset()).hasValue(-5));
            early.close();
            failing.close();
        }
    }

    @Test
    void anonymousConsumerCommitsNothingAndSeesNewPartitions() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t");
            try (Consumer c = k.consumer("t")) {
                c.commit();
                c.commit(java.util.Map.of(0, 1L));
                assertThat(c.committed(0)).isEmpty();
                t.increasePartitions(2);
                k.producer("t").sendTo(1, null, bytes("new")).join();
                assertThat(Fixtures.pollUntil(c, 1)).extracting(KafkoRecord::partition).containsExactly(1);
                assertThat(c.assignment()).containsExactly(0, 1);
            }
        }
    }

    @Test
    void closedConsumerRefusesWork() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Consumer c = k.consumer("t");
            c.close();
            c.close();
            List<ThrowingCallable> calls = List.<ThrowingCallable>of(() -> c.poll(Duration.ZERO), () -> c.seek(0, 0), () -> c.seekAll(0),
                    c::seekToBeginning, c::seekToEnd, () -> c.seekToTimestamp(0), () -> c.seekToTimestamp(0, 0),
                    () -> c.position(0), c::assignment,
                    c::commit, () -> c.commit(Map.of(0, 0L)), () -> c.committed(0));
            for (ThrowingCallable call : calls) {
                assertThatThrownBy(call).isInstanceOf(KafkoClosedException.class);
            }
            assertThatThrownBy(() -> k.consumer("nope")).isInstanceOf(UnknownTopicException.class);
            // a consumer of a closed instance is closed too
            Consumer open = k.groupConsumer("t", "g");
            k.close();
            for (ThrowingCallable call : List.<ThrowingCallable>of(c::assignment, open::assignment, () -> open.seekAll(0))) {
                assertThatThrownBy(call).isInstanceOf(KafkoClosedException.class);
            }
        }
    }

    @Test
    void aNegativeOffsetIsRefusedAsSuchAfterTheCloseAndWithoutAnAssignmentAsANegativeTimeoutIs() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Consumer member = k.groupConsumer("t", "g");
            try (Consumer idle = k.groupConsumer("t", "g")) {
                assertThat(idle.assignment()).isEmpty(); // the first member holds the only partition
                assertThatThrownBy(() -> idle.seekAll(-1)).isInstanceOf(OffsetOutOfRangeException.class);
            }
            member.close();
            List<ThrowingCallable> calls = List.<ThrowingCallable>of(() -> member.seek(0, -1),
                    () -> member.seekAll(-1), () -> member.commit(Map.of(0, -1L)));
            for (ThrowingCallable call : calls) {
                assertThatThrownBy(call).isInstanceOf(OffsetOutOfRangeException.class);
            }
            assertThatThrownBy(() -> member.seekToTimestamp(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> member.poll(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void committedOfAPartitionTheTopicDoesNotHaveIsRefusedForAnAnonymousConsumerAsForAMember() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            try (Consumer anonymous = k.consumer("t"); Consumer member = k.groupConsumer("t", "g")) {
                assertThat(anonymous.committed(1)).isEmpty();
                for (Consumer c : List.of(anonymous, member)) {
                    assertThatThrownBy(() -> c.committed(2)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> c.committed(-1)).isInstanceOf(InvalidPartitionException.class);
                }
            }
        }
    }

    @Test
    void aNullHeaderKeyIsRefusedNamingIt() {
        Headers headers = Headers.of(new Header("k", new byte[] {1}));
        assertThatThrownBy(() -> headers.lastHeader(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key");
        assertThatThrownBy(() -> headers.headers(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key");
        assertThat(headers.lastHeader("k").value()).containsExactly(1);
    }

    @Test
    void committingANullPartitionOrOffsetIsANullPointerExceptionNamingTheElement() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Consumer c = k.groupConsumer("t", "g");
            Map<Integer, Long> offsets = new HashMap<>();
            offsets.put(null, 1L);
            assertThatThrownBy(() -> c.commit(offsets)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("null partition").hasMessageContaining("'t'");
            offsets.clear();
            offsets.put(0, null);
            assertThatThrownBy(() -> c.commit(offsets)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("null offset for partition 0").hasMessageContaining("'t'");
            assertThat(c.committed(0)).isEmpty();
        }
    }

    @Test
    void closingTheInstanceWakesAWaitingConsumer() throws Exception {
        Kafko k = Kafko.open(dir);
        k.createTopic("t");
        Consumer c = k.consumer("t");
        CompletableFuture<List<KafkoRecord>> polled = Fixtures.onNewThread(() -> c.poll(Duration.ofMinutes(5)));
        Thread.sleep(50);
        k.close();
        assertThatThrownBy(() -> polled.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(KafkoClosedException.class);
    }

    @Test
    void anInterruptedThreadGetsTheRecordsThereThenAnInterruptExceptionInsteadOfSpinningOutItsTimeout() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            k.producer("t").send(null, bytes("x")).join();
            try (Consumer c = k.consumer("t")) {
                Thread.currentThread().interrupt();
                try {
                    assertThat(c.poll(Duration.ofSeconds(5))).extracting(KafkoRecord::offset).containsExactly(0L);
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> c.poll(Duration.ofSeconds(5))).isInstanceOf(InterruptException.class)
                            .hasMessageContaining("interrupted while polling t");
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
                    assertThat(Thread.currentThread().isInterrupted()).as("the interrupt status is kept").isTrue();
                } finally {
                    Thread.interrupted();
                }
                assertThat(c.poll(Duration.ZERO)).as("usable again once the interrupt is handled").isEmpty();
            }
        }
    }

    @Test
    void aThreadInterruptedWhileItWaitsInPollGetsAnInterruptExceptionAtOnce() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            try (Consumer c = k.consumer("t")) {
                CompletableFuture<Thread> poller = new CompletableFuture<>();
                CompletableFuture<Throwable> thrown = Fixtures.onNewThread(() -> {
                    poller.complete(Thread.currentThread());
                    try {
                        c.poll(Duration.ofMinutes(1));
                        return null;
                    } catch (InterruptException e) {
                        return Thread.currentThread().isInterrupted() ? e : new AssertionError("interrupt status lost");
                    }
                });
                Thread t = poller.get(10, TimeUnit.SECONDS);
                while (t.getState() != Thread.State.TIMED_WAITING) {
                    Thread.sleep(1);
                }
                t.interrupt();
                assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptException.class);
            }
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.EnumSource(OffsetResetPolicy.class)
    void aNewAnonymousConsumerStartsAtOffsetZeroAndItsResetPolicyDecidesBelowTheLogStart(OffsetResetPolicy reset)
            throws Exception {
        writeTwoHundredRecordsOverRetention();
        try (Kafko k = Kafko.open(dir)) {
            long start = awaitRetentionRun(k);
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(reset))) {
                assertThat(c.position(0)).isZero();
                switch (reset) {
                    case EARLIEST -> assertThat(c.poll(Duration.ZERO)).first().extracting(KafkoRecord::offset).isEqualTo(start);
                    case LATEST -> {
                        assertThat(c.poll(Duration.ZERO)).isEmpty();
                        assertThat(c.position(0)).isEqualTo(200);
                    }
                    case FAIL -> assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(OffsetOutOfRangeException.class);
                }
            }
        }
    }

    @Test
    void aSeekToTheBeginningOfOnePartitionGoesToItsLogStartWhereRetentionDeletedItsFirstRecords() throws Exception {
        writeTwoHundredRecordsOverRetention();
        try (Kafko k = Kafko.open(dir)) {
            long start = awaitRetentionRun(k);
            // under FAIL, a position below the log start fails the poll: the seek must land on the log start itself
            try (Consumer c = k.consumer("t", ConsumerOptions.DEFAULTS.withOffsetReset(OffsetResetPolicy.FAIL))) {
                c.seek(0, 150);
                c.seekToBeginning(0);
                assertThat(c.position(0)).isEqualTo(start);
                assertThat(c.poll(Duration.ZERO)).first().extracting(KafkoRecord::offset).isEqualTo(start);
                c.seekToBeginning();
                assertThat(c.position(0)).isEqualTo(start);
            }
        }
    }

    /** Topic "t": 200 records of 100 bytes in segments of 1 KiB, more than its retention of 2 KiB keeps. */
    private void writeTwoHundredRecordsOverRetention() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(1024).retentionBytes(2048).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 200; i++) {
                p.send(null, new byte[100]).join();
            }
        }
    }

    /** The log start of "t" once the retention run at {@code k}'s open deleted its old segments (positive). */
    private static long awaitRetentionRun(Kafko k) throws InterruptedException {
        // retention runs once at open, in the background, a few segments a run: until the partition holds
        // less than retentionBytes plus one segment
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (k.topic("t").orElseThrow().partition(0).sizeBytes() >= 2048 + 1024 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        long start = k.topic("t").orElseThrow().partition(0).logStartOffset();
        assertThat(start).isPositive();
        return start;
    }
}
