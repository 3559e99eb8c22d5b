package dev.kafko.tryout;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Headers;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An outside tryout of the engine as an event-sourced inventory service uses it: events keyed by aggregate id, a
 * projector in a consumer group, replay of one aggregate, snapshots in a second topic; each test asserts what the
 * README ("Plain Java: the engine") and the javadoc promise.
 */
class InventoryTryoutTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    private static String s(byte[] b) {
        return b == null ? null : new String(b, UTF_8);
    }

    /** Polls until {@code count} records came (or a poll of {@link #WAIT} returned none). */
    static List<KafkoRecord> drain(Consumer c, int count) {
        List<KafkoRecord> got = new ArrayList<>();
        while (got.size() < count) {
            List<KafkoRecord> records = c.poll(WAIT);
            if (records.isEmpty()) {
                break;
            }
            got.addAll(records);
        }
        return got;
    }

    @Test
    void eventsOfOneAggregateStayInOrderOnTheKeysPartitionWithTheirHeadersAndTimestamps() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(4).build());
            Producer p = k.producer("inventory");
            long t0 = 1_700_000_000_000L;
            List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String sku = "sku-" + (i % 5);
                Headers h = Headers.of("type", b(i % 2 == 0 ? "Added" : "Removed")).with("seq", b(Integer.toString(i)));
                sent.add(p.send(OutgoingRecord.of(b(sku), b("qty=" + i), h, t0 + i)));
            }
            sent.forEach(CompletableFuture::join);
            for (int i = 0; i < 40; i++) {
                assertThat(sent.get(i).join().partition()).isEqualTo(p.partitionFor(b("sku-" + (i % 5))));
            }

            try (Consumer projector = k.groupConsumer("inventory", "projector")) {
                List<KafkoRecord> all = drain(projector, 40);
                assertThat(all).hasSize(40);
                Map<String, List<Integer>> seqByKey = new LinkedHashMap<>();
                for (KafkoRecord r : all) {
                    int seq = Integer.parseInt(s(r.headers().lastValue("seq")));
                    assertThat(r.timestamp()).isEqualTo(t0 + seq);
                    assertThat(s(r.value())).isEqualTo("qty=" + seq);
                    assertThat(s(r.headers().lastValue("type"))).isEqualTo(seq % 2 == 0 ? "Added" : "Removed");
                    seqByKey.computeIfAbsent(s(r.key()), x -> new ArrayList<>()).add(seq);
                }
                seqByKey.values().forEach(seqs -> assertThat(seqs).isSorted());
                projector.commit();
                for (int part = 0; part < 4; part++) {
                    assertThat(projector.committed(part)).hasValue(k.topic("inventory").get().partition(part).endOffset());
                }
            }
        }
    }

    @Test
    void replayingOneAggregateFromASnapshotTimestampReadsOnlyItsPartitionFromThere() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(4).build());
            k.createTopic("inventory-snapshots", TopicConfig.builder().partitions(4).build());
            Producer events = k.producer("inventory");
            long t0 = 1_700_000_000_000L;
            for (int i = 0; i < 30; i++) {
                events.send(OutgoingRecord.of(b("sku-" + (i % 3)), b("e" + i), Headers.empty(), t0 + i * 10)).join();
            }
            // a snapshot of sku-1 as of t0 + 150 (after event 15)
            k.producer("inventory-snapshots").send(OutgoingRecord.of(b("sku-1"), b("state@15"), Headers.empty(), t0 + 150)).join();

            int part = events.partitionFor(b("sku-1"));
            try (Consumer snaps = k.consumer("inventory-snapshots",
                    ConsumerOptions.DEFAULTS.withPartitions(Set.of(k.producer("inventory-snapshots").partitionFor(b("sku-1")))))) {
                List<KafkoRecord> latest = drain(snaps, 1);
                assertThat(latest).extracting(r -> s(r.value())).containsExactly("state@15");
                long since = latest.get(0).timestamp();

                try (Consumer replay = k.consumer("inventory", ConsumerOptions.DEFAULTS.withPartitions(Set.of(part)))) {
                    assertThat(replay.assignment()).containsExactly(part);
                    replay.seekToTimestamp(part, since + 1);
                    List<String> after = new ArrayList<>();
                    for (KafkoRecord r : drain(replay, (int) (k.topic("inventory").get().partition(part).endOffset()
                            - replay.position(part)))) {
                        assertThat(r.partition()).isEqualTo(part);
                        if (s(r.key()).equals("sku-1")) {
                            after.add(s(r.value()));
                        }
                    }
                    assertThat(after).containsExactly("e16", "e19", "e22", "e25", "e28");

                    replay.seekToTimestamp(t0 + 1_000_000);
                    assertThat(replay.position(part)).isEqualTo(k.topic("inventory").get().partition(part).endOffset());
                    assertThatThrownBy(() -> replay.seekToTimestamp((part + 1) % 4, t0))
                            .isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> replay.seekToTimestamp(-5)).isInstanceOf(IllegalArgumentException.class);
                }
            }
        }
    }

    @Test
    void aProjectorResumesFromItsCommitsAfterAReopenAndASecondMemberSharesThePartitions() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(4).build());
            Producer p = k.producer("inventory");
            for (int i = 0; i < 20; i++) {
                p.send(b("sku-" + i), b("e" + i)).join();
            }
            try (Consumer c = k.groupConsumer("inventory", "projector")) {
                assertThat(drain(c, 20)).hasSize(20);
                c.commit();
            }
        }
        try (Kafko k = Kafko.open(dir)) {
            Producer p = k.producer("inventory");
            for (int i = 20; i < 28; i++) {
                p.send(b("sku-" + i), b("e" + i)).join();
            }
            try (Consumer a = k.groupConsumer("inventory", "projector");
                    Consumer b2 = k.groupConsumer("inventory", "projector")) {
                List<KafkoRecord> got = new ArrayList<>();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (got.size() < 8 && System.nanoTime() < deadline) {
                    got.addAll(a.poll(Duration.ofMillis(10))); // its first poll hands b2 its share
                    got.addAll(b2.poll(Duration.ofMillis(10)));
                }
                assertThat(a.assignment()).hasSize(2).doesNotContainAnyElementsOf(b2.assignment());
                assertThat(b2.assignment()).hasSize(2);
                assertThat(got).extracting(r -> s(r.value()))
                        .containsExactlyInAnyOrder("e20", "e21", "e22", "e23", "e24", "e25", "e26", "e27");
                assertThat(k.groupInfo("inventory", "projector").members()).isEqualTo(2);
            }
        }
    }

    @Test
    void commitOfOffsetsOutOfRangeIsCheckedAsTheJavadocSays() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("inventory");
            for (int i = 0; i < 5; i++) {
                p.sendTo(0, null, b("e" + i)).join();
            }
            try (Consumer c = k.groupConsumer("inventory", "projector")) {
                assertThatThrownBy(() -> c.commit(Map.of(0, -1L))).isInstanceOf(OffsetOutOfRangeException.class);
                assertThatThrownBy(() -> c.commit(Map.of(7, 1L))).isInstanceOf(InvalidPartitionException.class);
                Map<Integer, Long> withNull = new HashMap<>();
                withNull.put(0, null);
                assertThatThrownBy(() -> c.commit(withNull)).isInstanceOf(NullPointerException.class);
                assertThat(c.committed(0)).isEmpty();

                c.commit(Map.of(0, 100L)); // past the end: kept, as in Kafka
                assertThat(c.committed(0)).hasValue(100);
                assertThat(k.groupInfo("inventory", "projector").lag()).containsEntry(0, 0L);
            }
            try (Consumer next = k.groupConsumer("inventory", "projector")) {
                // EARLIEST: a position above the end goes to the end, the records below are not read again
                assertThat(next.position(0)).isEqualTo(5);
                p.sendTo(0, null, b("e5")).join();
                assertThat(drain(next, 1)).extracting(r -> s(r.value())).containsExactly("e5");
            }
            try (Consumer anon = k.consumer("inventory")) {
                anon.commit(Map.of(0, 3L)); // anonymous: a no-op once checked
                assertThat(anon.committed(0)).isEmpty();
                assertThatThrownBy(() -> anon.commit(Map.of(0, -2L))).isInstanceOf(OffsetOutOfRangeException.class);
            }
        }
    }

    @Test
    void sendBatchIsRefusedWholeAtTheCallForATooLargeRecordOrPartition() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("inventory", TopicConfig.builder().partitions(2).maxRecordBytes(64 * 1024 * 1024).build());
            Producer p = k.producer("inventory");
            byte[] big = new byte[60 * 1024 * 1024];
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                batch.add(OutgoingRecord.of(null, big));
            }
            assertThatThrownBy(() -> p.sendBatchTo(0, batch)).isInstanceOf(RecordTooLargeException.class);
            assertThat(k.topic("inventory").get().partition(0).endOffset()).isZero();

            k.topic("inventory").get().alterConfig(k.topic("inventory").get().config().toBuilder().maxRecordBytes(100).build());
            List<OutgoingRecord> mixed = List.of(OutgoingRecord.of(b("a"), b("small")), OutgoingRecord.of(b("b"), new byte[200]));
            assertThatThrownBy(() -> p.sendBatch(mixed)).isInstanceOf(RecordTooLargeException.class).hasMessageContaining("1");
            assertThat(k.topic("inventory").get().partitions()).allSatisfy(pi -> assertThat(pi.endOffset()).isZero());

            List<RecordPosition> ok = p.sendBatch(List.of(OutgoingRecord.of(b("a"), b("1")), OutgoingRecord.of(b("a"), b("2")),
                    OutgoingRecord.of(b("b"), b("3")))).join();
            assertThat(ok).hasSize(3);
            assertThat(ok.get(1).offset()).isEqualTo(ok.get(0).offset() + 1);
            assertThatThrownBy(() -> p.send(OutgoingRecord.of(null, b("x"), Headers.empty(), -2)))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
