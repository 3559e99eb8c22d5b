package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerTest {

    @TempDir
    Path dir;

    @Test
    void awaitedSendsGetConsecutiveOffsets() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Producer p = k.producer("t");
            for (int i = 0; i < 100; i++) {
                assertThat(p.send(null, bytes("v" + i)).join()).isEqualTo(new RecordPosition(0, i));
            }
            assertThat(p.topic()).isEqualTo("t");
            assertThat(p.partitionCount()).isEqualTo(1);
        }
    }

    @Test
    void aNullHeaderIsRefusedWhereTheHeadersAreMade() {
        assertThatThrownBy(() -> Headers.of(Header.of("a", "1"), null)).isInstanceOf(NullPointerException.class)
                .hasMessage("headers[1] is null");
        assertThatThrownBy(() -> Headers.of(Arrays.asList((Header) null))).isInstanceOf(NullPointerException.class)
                .hasMessage("headers[0] is null");
        assertThatThrownBy(() -> Headers.of((List<Header>) null)).isInstanceOf(NullPointerException.class)
                .hasMessage("headers");
    }

    @Test
    void aHeaderOfANullStringHasANullValue() {
        assertThat(Header.of("k", (String) null)).isEqualTo(new Header("k", null));
        assertThat(Header.of("k", (String) null).valueAsString()).isNull();
        assertThat(Header.of("k", "é").value()).isEqualTo(new byte[] {(byte) 0xC3, (byte) 0xA9});
    }

    @Test
    void headersTimestampsNullKeysAndTombstonesRoundTrip() {
        try (Kafko k = Kafko.open(dir); Consumer c = openTopic(k)) {
            Producer p = k.producer("t");
            Headers h = Headers.of(Header.of("trace", "abc")).with("empty", null).with("trace", bytes("def"));
            p.send(bytes("k"), bytes("v"), h).join();
            p.send(OutgoingRecord.of(null, null, Headers.empty(), 1234L)).join();
            p.sendTo(0, OutgoingRecord.of(new byte[0], bytes("x"), Headers.empty(), 99L)).join();
            List<KafkoRecord> got = Fixtures.pollUntil(c, 3);
            assertThat(got).hasSize(3);
            assertThat(got.get(0).headers()).isEqualTo(h);
            assertThat(text(got.get(0).key())).isEqualTo("k");
            assertThat(got.get(0).topic()).isEqualTo("t");
            assertThat(got.get(1).key()).isNull();
            assertThat(got.get(1).value()).isNull();
            assertThat(got.get(1).timestamp()).isEqualTo(1234L);
            assertThat(got.get(2).key()).isEmpty();
            assertThat(got.get(2).timestamp()).isEqualTo(99L);
        }
    }

    private static Consumer openTopic(Kafko k) {
        k.createTopic("t");
        return k.consumer("t");
    }

    @Test
    void recordTooLargeIsThrownBeforeAnythingIsWritten() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().maxRecordBytes(100).build());
            Producer p = k.producer("t");
            // encoded: length 4, timestamp 1, null key 1, value 1 + 93, header count 1 = 101 bytes
            assertThatThrownBy(() -> p.send(null, new byte[93])).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageContaining("101 bytes").hasMessageContaining("maxRecordBytes 100")
                    .hasMessageContaining("'t'");
            assertThatThrownBy(() -> p.send(new byte[50], new byte[40], Headers.of("h", new byte[20])))
                    .isInstanceOf(RecordTooLargeException.class);
            // one bad record refuses the whole batch, the good ones before it included
            assertThatThrownBy(() -> p.sendBatch(List.of(OutgoingRecord.of(null, new byte[10]),
                    OutgoingRecord.of(null, new byte[200])))).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageStartingWith("record 1 of the batch of 209 bytes is larger than maxRecordBytes 100");
            assertThatThrownBy(() -> p.sendBatchTo(0, List.of(OutgoingRecord.of(null, new byte[300]))))
                    .isInstanceOf(RecordTooLargeException.class).hasMessageStartingWith("record 0 of the batch of 309");
            assertThat(t.partition(0).endOffset()).isZero();
            assertThat(p.send(null, new byte[92]).join().offset()).isZero();
        }
    }

    @Test
    void theSmallestMaxRecordBytesIsTheSizeOfAnEmptyRecord() {
        assertThatThrownBy(() -> TopicConfig.builder().maxRecordBytes(TopicConfig.MIN_RECORD_BYTES - 1).build())
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("between 8 (a record with no key");
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().maxRecordBytes(TopicConfig.MIN_RECORD_BYTES).build());
            Producer p = k.producer("t");
            assertThat(p.send(null, null).join().offset()).isZero();
            assertThat(p.send(null, new byte[0]).join().offset()).isOne();
            assertThatThrownBy(() -> p.send(null, new byte[1])).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageContaining("record of 9 bytes");
        }
    }

    @Test
    void aNegativeTimestampOtherThanNoTimestampIsAnArgumentError() {
        assertThatThrownBy(() -> OutgoingRecord.of(null, null, Headers.empty(), -2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was -2");
        assertThat(OutgoingRecord.of(null, null, Headers.empty(), OutgoingRecord.NO_TIMESTAMP).timestamp()).isEqualTo(-1);
    }

    @Test
    void aBatchOverWhatOneAppendHoldsIsThrownBeforeAnythingIsWritten() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).maxRecordBytes(64 << 20).build());
            Producer p = k.producer("t");
            byte[] big = new byte[60 << 20];
            List<OutgoingRecord> five = java.util.Collections.nCopies(5, OutgoingRecord.of(null, big));
            assertThatThrownBy(() -> p.sendBatchTo(1, five)).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageContaining("partition 1 of topic 't'").hasMessageContaining("268435456");
            // keyed alike, all five route to one partition
            List<OutgoingRecord> keyed = java.util.Collections.nCopies(5, OutgoingRecord.of(bytes("k"), big));
            assertThatThrownBy(() -> p.sendBatch(keyed)).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageContaining("nothing was written");
            assertThat(t.partition(0).endOffset()).isZero();
            assertThat(t.partition(1).endOffset()).isZero();
            // four of them fit, and so do five spread over both partitions
            assertThat(p.sendBatchTo(1, five.subList(0, 4)).join()).hasSize(4);
            assertThat(p.sendBatch(five).join()).hasSize(5);
        }
    }

    @Test
    void aBatchThatIsOverOnlyWithItsTimestampsIsRefusedBeforeAnythingIsWritten() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).maxRecordBytes(32 << 20).build());
            Producer p = k.producer("t");
            // ten records of 26,843,543 bytes each as maxRecordBytes counts them (key "a"), 26 bytes
            // under 256 MiB in all; timestamps far apart take 9 bytes more each in the frame
            byte[] value = new byte[26_843_531];
            List<OutgoingRecord> apart = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                apart.add(new OutgoingRecord(bytes("a"), value, dev.kafko.Headers.empty(), i % 2 == 0 ? 0 : Long.MAX_VALUE));
            }
            assertThatThrownBy(() -> p.sendBatchTo(1, apart)).isInstanceOf(RecordTooLargeException.class)
                    .hasMessageContaining("with their timestamps").hasMessageContaining("nothing was written");
            // with small records for other keys beside them: refused at the call, no partition written
            List<OutgoingRecord> mixed = new java.util.ArrayList<>(apart);
            for (String key : List.of("b", "c", "d", "e", "f", "g")) {
                mixed.add(OutgoingRecord.of(bytes(key), bytes("small")));
            }
            assertThatThrownBy(() -> p.sendBatch(mixed)).isInstanceOf(RecordTooLargeException.class);
            assertThat(t.partition(0).endOffset()).isZero();
            assertThat(t.partition(1).endOffset()).isZero();
            // the same records with one timestamp fit exactly
            List<OutgoingRecord> together = new java.util.ArrayList<>();
            for (int i = 0; i < 10; i++) {
                together.add(new OutgoingRecord(bytes("a"), value, dev.kafko.Headers.empty(), 0));
            }
            assertThat(p.sendBatchTo(1, together).join()).hasSize(10);
        }
    }

    @Test
    void outOfRangePartitionsAndUnknownTopicsAreRefused() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            assertThatThrownBy(() -> p.sendTo(2, null, bytes("x"))).isInstanceOf(InvalidPartitionException.class)
                    .hasMessageContaining("partition 2");
            assertThatThrownBy(() -> p.sendTo(-1, null, bytes("x"))).isInstanceOf(InvalidPartitionException.class);
            assertThatThrownBy(() -> p.sendBatchTo(5, List.of(OutgoingRecord.of(null, null))))
                    .isInstanceOf(InvalidPartitionException.class);
            assertThatThrownBy(() -> k.producer("nope")).isInstanceOf(UnknownTopicException.class)
                    .hasMessageContaining("'nope'");
        }
    }

    @Test
    void batchIsContiguousPerPartitionAndPositionsFollowListOrder() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            Producer p = k.producer("t");
            p.send(bytes("warm-up"), bytes("x")).join();
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                batch.add(OutgoingRecord.of(bytes("key-" + (i % 7)), bytes("v" + i)));
            }
            List<RecordPosition> positions = p.sendBatch(batch).join();
            assertThat(positions).hasSize(60);
            for (int i = 0; i < 60; i++) {
                assertThat(positions.get(i).partition()).isEqualTo(p.partitionFor(bytes("key-" + (i % 7))));
            }
            // within a partition: consecutive offsets in list order
            for (int part = 0; part < 3; part++) {
                int pp = part;
                List<Long> offs = positions.stream().filter(r -> r.partition() == pp).map(RecordPosition::offset).toList();
                for (int i = 1; i < offs.size(); i++) {
                    assertThat(offs.get(i)).isEqualTo(offs.get(i - 1) + 1);
                }
            }
            List<RecordPosition> to = p.sendBatchTo(1, List.of(OutgoingRecord.of(null, bytes("a")),
                    OutgoingRecord.of(null, bytes("b")))).join();
            assertThat(to.get(1).offset()).isEqualTo(to.get(0).offset() + 1);
            assertThat(p.sendBatch(List.of()).join()).isEmpty();
        }
    }

    @Test
    void concurrentSendersGetDistinctOffsetsAndSeeTheirOwnOrder() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t");
            Producer p = k.producer("t");
            int threads = 4;
            int perThread = 5_000;
            List<List<CompletableFuture<RecordPosition>>> results = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<CompletableFuture<RecordPosition>> mine = new ArrayList<>();
                results.add(mine);
                Thread th = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < perThread; i++) {
                        mine.add(p.send(null, bytes("x")));
                    }
                });
                th.start();
                ts.add(th);
            }
            go.countDown();
            for (Thread th : ts) {
                th.join();
            }
            Set<Long> offsets = new HashSet<>();
            for (List<CompletableFuture<RecordPosition>> mine : results) {
                long last = -1;
                for (CompletableFuture<RecordPosition> f : mine) {
                    long o = f.get(10, TimeUnit.SECONDS).offset();
                    assertThat(o).isGreaterThan(last);
                    last = o;
                    offsets.add(o);
                }
            }
            assertThat(offsets).hasSize(threads * perThread);
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(threads * perThread);
        }
    }

    @Test
    void everyBatchFuturesCompleteOnlyAfterAFlushCoversTheirRecord() throws Exception {
        AtomicLong appended = new AtomicLong();
        AtomicLong flushedUpTo = new AtomicLong();
        AtomicInteger fsyncs = new AtomicInteger();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                appended.addAndGet(records);
            }

            @Override
            public void onFsync(String topic, int partition, long nanos) {
                fsyncs.incrementAndGet();
                flushedUpTo.set(appended.get());
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = k.producer("t");
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            List<CompletableFuture<?>> all = new ArrayList<>();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread th = new Thread(() -> {
                    for (int i = 0; i < 200; i++) {
                        CompletableFuture<RecordPosition> f = p.send(null, bytes("x"));
                        RecordPosition r = f.join();
                        if (flushedUpTo.get() <= r.offset()) {
                            violations.add("offset " + r.offset() + " completed with flushes up to " + flushedUpTo.get());
                        }
                    }
                });
                th.start();
                ts.add(th);
            }
            for (Thread th : ts) {
                th.join();
            }
            assertThat(violations).isEmpty();
            assertThat(fsyncs.get()).isBetween(1, 800);
        }
    }

    @Test
    void neverPolicyDoesNotFsyncOnTheAppendPathButIntervalDoesWithinThePeriod() throws Exception {
        AtomicInteger fsyncs = new AtomicInteger();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                fsyncs.incrementAndGet();
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            k.createTopic("never");
            k.createTopic("interval", TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(30))).build());
            for (int i = 0; i < 50; i++) {
                k.producer("never").send(null, bytes("x")).join();
            }
            Thread.sleep(100);
            assertThat(fsyncs.get()).isZero();
            long start = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                k.producer("interval").send(null, bytes("x")).join();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (fsyncs.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            int seen = fsyncs.get();
            // an interval fsync is scheduled a period after the first append that follows the previous one: at
            // most one per started period of the time taken (a slow machine stretches the 50 sends over more)
            long periods = 1 + (System.nanoTime() - start) / TimeUnit.MILLISECONDS.toNanos(30);
            assertThat(seen).isPositive().isLessThanOrEqualTo((int) Math.min(periods, 49));
        }
    }

    @Test
    void observerSeesAppendsWithRecordCounts() {
        AtomicLong records = new AtomicLong();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int n, long bytes, long nanos) {
                records.addAndGet(n);
                assertThat(bytes).isPositive();
                assertThat(nanos).isPositive();
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            k.createTopic("t");
            k.producer("t").send(null, bytes("x")).join();
            k.producer("t").sendBatch(List.of(OutgoingRecord.of(null, bytes("a")), OutgoingRecord.of(null, bytes("b")))).join();
            assertThat(records.get()).isEqualTo(3);
        }
    }
}
