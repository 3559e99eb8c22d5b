package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.pollUntil;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.log.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Topic#alterConfig}: what a changed config does to a live topic, and what is stored. */
class AlterTopicConfigTest {

    @TempDir
    Path dir;

    @Test
    void aShorterRetentionDeletesWhatItNoLongerKeepsAndIsStoredForTheNextOpen() throws InterruptedException {
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        KafkoOptions options = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(10)).build();
        TopicConfig forever = TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).retention(null).build();
        try (Kafko kafko = Kafko.open(dir, options)) {
            Topic topic = kafko.createTopic("t", forever);
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 20; i++) {
                producer.send(null, new byte[900]).join();
            }
            clock.advance(Duration.ofDays(400));
            producer.send(null, bytes("kept")).join(); // in a segment of its own, as young as the clock

            topic.alterConfig(forever.toBuilder().retention(Duration.ofHours(1)).build());

            awaitLogStart(topic, 20);
            assertThat(topic.config().retention()).isEqualTo(Duration.ofHours(1));
            Consumer c = kafko.consumer("t");
            assertThat(pollUntil(c, 1)).extracting(r -> text(r.value())).containsExactly("kept");
            c.close();
        }
        try (Kafko kafko = Kafko.open(dir, options)) {
            assertThat(kafko.topic("t").orElseThrow().config())
                    .isEqualTo(forever.toBuilder().retention(Duration.ofHours(1)).build());
        }
    }

    @Test
    void aSmallerRetentionInBytesDeletesTheOldestSegments() throws InterruptedException {
        KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(10)).build();
        TopicConfig unlimited = TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES).retention(null).build();
        try (Kafko kafko = Kafko.open(dir, options)) {
            Topic topic = kafko.createTopic("t", unlimited);
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 30; i++) {
                producer.send(null, new byte[900]).join();
            }
            long before = topic.partition(0).sizeBytes();

            topic.alterConfig(unlimited.toBuilder().retentionBytes(5_000).build());

            awaitLogStart(topic, 1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (topic.partition(0).sizeBytes() - lastSegmentSlack() > 5_000) {
                assertThat(System.nanoTime()).as("retention by bytes ran: %s", topic.partition(0)).isLessThan(deadline);
                Thread.sleep(5);
            }
            assertThat(topic.partition(0).sizeBytes()).isLessThan(before);
            assertThat(topic.partition(0).endOffset()).isEqualTo(30);
        }
    }

    /** Retention by bytes keeps whole segments: the log may stay above the limit by less than one. */
    private static long lastSegmentSlack() {
        return TopicConfig.MIN_SEGMENT_BYTES;
    }

    @Test
    void aLowerRecordLimitRefusesLargerSendsFromTheCallOnAndARaisedOneTakesThem() {
        try (Kafko kafko = Kafko.open(dir)) {
            TopicConfig config = TopicConfig.builder().maxRecordBytes(4096).build();
            Topic topic = kafko.createTopic("t", config);
            Producer producer = kafko.producer("t");
            producer.send(null, new byte[2000]).join();

            topic.alterConfig(config.toBuilder().maxRecordBytes(1024).build());
            assertThatThrownBy(() -> producer.send(null, new byte[2000]))
                    .isInstanceOf(RecordTooLargeException.class).hasMessageContaining("maxRecordBytes 1024");
            assertThatThrownBy(() -> producer.sendBatch(List.of(OutgoingRecord.of(null, new byte[10]),
                    OutgoingRecord.of(null, new byte[2000]))))
                    .isInstanceOf(RecordTooLargeException.class);
            producer.send(null, new byte[500]).join();

            topic.alterConfig(config.toBuilder().maxRecordBytes(1 << 20).build());
            producer.send(null, new byte[100_000]).join();

            Consumer c = kafko.consumer("t");
            assertThat(pollUntil(c, 3)).extracting(r -> r.value().length).containsExactly(2000, 500, 100_000);
            c.close();
        }
    }

    /**
     * A raised limit is published to senders before every partition writes by it: the change waits for each
     * partition's owner in turn. A record the call took under the new limit is written, not refused through its future
     * by a partition the change has not reached yet (that refusal could also meet a send checked just before a lowered
     * limit reached its partition).
     */
    @Test
    void aRecordTheCallTookIsWrittenWhileTheLimitChangesPartitionByPartition() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        KafkoObserver holdPartition0 = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (partition == 0 && armed.compareAndSet(true, false)) {
                    entered.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        TopicConfig config = TopicConfig.builder().partitions(2).maxRecordBytes(1024).build();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(holdPartition0).build())) {
            Topic topic = kafko.createTopic("t", config);
            Producer producer = kafko.producer("t");
            armed.set(true);
            CompletableFuture<RecordPosition> held = Fixtures.onNewThread(() -> producer.sendTo(0, null, new byte[10]).join());
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Void> raise = Fixtures.onNewThread(
                    () -> topic.alterConfig(config.toBuilder().maxRecordBytes(4096).build()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (topic.config().maxRecordBytes() != 4096) {
                assertThat(System.nanoTime()).as("the new config is published").isLessThan(deadline);
                Thread.onSpinWait();
            }
            try {
                CompletableFuture<RecordPosition> big = producer.sendTo(1, null, new byte[2000]);
                assertThat(big.get(30, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(1, 0));
            } finally {
                release.countDown();
            }
            raise.get(30, TimeUnit.SECONDS);
            assertThat(held.get(30, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(0, 0));
            assertThat(producer.sendTo(0, null, new byte[2000]).join()).isEqualTo(new RecordPosition(0, 1));
            assertThatThrownBy(() -> producer.sendTo(1, null, new byte[5000])).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageContaining("maxRecordBytes 4096");
        }
    }

    @Test
    void aNewCodecWritesTheNextFramesAndEveryRecordReadsBackAcrossAReopen() {
        byte[] compressible = new byte[4096];
        Arrays.fill(compressible, (byte) 'a');
        TopicConfig plain = TopicConfig.builder().compression(Compression.NONE).build();
        try (Kafko kafko = Kafko.open(dir)) {
            Topic topic = kafko.createTopic("t", plain);
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 10; i++) {
                producer.send(null, compressible).join();
            }
            long plainBytes = topic.partition(0).sizeBytes();

            topic.alterConfig(plain.toBuilder().compression(Compression.LZ4).build());
            for (int i = 0; i < 10; i++) {
                producer.send(null, compressible).join();
            }
            long lz4Bytes = topic.partition(0).sizeBytes() - plainBytes;
            assertThat(lz4Bytes).as("ten lz4 frames against ten plain ones of %d bytes", plainBytes)
                    .isLessThan(plainBytes / 4);

            topic.alterConfig(plain.toBuilder().compression(Compression.ZSTD).build());
            for (int i = 0; i < 10; i++) {
                producer.send(null, compressible).join();
            }
            assertThat(topic.partition(0).sizeBytes() - plainBytes - lz4Bytes).isLessThan(plainBytes / 4);
        }
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.topic("t").orElseThrow().config().compression()).isEqualTo(Compression.ZSTD);
            Consumer c = kafko.consumer("t");
            List<KafkoRecord> all = pollUntil(c, 30);
            assertThat(all).hasSize(30).allSatisfy(r -> assertThat(r.value()).isEqualTo(compressible));
            assertThat(all).extracting(KafkoRecord::offset).containsExactlyElementsOf(
                    java.util.stream.LongStream.range(0, 30).boxed().toList());
            c.close();
        }
    }

    @Test
    void aSmallerSegmentSizeRollsTheActiveSegmentAtTheNextAppendAndSurvivesAReopen() {
        TopicConfig big = TopicConfig.builder().segmentBytes(1 << 20).build();
        try (Kafko kafko = Kafko.open(dir)) {
            Topic topic = kafko.createTopic("t", big);
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 20; i++) {
                producer.send(null, new byte[1000]).join(); // 20 KB in one segment
            }
            assertThat(topic.partition(0).segmentCount()).isEqualTo(1);

            topic.alterConfig(big.toBuilder().segmentBytes(4096).build());
            producer.send(null, new byte[1000]).join();
            assertThat(topic.partition(0).segmentCount()).isEqualTo(2);
            for (int i = 0; i < 8; i++) {
                producer.send(null, new byte[1000]).join();
            }
            assertThat(topic.partition(0).segmentCount()).as("about four records a segment from now on").isGreaterThanOrEqualTo(4);
        }
        // reopened with the active segment already past the limit once more: it rolls again, nothing lost
        try (Kafko kafko = Kafko.open(dir)) {
            Topic topic = kafko.topic("t").orElseThrow();
            assertThat(topic.config().segmentBytes()).isEqualTo(4096);
            kafko.producer("t").send(null, new byte[1000]).join();
            Consumer c = kafko.consumer("t");
            assertThat(pollUntil(c, 30)).hasSize(30).allSatisfy(r -> assertThat(r.value()).hasSize(1000));
            c.close();
        }
    }

    @Test
    void aPolicyThatFsyncsForcesWhatIsHeldAtTheCallAndEverySendAfterItUntilItIsSwitchedOff() {
        AtomicInteger fsyncs = new AtomicInteger();
        KafkoObserver observer = countingFsyncs(fsyncs);
        TopicConfig never = TopicConfig.builder().fsync(FsyncPolicy.NEVER).build();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            Topic topic = kafko.createTopic("t", never);
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 5; i++) {
                producer.send(null, bytes("v" + i)).join();
            }
            assertThat(fsyncs).hasValue(0);

            topic.alterConfig(never.toBuilder().fsync(FsyncPolicy.EVERY_BATCH).build());
            assertThat(fsyncs).as("what was written under NEVER forced before the call returned").hasValue(1);
            for (int i = 0; i < 3; i++) {
                producer.send(null, bytes("w" + i)).join();
            }
            assertThat(fsyncs).as("one fsync per awaited send").hasValue(4);

            topic.alterConfig(never);
            producer.send(null, bytes("x")).join();
            producer.send(null, bytes("y")).join();
            assertThat(fsyncs).hasValue(4);
            assertThat(topic.partition(0).endOffset()).isEqualTo(10);
        }
    }

    @Test
    void anIntervalPolicyForcesWhatIsHeldWhenItIsSwitchedOn() {
        AtomicInteger fsyncs = new AtomicInteger();
        KafkoObserver observer = countingFsyncs(fsyncs);
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            Topic topic = kafko.createTopic("t");
            kafko.producer("t").send(null, bytes("v")).join();
            topic.alterConfig(topic.config().toBuilder().fsync(FsyncPolicy.interval(Duration.ofHours(1))).build());
            assertThat(fsyncs).hasValue(1);
        }
    }

    @Test
    void aConfigWithAnotherPartitionCountIsRefusedAndChangesNothing() {
        try (Kafko kafko = Kafko.open(dir)) {
            Topic topic = kafko.createTopic("t", TopicConfig.builder().partitions(3).build());
            TopicConfig before = topic.config();
            for (int partitions : new int[] {1, 4}) {
                assertThatThrownBy(() -> topic.alterConfig(before.toBuilder().partitions(partitions)
                        .retention(Duration.ofMinutes(1)).build()))
                        .isInstanceOf(InvalidPartitionException.class)
                        .hasMessageContaining("topic 't' has 3 partitions")
                        .hasMessageContaining("asks for " + partitions)
                        .hasMessageContaining("increasePartitions");
            }
            assertThat(topic.config()).isEqualTo(before);
            assertThat(topic.partitionCount()).isEqualTo(3);
            assertThatThrownBy(() -> topic.alterConfig(null)).isInstanceOf(NullPointerException.class);
        }
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.topic("t").orElseThrow().config().retention()).isEqualTo(TopicConfig.DEFAULTS.retention());
        }
    }

    @Test
    void aHandleOfADeletedTopicOrAClosedInstanceIsRefused() {
        Kafko kafko = Kafko.open(dir);
        Topic topic = kafko.createTopic("t");
        TopicConfig changed = topic.config().toBuilder().retention(Duration.ofMinutes(5)).build();
        kafko.deleteTopic("t");
        assertThatThrownBy(() -> topic.alterConfig(changed)).isInstanceOf(UnknownTopicException.class);
        Topic again = kafko.createTopic("t");
        kafko.close();
        assertThatThrownBy(() -> again.alterConfig(changed)).isInstanceOf(KafkoClosedException.class);
    }

    @Test
    void aConfigThatCannotBeStoredChangesNothingNowOrAtTheNextOpen() {
        FaultyFileIo io = new FaultyFileIo();
        TopicConfig config = TopicConfig.builder().maxRecordBytes(4096).build();
        try (Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            Topic topic = kafko.createTopic("t", config);
            io.failNthMove(1); // the rename that replaces the stored config
            assertThatThrownBy(() -> topic.alterConfig(config.toBuilder().maxRecordBytes(64).build()))
                    .isInstanceOf(KafkoStorageException.class)
                    .hasMessageContaining("topic.conf");
            assertThat(topic.config()).isEqualTo(config);
            kafko.producer("t").send(null, new byte[1000]).join(); // still taken: the old limit holds
        }
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.topic("t").orElseThrow().config()).isEqualTo(config);
        }
    }

    @Test
    void aFlushTheNewPolicyAsksForThatFailsFailsThePartitionAndTheCallWithTheConfigStored() {
        FaultyFileIo io = new FaultyFileIo();
        TopicConfig never = TopicConfig.builder().partitions(2).build();
        TopicConfig everyBatch = never.toBuilder().fsync(FsyncPolicy.EVERY_BATCH).build();
        try (Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            Topic topic = kafko.createTopic("t", never);
            Producer producer = kafko.producer("t");
            producer.sendTo(0, null, bytes("a")).join();
            producer.sendTo(1, null, bytes("b")).join();
            // the config file is forced before its rename: fail the first file fsync after it, a partition's flush
            long movesBefore = io.moves();
            AtomicInteger armed = new AtomicInteger();
            io.beforeForce(() -> {
                if (io.moves() > movesBefore && armed.getAndIncrement() == 0) {
                    io.failNthForce(1);
                }
            });
            assertThatThrownBy(() -> topic.alterConfig(everyBatch)).isInstanceOf(KafkoException.class);
            assertThat(armed.get()).as("both partitions flushed").isEqualTo(2);
            assertThat(topic.config()).isEqualTo(everyBatch);
            assertThat(topic.partitions()).extracting(PartitionInfo::state)
                    .containsOnlyOnce(PartitionState.FAILED);
        }
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.topic("t").orElseThrow().config()).isEqualTo(everyBatch);
            Consumer c = kafko.consumer("t");
            assertThat(pollUntil(c, 2)).extracting(r -> text(r.value())).containsExactlyInAnyOrder("a", "b");
            c.close();
        }
    }

    @Test
    void anEqualConfigChangesNothing() {
        FaultyFileIo io = new FaultyFileIo();
        try (Kafko kafko = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            Topic topic = kafko.createTopic("t");
            long moves = io.moves();
            topic.alterConfig(TopicConfig.builder().build());
            assertThat(io.moves()).as("no config file written").isEqualTo(moves);
        }
    }

    /**
     * Four senders keep sending while the config changes back and forth (codec, fsync policy, segment size, record
     * limit): every acknowledged record is read once, in each sender's order, with its value; none is refused.
     */
    @Test
    void sendsWhileTheConfigChangesAreAllKeptInOrder() throws Exception {
        int senders = 4;
        int perSender = 3_000;
        TopicConfig base = TopicConfig.builder().segmentBytes(64 * 1024).build();
        try (Kafko kafko = Kafko.open(dir)) {
            Topic topic = kafko.createTopic("t", base);
            Producer producer = kafko.producer("t");
            AtomicLong changes = new AtomicLong();
            List<CompletableFuture<Void>> running = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                int sender = s;
                running.add(Fixtures.onNewThread(() -> {
                    List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
                    for (int i = 0; i < perSender; i++) {
                        sent.add(producer.send(null, bytes(sender + ":" + i + ":" + "x".repeat(i % 200))));
                        if (i % 100 == 99) {
                            sent.get(sent.size() - 1).join();
                        }
                    }
                    sent.forEach(CompletableFuture::join);
                }));
            }
            Random random = new Random(42);
            Compression[] codecs = Compression.values();
            while (!CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).isDone()) {
                topic.alterConfig(base.toBuilder()
                        .compression(codecs[random.nextInt(codecs.length)])
                        .fsync(random.nextBoolean() ? FsyncPolicy.NEVER : FsyncPolicy.EVERY_BATCH)
                        .segmentBytes(random.nextBoolean() ? 64 * 1024 : 8 * 1024)
                        .maxRecordBytes(random.nextBoolean() ? 1024 : 4096)
                        .build());
                changes.incrementAndGet();
            }
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            assertThat(changes.get()).isGreaterThan(1);

            Consumer c = kafko.consumer("t");
            List<KafkoRecord> all = pollUntil(c, senders * perSender);
            assertThat(all).hasSize(senders * perSender);
            int[] next = new int[senders];
            for (KafkoRecord r : all) {
                String[] parts = text(r.value()).split(":", -1);
                int sender = Integer.parseInt(parts[0]);
                assertThat(Integer.parseInt(parts[1])).as("sender %d's order", sender).isEqualTo(next[sender]);
                assertThat(parts[2]).hasSize(next[sender] % 200);
                next[sender]++;
            }
            c.close();
        }
    }

    private static KafkoObserver countingFsyncs(AtomicInteger fsyncs) {
        return new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                fsyncs.incrementAndGet();
            }
        };
    }

    private static void awaitLogStart(Topic topic, long logStart) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (topic.partition(0).logStartOffset() < logStart) {
            assertThat(System.nanoTime()).as("retention ran: %s", topic.partition(0)).isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
