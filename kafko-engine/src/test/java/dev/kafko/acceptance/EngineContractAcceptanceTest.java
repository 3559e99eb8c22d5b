package dev.kafko.acceptance;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.AlreadyOpenException;
import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.InvalidNameException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Black-box acceptance tests of the engine, written from {@code API.md}, the seeds (README and CHANGELOG of the
 * Rust library kafko was designed from) and kafko's README: only names of {@code dev.kafko}.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class EngineContractAcceptanceTest {

    @TempDir
    Path dir;

    static byte[] b(String s) {
        return s.getBytes(UTF_8);
    }

    static String s(byte[] bytes) {
        return bytes == null ? null : new String(bytes, UTF_8);
    }

    static List<KafkoRecord> pollUntil(Consumer c, int count) {
        List<KafkoRecord> out = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (out.size() < count && System.nanoTime() < deadline) {
            out.addAll(c.poll(Duration.ofMillis(100)));
        }
        return out;
    }

    /**
     * {@code queries} seeks of partition 0 to random timestamps, each checked against a brute-force search of
     * {@code stamps} (the timestamps of its records in offset order): the first offset at or after the timestamp, or
     * the end.
     */
    static void assertSeeksToTimestampsAsBruteForce(Consumer c, List<Long> stamps, java.util.Random random,
                                                    int queries) {
        for (int q = 0; q < queries; q++) {
            long target = 900 + random.nextInt(5300);
            long expected = stamps.size();
            for (int i = 0; i < stamps.size(); i++) {
                if (stamps.get(i) >= target) {
                    expected = i;
                    break;
                }
            }
            c.seekToTimestamp(target);
            assertThat(c.position(0)).as("target %d", target).isEqualTo(expected);
        }
    }

    static List<String> values(List<KafkoRecord> records) {
        return records.stream().map(r -> s(r.value())).collect(Collectors.toList());
    }

    /** A clock a test moves by hand. */
    static final class ManualClock extends Clock {
        final AtomicLong millis;

        ManualClock(long start) {
            millis = new AtomicLong(start);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public long millis() {
            return millis.get();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }
    }

    // ------------------------------------------------------------------ open / close

    @Nested
    class OpenAndClose {

        @Test
        void openCreatesTheDirectoryWithItsParents() {
            Path nested = dir.resolve("a/b/c");
            try (Kafko k = Kafko.open(nested)) {
                assertThat(Files.isDirectory(nested)).isTrue();
                assertThat(k.dataDir()).isEqualTo(nested);
                assertThat(k.topics()).isEmpty();
            }
        }

        @Test
        void aSecondOpenOfTheSameDirectoryFailsFastUntilTheFirstCloses() {
            Kafko first = Kafko.open(dir);
            try {
                assertThatThrownBy(() -> Kafko.open(dir)).isInstanceOf(AlreadyOpenException.class)
                        .isInstanceOf(KafkoException.class);
                assertThatThrownBy(() -> Kafko.open(dir.resolve("."))).isInstanceOf(AlreadyOpenException.class);
            } finally {
                first.close();
            }
            try (Kafko again = Kafko.open(dir)) {
                assertThat(again.topics()).isEmpty();
            }
        }

        @Test
        void closeIsIdempotent() {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            k.close();
            assertThatCode(k::close).doesNotThrowAnyException();
            assertThatCode(k::close).doesNotThrowAnyException();
        }

        @Test
        void everyCallAfterCloseFailsWithKafkoClosedExceptionButDataDirAndOptionsStillAnswer() {
            Kafko k = Kafko.open(dir);
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            Consumer c = k.consumer("t");
            Consumer g = k.groupConsumer("t", "g");
            Topic topic = k.topic("t").orElseThrow();
            k.close();

            assertThat(k.dataDir()).isEqualTo(dir);
            assertThat(k.options()).isEqualTo(KafkoOptions.DEFAULTS);
            assertThatThrownBy(() -> k.createTopic("u")).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.createTopic("u", TopicConfig.DEFAULTS)).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.topic("t")).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(k::topics).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.deleteTopic("t")).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.producer("t")).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.consumer("t")).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.groupConsumer("t", "g")).isInstanceOf(KafkoClosedException.class);

            assertThatThrownBy(() -> p.send(null, b("x"))).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> p.sendTo(0, null, b("x"))).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> p.sendBatch(List.of(OutgoingRecord.of(null, b("x")))))
                    .isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(p::flush).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> topic.increasePartitions(3)).isInstanceOf(KafkoClosedException.class);

            for (Consumer each : List.of(c, g)) {
                assertThatThrownBy(() -> each.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> each.seek(0, 0)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> each.seekAll(0)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(each::seekToBeginning).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(each::seekToEnd).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> each.seekToTimestamp(0)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> each.position(0)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(each::assignment).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(each::commit).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> each.committed(0)).isInstanceOf(KafkoClosedException.class);
                // arguments are checked first
                assertThatThrownBy(() -> each.poll(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
                assertThatCode(each::close).doesNotThrowAnyException();
            }
        }

        @Test
        void aClosedConsumerRefusesEveryCallAndClosesAgainQuietly() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Consumer c = k.groupConsumer("t", "g");
                c.close();
                assertThatCode(c::close).doesNotThrowAnyException();
                assertThatThrownBy(() -> c.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> c.poll(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> c.seek(0, 0)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> c.seekToTimestamp(-5)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(c::assignment).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(c::commit).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> c.committed(0)).isInstanceOf(KafkoClosedException.class);
                assertThatThrownBy(() -> c.position(0)).isInstanceOf(KafkoClosedException.class);
                assertThatCode(c::wakeup).doesNotThrowAnyException();
            }
        }

        @Test
        void closeMakesEveryAcknowledgedAndPendingSendReadableAfterReopen() {
            List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 3000; i++) {
                    sent.add(p.send(null, b("v" + i)));
                }
            }
            assertThat(sent).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                assertThat(pollUntil(c, 3000)).hasSize(3000);
                assertThat(c.poll(Duration.ofMillis(50))).isEmpty();
            }
        }
    }

    // ------------------------------------------------------------------ topics

    @Nested
    class Topics {

        @Test
        void createTopicWithoutConfigHasOnePartitionAndTheInstanceDefaults() {
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("orders");
                assertThat(t.name()).isEqualTo("orders");
                assertThat(t.partitionCount()).isEqualTo(1);
                assertThat(t.config()).isEqualTo(TopicConfig.DEFAULTS);
                assertThat(k.topic("orders")).containsSame(t);
                assertThat(k.topics()).containsExactly("orders");
                assertThat(k.topic("absent")).isEmpty();
            }
        }

        @Test
        void builderOfTheApiMdBuildsAndTheTopicKeepsEveryField() {
            TopicConfig cfg = TopicConfig.builder().partitions(8).compression(Compression.LZ4)
                    .segmentBytes(4096).retention(Duration.ofHours(3)).retentionBytes(1 << 20)
                    .fsync(dev.kafko.FsyncPolicy.EVERY_BATCH).maxRecordBytes(2048).build();
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("events", cfg);
                assertThat(t.config()).isEqualTo(cfg);
                assertThat(t.partitionCount()).isEqualTo(8);
            }
        }

        @Test
        void creatingATopicTwiceIsTopicExists() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                assertThatThrownBy(() -> k.createTopic("t")).isInstanceOf(TopicExistsException.class)
                        .hasMessageContaining("t");
            }
        }

        @ParameterizedTest
        @ValueSource(strings = {"", ".", "..", "a b", "a/b", "a\\b", "é", "a:b", "a*", ".lock", "tab\t"})
        void invalidTopicNamesAreRefusedWithInvalidNameException(String name) {
            try (Kafko k = Kafko.open(dir)) {
                assertThatThrownBy(() -> k.createTopic(name)).isInstanceOf(InvalidNameException.class);
                assertThat(k.topics()).isEmpty();
            }
        }

        @Test
        void topicNamesUpTo249CharactersAreTakenAnd250Refused() {
            try (Kafko k = Kafko.open(dir)) {
                String longest = "a".repeat(249);
                k.createTopic(longest);
                k.producer(longest).send(null, b("x")).join();
                assertThatThrownBy(() -> k.createTopic("b".repeat(250))).isInstanceOf(InvalidNameException.class);
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topics()).containsExactly("a".repeat(249));
            }
        }

        @Test
        void dotAndUnderscoreCollideAsInKafka() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("a.b");
                assertThatThrownBy(() -> k.createTopic("a_b")).isInstanceOf(KafkoException.class);
            }
        }

        @Test
        void invalidGroupNamesAreRefused() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                for (String g : List.of("", ".", "..", "a b", "g/h", "x".repeat(250))) {
                    assertThatThrownBy(() -> k.groupConsumer("t", g)).as(g).isInstanceOf(InvalidNameException.class);
                }
                try (Consumer c = k.groupConsumer("t", "x".repeat(249))) {
                    c.commit();
                }
            }
        }

        @Test
        void reopenDiscoversEveryTopicWithItsConfigAndRecords() {
            TopicConfig zstd = TopicConfig.builder().partitions(3).compression(Compression.ZSTD)
                    .retentionBytes(10_000_000).maxRecordBytes(4096).segmentBytes(8192).build();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("a");
                k.createTopic("b", zstd);
                k.producer("a").send(b("k"), b("v")).join();
                for (int i = 0; i < 30; i++) {
                    k.producer("b").send(b("k" + i), b("v" + i)).join();
                }
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topics()).containsExactlyInAnyOrder("a", "b");
                assertThat(k.topic("b").orElseThrow().config()).isEqualTo(zstd);
                assertThat(k.topic("a").orElseThrow().config()).isEqualTo(TopicConfig.DEFAULTS);
                try (Consumer c = k.consumer("b")) {
                    assertThat(pollUntil(c, 30)).hasSize(30);
                }
            }
        }

        @Test
        void reopenWithOtherTopicDefaultsKeepsEachTopicsOwnConfig() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("old"); // created under DEFAULTS
            }
            TopicConfig newDefaults = TopicConfig.builder().partitions(4).compression(Compression.LZ4)
                    .maxRecordBytes(64).build();
            KafkoOptions opts = KafkoOptions.builder().topicDefaults(newDefaults).build();
            try (Kafko k = Kafko.open(dir, opts)) {
                Topic old = k.topic("old").orElseThrow();
                assertThat(old.config()).isEqualTo(TopicConfig.DEFAULTS);
                assertThat(old.partitionCount()).isEqualTo(1);
                // the old topic's own maxRecordBytes (1 MiB) applies, not the new default of 64
                k.producer("old").send(null, new byte[1000]).join();
                Topic fresh = k.createTopic("fresh");
                assertThat(fresh.config()).isEqualTo(newDefaults);
                assertThatThrownBy(() -> k.producer("fresh").send(null, new byte[1000]))
                        .isInstanceOf(RecordTooLargeException.class);
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("fresh").orElseThrow().config()).isEqualTo(newDefaults);
            }
        }

        @Test
        void deleteThenRecreateStartsEmptyWithoutTheOldGroupsAndOldHandlesFail() {
            try (Kafko k = Kafko.open(dir)) {
                Topic first = k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 10; i++) {
                    p.send(b("k" + i), b("v" + i)).join();
                }
                Consumer anon = k.consumer("t");
                try (Consumer g = k.groupConsumer("t", "g")) {
                    pollUntil(g, 10);
                    g.commit();
                }
                k.deleteTopic("t");
                assertThat(k.topics()).isEmpty();
                assertThat(k.topic("t")).isEmpty();
                assertThatThrownBy(() -> p.send(null, b("x"))).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> anon.poll(Duration.ZERO)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> k.producer("t")).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> k.consumer("t")).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> k.deleteTopic("t")).isInstanceOf(UnknownTopicException.class);

                Topic second = k.createTopic("t");
                assertThat(second).isNotSameAs(first);
                assertThat(second.partitionCount()).isEqualTo(1);
                // the old handles stay bound to the deleted topic
                assertThatThrownBy(() -> p.send(null, b("x"))).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> anon.poll(Duration.ZERO)).isInstanceOf(UnknownTopicException.class);
                assertThatCode(anon::close).doesNotThrowAnyException();

                assertThat(k.producer("t").send(null, b("new")).join()).isEqualTo(new RecordPosition(0, 0));
                assertThat(k.groups("t")).isEmpty();
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThat(g.committed(0)).isEmpty();
                    assertThat(values(pollUntil(g, 1))).containsExactly("new");
                }
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("t").orElseThrow().partitionCount()).isEqualTo(1);
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(1);
            }
        }

        @Test
        void aGroupMemberOnADeletedTopicFailsWithUnknownTopic() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Consumer g = k.groupConsumer("t", "g");
                k.producer("t").send(null, b("x")).join();
                k.deleteTopic("t");
                assertThatThrownBy(() -> g.poll(Duration.ofMillis(10))).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(g::commit).isInstanceOf(UnknownTopicException.class);
                assertThatCode(g::close).doesNotThrowAnyException();
            }
        }

        @Test
        void aPollBlockedOnATopicThatIsDeletedEndsWithUnknownTopicBeforeItsTimeout() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Consumer c = k.consumer("t");
                CompletableFuture<Object> polled = new CompletableFuture<>();
                Thread t = new Thread(() -> {
                    try {
                        // a timeout it can never wait out: returning at all is returning before it
                        polled.complete(c.poll(Duration.ofDays(1)));
                    } catch (Throwable e) {
                        polled.complete(e);
                    }
                });
                t.setDaemon(true);
                t.start();
                Thread.sleep(200);
                k.deleteTopic("t");
                Object result = polled.get(60, TimeUnit.SECONDS);
                assertThat(result).isInstanceOf(UnknownTopicException.class);
            }
        }
    }

    // ------------------------------------------------------------------ produce

    @Nested
    class Produce {

        @Test
        void keylessRecordsSpreadRoundRobinAndKeyedOnesStayOnTheKeysPartition() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).build());
                Producer p = k.producer("t");
                List<Integer> parts = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    parts.add(p.send(null, b("v")).join().partition());
                }
                assertThat(parts).containsExactly(0, 1, 2, 0, 1, 2);
                int expected = p.partitionFor(b("user-42"));
                for (int i = 0; i < 20; i++) {
                    assertThat(p.send(b("user-42"), b("e" + i)).join().partition()).isEqualTo(expected);
                }
            }
        }

        @Test
        void offsetsCountUpPerPartitionFromZero() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                assertThat(p.sendTo(1, null, b("a")).join()).isEqualTo(new RecordPosition(1, 0));
                assertThat(p.sendTo(1, null, b("b")).join()).isEqualTo(new RecordPosition(1, 1));
                assertThat(p.sendTo(0, null, b("c")).join()).isEqualTo(new RecordPosition(0, 0));
            }
        }

        @Test
        void aPartitionOutOfRangeIsThrownAtTheCall() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                assertThatThrownBy(() -> p.sendTo(2, null, b("x"))).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> p.sendTo(-1, null, b("x"))).isInstanceOf(InvalidPartitionException.class);
                assertThatThrownBy(() -> p.sendBatchTo(5, List.of(OutgoingRecord.of(null, b("x")))))
                        .isInstanceOf(InvalidPartitionException.class);
                assertThat(k.topic("t").orElseThrow().partitions()).allMatch(pi -> pi.endOffset() == 0);
                try (Consumer c = k.consumer("t")) {
                    assertThatThrownBy(() -> c.seek(2, 0)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> c.position(7)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> c.committed(2)).isInstanceOf(InvalidPartitionException.class);
                }
                assertThatThrownBy(() -> k.topic("t").orElseThrow().partition(2))
                        .isInstanceOf(InvalidPartitionException.class);
            }
        }

        @Test
        void nullKeyEmptyKeyNullValueAndEmptyValueAllRoundTripDistinctly() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                p.send(null, null).join();
                p.send(new byte[0], new byte[0]).join();
                p.send(null, new byte[0]).join();
                p.send(new byte[0], null).join();
                p.send(b("k"), b("v")).join();
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, 5);
                    assertThat(r).hasSize(5);
                    assertThat(r.get(0).key()).isNull();
                    assertThat(r.get(0).value()).isNull();
                    assertThat(r.get(1).key()).isEmpty();
                    assertThat(r.get(1).value()).isEmpty();
                    assertThat(r.get(2).key()).isNull();
                    assertThat(r.get(2).value()).isEmpty();
                    assertThat(r.get(3).key()).isEmpty();
                    assertThat(r.get(3).value()).isNull();
                    assertThat(s(r.get(4).key())).isEqualTo("k");
                }
            }
        }

        @Test
        void anEmptyKeyRoutesByItsHashNotRoundRobin() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(5).build());
                Producer p = k.producer("t");
                int expected = p.partitionFor(new byte[0]);
                Set<Integer> seen = new HashSet<>();
                for (int i = 0; i < 10; i++) {
                    seen.add(p.send(new byte[0], b("v")).join().partition());
                }
                assertThat(seen).containsExactly(expected);
            }
        }

        @ParameterizedTest
        @EnumSource(Compression.class)
        void headersRoundTripWithOrderRepeatsEmptyAndNullValues(Compression codec) {
            Headers h = Headers.of(new Header("a", b("1")), new Header("b", new byte[0]), new Header("a", null),
                    new Header("", b("empty key")), new Header("ünï", b("x")));
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().compression(codec).build());
                Producer p = k.producer("t");
                p.send(b("k"), b("v"), h).join();
                p.send(b("k"), b("v"), Headers.empty()).join();
                p.sendBatch(List.of(OutgoingRecord.of(null, null, h), OutgoingRecord.of(null, null))).join();
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                List<KafkoRecord> r = pollUntil(c, 4);
                assertThat(r).hasSize(4);
                for (int i : new int[] {0, 2}) {
                    Headers got = r.get(i).headers();
                    assertThat(got).isEqualTo(h);
                    assertThat(got.size()).isEqualTo(5);
                    assertThat(got.lastValue("a")).isNull();
                    assertThat(got.lastHeader("a")).isNotNull();
                    assertThat(got.headers("a")).hasSize(2);
                    assertThat(got.get(1).value()).isNotNull().isEmpty();
                    assertThat(got.get(2).value()).isNull();
                    assertThat(got.get(3).key()).isEmpty();
                }
                assertThat(r.get(1).headers().isEmpty()).isTrue();
                assertThat(r.get(3).headers().isEmpty()).isTrue();
            }
        }

        @Test
        void explicitTimestampsAreKeptAndOthersTakeTheInstanceClock() {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock).build())) {
                k.createTopic("t");
                Producer p = k.producer("t");
                p.send(OutgoingRecord.of(null, b("explicit"), Headers.empty(), 42L)).join();
                p.send(OutgoingRecord.of(null, b("zero"), Headers.empty(), 0L)).join();
                p.send(null, b("clock")).join();
                p.sendBatch(List.of(OutgoingRecord.of(null, b("b1"), Headers.empty(), 5L),
                        OutgoingRecord.of(null, b("b2")))).join();
                assertThatThrownBy(() -> OutgoingRecord.of(null, b("x"), Headers.empty(), -2L))
                        .isInstanceOf(IllegalArgumentException.class);
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, 5);
                    assertThat(r).extracting(KafkoRecord::timestamp)
                            .containsExactly(42L, 0L, 1_700_000_000_000L, 5L, 1_700_000_000_000L);
                    assertThat(r).allMatch(x -> x.topic().equals("t") && x.partition() == 0);
                }
            }
        }

        @Test
        void aSendCopiesItsArraysSoTheCallerMayReuseThem() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                byte[] key = b("key");
                byte[] value = b("value");
                byte[] hv = b("hv");
                List<CompletableFuture<RecordPosition>> fs = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    fs.add(p.send(key, value, Headers.of("h", hv)));
                }
                Arrays.fill(key, (byte) 'X');
                Arrays.fill(value, (byte) 'X');
                Arrays.fill(hv, (byte) 'X');
                fs.forEach(CompletableFuture::join);
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, 100);
                    assertThat(r).allMatch(x -> s(x.key()).equals("key") && s(x.value()).equals("value")
                            && s(x.headers().lastValue("h")).equals("hv"));
                }
            }
        }

        @Test
        void sendBatchListsPositionsInRecordOrderAndIsContiguousPerPartition() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).build());
                Producer p = k.producer("t");
                p.sendTo(1, null, b("before")).join();
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    batch.add(OutgoingRecord.of(b("key-" + i), b("v" + i)));
                }
                List<RecordPosition> pos = p.sendBatch(batch).join();
                assertThat(pos).hasSize(30);
                for (int i = 0; i < 30; i++) {
                    assertThat(pos.get(i).partition()).isEqualTo(p.partitionFor(b("key-" + i)));
                }
                Map<Integer, List<Long>> byPart = new HashMap<>();
                for (RecordPosition rp : pos) {
                    byPart.computeIfAbsent(rp.partition(), x -> new ArrayList<>()).add(rp.offset());
                }
                byPart.forEach((part, offs) -> {
                    long first = part == 1 ? 1 : 0;
                    assertThat(offs).containsExactlyElementsOf(
                            IntStream.range(0, offs.size()).mapToObj(i -> first + i).collect(Collectors.toList()));
                });
            }
        }

        @Test
        void anEmptyBatchCompletesWithNoPositionsAndWritesNothing() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                assertThat(p.sendBatch(List.of()).join()).isEmpty();
                assertThat(p.sendBatchTo(1, List.of()).join()).isEmpty();
                assertThat(k.topic("t").orElseThrow().partitions()).allMatch(pi -> pi.endOffset() == 0);
                // the round-robin counter is unchanged by an empty batch
                assertThat(p.send(null, b("x")).join().partition()).isEqualTo(0);
            }
        }

        @Test
        void aBatchWithOneRecordTooLargeIsRefusedAtTheCallAndWritesNothingAnywhere() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).maxRecordBytes(100).build());
                Producer p = k.producer("t");
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    batch.add(OutgoingRecord.of(b("k" + i), b("small")));
                }
                batch.add(OutgoingRecord.of(null, new byte[200]));
                assertThatThrownBy(() -> p.sendBatch(batch)).isInstanceOf(RecordTooLargeException.class)
                        .hasMessageContaining("5");
                p.flush();
                assertThat(k.topic("t").orElseThrow().partitions()).allMatch(pi -> pi.endOffset() == 0);
            }
        }

        @Test
        void theRecordSizeLimitCountsNineBytesOverAKeylessValue() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().maxRecordBytes(1009).build());
                Producer p = k.producer("t");
                p.send(null, new byte[1000]).join();
                assertThatThrownBy(() -> p.send(null, new byte[1001])).isInstanceOf(RecordTooLargeException.class);
                assertThatThrownBy(() -> p.send(b("k"), new byte[1000])).isInstanceOf(RecordTooLargeException.class);
                assertThatThrownBy(() -> p.send(null, new byte[1000], Headers.of("h", null)))
                        .isInstanceOf(RecordTooLargeException.class);
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(1);
            }
        }

        @Test
        void theSmallestRecordFitsTheSmallestLimit() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().maxRecordBytes(TopicConfig.MIN_RECORD_BYTES).build());
                Producer p = k.producer("t");
                p.send(null, null).join();
                p.send(new byte[0], new byte[0]).join();
                assertThatThrownBy(() -> p.send(null, new byte[1])).isInstanceOf(RecordTooLargeException.class);
            }
        }

        @ParameterizedTest
        @EnumSource(Compression.class)
        void everyCodecRoundTripsSmallLargeCompressibleAndRandomRecordsAcrossAReopen(Compression codec) {
            assertThat(codec.isAvailable()).isTrue();
            java.util.Random random = new java.util.Random(7);
            List<byte[]> sent = new ArrayList<>();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().compression(codec).segmentBytes(64 * 1024)
                        .maxRecordBytes(512 * 1024).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 200; i++) {
                    byte[] v;
                    switch (i % 4) {
                        case 0 -> v = new byte[0];
                        case 1 -> v = ("compressible " + i).repeat(500).getBytes(UTF_8);
                        case 2 -> {
                            v = new byte[random.nextInt(3000)];
                            random.nextBytes(v);
                        }
                        default -> v = new byte[100_000];
                    }
                    sent.add(v);
                }
                List<OutgoingRecord> batch = sent.subList(0, 100).stream().map(v -> OutgoingRecord.of(null, v))
                        .collect(Collectors.toList());
                p.sendBatch(batch).join();
                for (byte[] v : sent.subList(100, 200)) {
                    p.send(null, v);
                }
                p.flush();
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                List<KafkoRecord> r = pollUntil(c, 200);
                assertThat(r).hasSize(200);
                for (int i = 0; i < 200; i++) {
                    assertThat(r.get(i).offset()).isEqualTo(i);
                    assertThat(r.get(i).value()).as("record %d", i).isEqualTo(sent.get(i));
                }
            }
        }
    }

    // ------------------------------------------------------------------ consume

    @Nested
    class Consume {

        @Test
        void anAnonymousConsumerReadsFromZeroAndItsCommitIsANoOp() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 4; i++) {
                    p.send(null, b("v" + i)).join();
                }
                try (Consumer c = k.consumer("t")) {
                    assertThat(c.group()).isEmpty();
                    assertThat(c.assignment()).containsExactlyInAnyOrder(0, 1);
                    assertThat(c.position(0)).isZero();
                    assertThat(pollUntil(c, 4)).hasSize(4);
                    c.commit();
                    assertThat(c.committed(0)).isEmpty();
                    assertThat(c.committed(1)).isEmpty();
                }
                assertThat(k.groups("t")).isEmpty();
                try (Consumer again = k.consumer("t")) {
                    assertThat(pollUntil(again, 4)).hasSize(4);
                }
            }
        }

        @Test
        void aMergedConsumerKeepsPerKeyOrderAcrossPartitions() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(4).build());
                Producer p = k.producer("t");
                List<CompletableFuture<RecordPosition>> fs = new ArrayList<>();
                for (int i = 0; i < 400; i++) {
                    fs.add(p.send(b("key-" + (i % 10)), b(Integer.toString(i))));
                }
                fs.forEach(CompletableFuture::join);
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, 400);
                    assertThat(r).hasSize(400);
                    Map<String, List<Integer>> byKey = new HashMap<>();
                    Map<String, Integer> partitionOfKey = new HashMap<>();
                    for (KafkoRecord x : r) {
                        byKey.computeIfAbsent(s(x.key()), q -> new ArrayList<>()).add(Integer.parseInt(s(x.value())));
                        assertThat(partitionOfKey.computeIfAbsent(s(x.key()), q -> x.partition()))
                                .isEqualTo(x.partition());
                    }
                    byKey.values().forEach(l -> assertThat(l).isSorted().hasSize(40));
                    assertThat(new HashSet<>(partitionOfKey.values()).size()).isGreaterThan(1);
                }
            }
        }

        @Test
        void pollZeroReturnsAtOnceAndANegativeTimeoutIsRefused() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                try (Consumer c = k.consumer("t")) {
                    long start = System.nanoTime();
                    assertThat(c.poll(Duration.ZERO)).isEmpty();
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
                    assertThatThrownBy(() -> c.poll(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
                    assertThatThrownBy(() -> c.poll(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class);
                    k.producer("t").send(null, b("x")).join();
                    assertThat(values(c.poll(Duration.ZERO))).containsExactly("x");
                }
            }
        }

        @Test
        void pollWaitsOutItsTimeoutAndReturnsAnEmptyList() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                try (Consumer c = k.consumer("t")) {
                    long start = System.nanoTime();
                    List<KafkoRecord> r = c.poll(Duration.ofMillis(300));
                    long took = System.nanoTime() - start;
                    assertThat(r).isNotNull().isEmpty();
                    assertThat(Duration.ofNanos(took)).isGreaterThanOrEqualTo(Duration.ofMillis(250))
                            .isLessThan(Duration.ofSeconds(3));
                }
            }
        }

        @Test
        void aHugePollTimeoutIsTakenAndAWakeupEndsIt() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Consumer c = k.consumer("t");
                CompletableFuture<List<KafkoRecord>> polled = new CompletableFuture<>();
                new Thread(() -> {
                    try {
                        polled.complete(c.poll(Duration.ofSeconds(Long.MAX_VALUE)));
                    } catch (Throwable e) {
                        polled.completeExceptionally(e);
                    }
                }).start();
                Thread.sleep(100);
                c.wakeup();
                assertThat(polled.get(5, TimeUnit.SECONDS)).isEmpty();
                c.close();
            }
        }

        @Test
        void aPollWaitingForRecordsReturnsOnTheFirstAppend() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Consumer c = k.consumer("t");
                CompletableFuture<List<KafkoRecord>> polled = new CompletableFuture<>();
                // a timeout it can never wait out: returning at all is returning on the append
                Thread poller = new Thread(() -> polled.complete(c.poll(Duration.ofDays(1))));
                poller.setDaemon(true);
                poller.start();
                Thread.sleep(100);
                k.producer("t").send(null, b("hello"));
                assertThat(values(polled.get(60, TimeUnit.SECONDS))).containsExactly("hello");
                c.close();
            }
        }

        @Test
        void maxPollRecordsBoundsAPoll() {
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().maxPollRecords(7).build())) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 20; i++) {
                    p.send(null, b("v" + i));
                }
                p.flush();
                try (Consumer c = k.consumer("t")) {
                    assertThat(c.poll(Duration.ofSeconds(1))).hasSize(7);
                    assertThat(c.poll(Duration.ofSeconds(1))).hasSize(7);
                    assertThat(c.poll(Duration.ofSeconds(1))).hasSize(6);
                }
            }
        }

        @Test
        void seeksMovePositionAtOnce() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 10; i++) {
                    p.sendTo(0, null, b("a" + i)).join();
                    p.sendTo(1, null, b("b" + i)).join();
                }
                try (Consumer c = k.consumer("t")) {
                    c.seek(0, 4);
                    assertThat(c.position(0)).isEqualTo(4);
                    assertThat(c.position(1)).isZero();
                    c.seekAll(8);
                    assertThat(c.position(0)).isEqualTo(8);
                    assertThat(c.position(1)).isEqualTo(8);
                    assertThat(values(pollUntil(c, 4))).containsExactlyInAnyOrder("a8", "a9", "b8", "b9");
                    c.seekToBeginning();
                    assertThat(c.position(0)).isZero();
                    assertThat(c.position(1)).isZero();
                    c.seekToEnd();
                    assertThat(c.position(0)).isEqualTo(10);
                    assertThat(c.position(1)).isEqualTo(10);
                    assertThat(c.poll(Duration.ofMillis(50))).isEmpty();
                    c.seek(1, 10); // the end itself is a legal position
                    assertThat(c.position(1)).isEqualTo(10);
                    assertThatThrownBy(() -> c.seek(0, -1)).isInstanceOf(OffsetOutOfRangeException.class);
                    assertThatThrownBy(() -> c.seekAll(-1)).isInstanceOf(OffsetOutOfRangeException.class);
                }
            }
        }

        @Test
        void aSeekBeyondTheEndMovesToTheEndAndTheNextAppendIsRead() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                p.send(null, b("0")).join();
                p.send(null, b("1")).join();
                try (Consumer c = k.consumer("t")) {
                    c.seek(0, 1_000);
                    assertThat(c.position(0)).isEqualTo(2);
                    assertThat(c.poll(Duration.ofMillis(20))).isEmpty();
                    p.send(null, b("2")).join();
                    List<KafkoRecord> r = pollUntil(c, 1);
                    assertThat(values(r)).containsExactly("2");
                    assertThat(r.get(0).offset()).isEqualTo(2);
                    c.seekAll(Long.MAX_VALUE);
                    assertThat(c.position(0)).isEqualTo(3);
                }
            }
        }

        @Test
        void seekToTimestampTakesTheFirstOffsetAtOrAfterTheTimeEvenOutOfOrder() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                long[] ts = {100, 300, 200, 400, 250};
                for (long t : ts) {
                    p.sendTo(0, OutgoingRecord.of(null, b("p0@" + t), Headers.empty(), t)).join();
                }
                p.sendTo(1, OutgoingRecord.of(null, b("p1@50"), Headers.empty(), 50)).join();
                p.sendTo(1, OutgoingRecord.of(null, b("p1@500"), Headers.empty(), 500)).join();
                try (Consumer c = k.consumer("t")) {
                    c.seekToTimestamp(200);
                    assertThat(c.position(0)).isEqualTo(1); // 300 is the first by offset at or after 200
                    assertThat(c.position(1)).isEqualTo(1);
                    c.seekToTimestamp(0);
                    assertThat(c.position(0)).isZero();
                    assertThat(c.position(1)).isZero();
                    c.seekToTimestamp(401);
                    assertThat(c.position(0)).isEqualTo(5); // none: the end
                    assertThat(c.position(1)).isEqualTo(1);
                    c.seekToTimestamp(10_000);
                    assertThat(c.position(0)).isEqualTo(5);
                    assertThat(c.position(1)).isEqualTo(2);
                    assertThat(c.poll(Duration.ofMillis(20))).isEmpty();
                    // records appended after the seek are all read, whatever their timestamps
                    p.sendTo(0, OutgoingRecord.of(null, b("late-old"), Headers.empty(), 1)).join();
                    assertThat(values(pollUntil(c, 1))).containsExactly("late-old");
                    c.seekToTimestamp(Long.MAX_VALUE);
                    assertThat(c.position(0)).isEqualTo(6);
                    assertThatThrownBy(() -> c.seekToTimestamp(-1)).isInstanceOf(IllegalArgumentException.class);
                    assertThatThrownBy(() -> c.seekToTimestamp(0, -1)).isInstanceOf(IllegalArgumentException.class);
                }
            }
        }

        @Test
        void seekToTimestampOnAnEmptyTopicStaysAtZero() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                try (Consumer c = k.consumer("t")) {
                    c.seekToTimestamp(0);
                    assertThat(c.position(0)).isZero();
                    k.producer("t").send(null, b("x")).join();
                    assertThat(values(pollUntil(c, 1))).containsExactly("x");
                }
            }
        }

        @Test
        void seekToTimestampOverSeveralSegmentsAgreesWithBruteForce() {
            java.util.Random random = new java.util.Random(11);
            List<Long> stamps = new ArrayList<>();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(1024).indexIntervalBytes(64).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 300; i++) {
                    long t = 1000 + random.nextInt(5000);
                    stamps.add(t);
                    p.send(OutgoingRecord.of(null, b("v" + i), Headers.empty(), t)).join();
                }
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                assertThat(k.topic("t").orElseThrow().partition(0).segmentCount()).isGreaterThan(3);
                assertSeeksToTimestampsAsBruteForce(c, stamps, random, 100);
            }
        }
    }

    // ------------------------------------------------------------------ groups

    @Nested
    class Groups {

        @Test
        void committedIsEmptyBeforeAnyCommit() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).build());
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThat(g.group()).contains("g");
                    for (int part = 0; part < 3; part++) {
                        assertThat(g.committed(part)).isEmpty();
                    }
                    assertThatThrownBy(() -> g.committed(3)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> g.committed(-1)).isInstanceOf(InvalidPartitionException.class);
                }
            }
        }

        @Test
        void aGroupResumesPerPartitionAcrossAMultiPartitionReopen() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).build());
                Producer p = k.producer("t");
                for (int part = 0; part < 3; part++) {
                    for (int i = 0; i < 10; i++) {
                        p.sendTo(part, null, b(part + ":" + i)).join();
                    }
                }
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThat(pollUntil(g, 30)).hasSize(30);
                    g.seek(0, 2);
                    g.seek(1, 5);
                    g.commit();
                }
            }
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.topic("t").orElseThrow();
                assertThat(t.partitionCount()).isEqualTo(3);
                assertThat(t.partitions()).extracting(pi -> pi.endOffset()).containsExactly(10L, 10L, 10L);
                assertThat(k.producer("t").sendTo(2, null, b("2:10")).join()).isEqualTo(new RecordPosition(2, 10));
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThat(g.committed(0)).hasValue(2);
                    assertThat(g.committed(1)).hasValue(5);
                    assertThat(g.committed(2)).hasValue(10);
                    List<KafkoRecord> r = pollUntil(g, 8 + 5 + 1);
                    assertThat(values(r)).containsExactlyInAnyOrder("0:2", "0:3", "0:4", "0:5", "0:6", "0:7", "0:8",
                            "0:9", "1:5", "1:6", "1:7", "1:8", "1:9", "2:10");
                }
            }
        }

        @Test
        void distinctGroupsKeepIndependentPositions() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 10; i++) {
                    p.send(null, b("v" + i)).join();
                }
                try (Consumer a = k.groupConsumer("t", "billing"); Consumer b = k.groupConsumer("t", "shipping")) {
                    a.seek(0, 7);
                    a.commit();
                    assertThat(pollUntil(b, 10)).hasSize(10);
                    b.commit();
                }
                assertThat(k.groups("t")).containsExactlyInAnyOrder("billing", "shipping");
            }
            try (Kafko k = Kafko.open(dir)) {
                try (Consumer a = k.groupConsumer("t", "billing"); Consumer b = k.groupConsumer("t", "shipping");
                     Consumer c = k.groupConsumer("t", "audit")) {
                    assertThat(a.position(0)).isEqualTo(7);
                    assertThat(b.position(0)).isEqualTo(10);
                    assertThat(c.position(0)).isZero();
                }
            }
        }

        @Test
        void liveMembersShareThePartitionsAndACloseHandsThemToTheOthers() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(4).build());
                Consumer a = k.groupConsumer("t", "g");
                Consumer b = k.groupConsumer("t", "g");
                a.poll(Duration.ofMillis(20));
                b.poll(Duration.ofMillis(20));
                a.poll(Duration.ofMillis(20));
                Set<Integer> sa = a.assignment();
                Set<Integer> sb = b.assignment();
                assertThat(sa).doesNotContainAnyElementsOf(sb);
                Set<Integer> all = new HashSet<>(sa);
                all.addAll(sb);
                assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3);
                assertThat(sa).isNotEmpty();
                assertThat(sb).isNotEmpty();
                a.close();
                b.poll(Duration.ofMillis(20));
                assertThat(b.assignment()).containsExactlyInAnyOrder(0, 1, 2, 3);
                b.close();
            }
        }

        @Test
        void aMemberBlockedInPollTakesOverWhenTheOtherMemberCloses() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Consumer a = k.groupConsumer("t", "g");
                Consumer b = k.groupConsumer("t", "g");
                a.poll(Duration.ofMillis(20));
                b.poll(Duration.ofMillis(20));
                a.poll(Duration.ofMillis(20));
                assertThat(a.assignment()).hasSize(1);
                assertThat(b.assignment()).hasSize(1);
                int aPartition = a.assignment().iterator().next();

                CompletableFuture<List<KafkoRecord>> polled = new CompletableFuture<>();
                Thread t = new Thread(() -> {
                    try {
                        polled.complete(pollUntil(b, 1));
                    } catch (Throwable e) {
                        polled.completeExceptionally(e);
                    }
                });
                t.start();
                Thread.sleep(150);
                a.close();
                k.producer("t").sendTo(aPartition, null, b("for-a")).join();
                List<KafkoRecord> got = polled.get(10, TimeUnit.SECONDS);
                assertThat(values(got)).containsExactly("for-a");
                b.close();
            }
        }

        @Test
        void aCommitOfOneMemberKeepsTheOtherMembersCommits() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                try (Consumer a = k.groupConsumer("t", "g"); Consumer b = k.groupConsumer("t", "g")) {
                    a.poll(Duration.ofMillis(10));
                    b.poll(Duration.ofMillis(10));
                    a.poll(Duration.ofMillis(10));
                    assertThat(a.assignment()).hasSize(1);
                    Producer p = k.producer("t");
                    for (int i = 0; i < 6; i++) {
                        p.sendTo(i % 2, null, b("v" + i)).join();
                    }
                    assertThat(pollUntil(a, 3)).hasSize(3);
                    assertThat(pollUntil(b, 3)).hasSize(3);
                    a.commit();
                    b.commit();
                    assertThat(a.committed(0)).hasValue(3);
                    assertThat(a.committed(1)).hasValue(3);
                }
            }
        }

        @Test
        void aCorruptOffsetsFileDegradesToTheResetPolicyNeverAnError() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 5; i++) {
                    p.send(null, b("v" + i)).join();
                }
                try (Consumer g = k.groupConsumer("t", "g")) {
                    pollUntil(g, 5);
                    g.commit();
                }
            }
            Path offsets = dir.resolve("t/groups/g/offsets");
            assertThat(offsets).exists();
            Files.write(offsets, b("this is not an offsets file at all"));
            try (Kafko k = Kafko.open(dir); Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.committed(0)).isEmpty();
                assertThat(g.position(0)).isZero();
                assertThat(pollUntil(g, 5)).hasSize(5);
                g.commit();
            }
            try (Kafko k = Kafko.open(dir); Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.committed(0)).hasValue(5);
            }
        }

        @Test
        void anEmptyOrTornOffsetsFileDegradesToTheResetPolicy() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("v")).join();
                try (Consumer g = k.groupConsumer("t", "g")) {
                    pollUntil(g, 1);
                    g.commit();
                }
            }
            Path offsets = dir.resolve("t/groups/g/offsets");
            byte[] whole = Files.readAllBytes(offsets);
            Files.write(offsets, Arrays.copyOf(whole, whole.length - 3)); // torn last entry
            try (Kafko k = Kafko.open(dir); Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.committed(0)).isEmpty();
                assertThat(g.position(0)).isZero();
            }
            Files.write(offsets, new byte[0]);
            try (Kafko k = Kafko.open(dir); Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.committed(0)).isEmpty();
                assertThat(g.position(0)).isZero();
                g.seek(0, 1);
                g.commit();
            }
            try (Kafko k = Kafko.open(dir); Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.committed(0)).hasValue(1);
            }
        }
    }

    // ------------------------------------------------------------------ retention

    @Nested
    class Retention {

        @Test
        void retentionBySizeDropsTheOldestSegmentsAndAConsumerStartsAtTheLogStart() throws Exception {
            KafkoOptions opts = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(50)).build();
            try (Kafko k = Kafko.open(dir, opts)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(1024).retentionBytes(4096).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 500; i++) {
                    p.send(null, b(String.format("%0100d", i))).join();
                }
                Topic t = k.topic("t").orElseThrow();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (t.partition(0).sizeBytes() > 4096 + 1024 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                var info = t.partition(0);
                assertThat(info.sizeBytes()).isLessThanOrEqualTo(4096 + 1024);
                assertThat(info.logStartOffset()).isGreaterThan(0);
                assertThat(info.endOffset()).isEqualTo(500);
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, (int) (500 - info.logStartOffset()));
                    assertThat(r.get(0).offset()).isGreaterThanOrEqualTo(info.logStartOffset());
                    assertThat(r.get(r.size() - 1).offset()).isEqualTo(499);
                }
            }
        }

        @Test
        void retentionByTimeDropsExpiredSegmentsAndAnIdleTopicEmptiesAtItsEndOffset() throws Exception {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            KafkoOptions opts = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(50))
                    .build();
            try (Kafko k = Kafko.open(dir, opts)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(1024).retention(Duration.ofHours(1)).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 50; i++) {
                    p.send(null, b(String.format("%0100d", i))).join();
                }
                clock.millis.addAndGet(Duration.ofMinutes(30).toMillis());
                for (int i = 50; i < 60; i++) {
                    p.send(null, b(String.format("%0100d", i))).join();
                }
                Topic t = k.topic("t").orElseThrow();
                Thread.sleep(200);
                assertThat(t.partition(0).logStartOffset()).isZero(); // nothing is an hour old yet

                clock.millis.addAndGet(Duration.ofMinutes(45).toMillis()); // first 50 are 75 min old, last 10 45 min
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (t.partition(0).logStartOffset() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                long start = t.partition(0).logStartOffset();
                assertThat(start).isGreaterThan(0).isLessThanOrEqualTo(50);

                clock.millis.addAndGet(Duration.ofHours(2).toMillis());
                deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (t.partition(0).logStartOffset() < 60 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(t.partition(0).logStartOffset()).isEqualTo(60);
                assertThat(t.partition(0).endOffset()).isEqualTo(60);
                assertThat(p.send(null, b("next")).join()).isEqualTo(new RecordPosition(0, 60));
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, 1);
                    assertThat(values(r)).containsExactly("next");
                }
            }
            try (Kafko k = Kafko.open(dir, opts)) {
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(61);
            }
        }
    }

    // ------------------------------------------------------------------ edges

    @Nested
    class Edges {

        @Test
        void aRecordIsImmutableEvenWhenTheCallerWritesIntoWhatItReturned() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(b("key"), b("value"), Headers.of("h", b("hv"))).join();
                try (Consumer c = k.consumer("t")) {
                    KafkoRecord r = pollUntil(c, 1).get(0);
                    Arrays.fill(r.key(), (byte) 'X');
                    Arrays.fill(r.value(), (byte) 'X');
                    Arrays.fill(r.headers().lastValue("h"), (byte) 'X');
                    assertThat(s(r.key())).isEqualTo("key");
                    assertThat(s(r.value())).isEqualTo("value");
                    assertThat(s(r.headers().lastValue("h"))).isEqualTo("hv");
                    c.seekToBeginning();
                    KafkoRecord again = pollUntil(c, 1).get(0);
                    assertThat(s(again.value())).isEqualTo("value");
                }
            }
        }

        @Test
        void aRecordKeptAfterCloseAndAfterDeletionStillReadsItsBytes() {
            KafkoRecord kept;
            KafkoRecord keptDeleted;
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(1024).build());
                k.createTopic("d", TopicConfig.builder().segmentBytes(1024).build());
                for (int i = 0; i < 50; i++) {
                    k.producer("t").send(b("k" + i), b(String.format("%0100d", i))).join();
                    k.producer("d").send(b("k" + i), b(String.format("%0100d", i))).join();
                }
                try (Consumer c = k.consumer("t"); Consumer d = k.consumer("d")) {
                    kept = pollUntil(c, 1).get(0);
                    keptDeleted = pollUntil(d, 1).get(0);
                }
                k.deleteTopic("d");
                assertThat(s(keptDeleted.value())).isEqualTo(String.format("%0100d", 0));
                assertThat(s(keptDeleted.key())).isEqualTo("k0");
            }
            assertThat(s(kept.value())).isEqualTo(String.format("%0100d", 0));
            assertThat(kept.headers().isEmpty()).isTrue();
        }

        @Test
        void extremeExplicitTimestampsRoundTripAndSeek() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().retention(Duration.ofDays(1)).build());
                Producer p = k.producer("t");
                p.sendBatch(List.of(OutgoingRecord.of(null, b("max"), Headers.empty(), Long.MAX_VALUE),
                        OutgoingRecord.of(null, b("zero"), Headers.empty(), 0),
                        OutgoingRecord.of(null, b("now"), Headers.empty(), OutgoingRecord.NO_TIMESTAMP))).join();
                p.send(OutgoingRecord.of(null, b("max2"), Headers.empty(), Long.MAX_VALUE)).join();
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, 4);
                    assertThat(r).extracting(KafkoRecord::timestamp).startsWith(Long.MAX_VALUE, 0L);
                    assertThat(r.get(2).timestamp()).isBetween(System.currentTimeMillis() - 60_000,
                            System.currentTimeMillis() + 1);
                    assertThat(r.get(3).timestamp()).isEqualTo(Long.MAX_VALUE);
                    c.seekToTimestamp(Long.MAX_VALUE);
                    assertThat(c.position(0)).isZero();
                    c.seekToTimestamp(1);
                    assertThat(c.position(0)).isZero();
                }
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                assertThat(pollUntil(c, 4)).extracting(KafkoRecord::timestamp).startsWith(Long.MAX_VALUE, 0L);
                c.seekToTimestamp(Long.MAX_VALUE);
                assertThat(c.position(0)).isZero();
            }
        }

        @Test
        void aSeekBeyondTheEndUnderFailIsKeptAndPollThrows() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("0")).join();
                try (Consumer c = k.consumer("t", dev.kafko.ConsumerOptions.DEFAULTS
                        .withOffsetReset(dev.kafko.OffsetResetPolicy.FAIL))) {
                    c.seek(0, 5);
                    assertThat(c.position(0)).isEqualTo(5);
                    assertThatThrownBy(() -> c.poll(Duration.ofMillis(10)))
                            .isInstanceOf(OffsetOutOfRangeException.class);
                    c.seek(0, 1);
                    k.producer("t").send(null, b("1")).join();
                    assertThat(values(pollUntil(c, 1))).containsExactly("1");
                }
            }
        }

        @Test
        void aWakeupBeforePollMakesOnlyTheNextPollEmptyAndLosesNoRecord() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("x")).join();
                try (Consumer c = k.consumer("t")) {
                    c.wakeup();
                    assertThat(c.poll(Duration.ofSeconds(1))).isEmpty();
                    assertThat(values(c.poll(Duration.ofSeconds(1)))).containsExactly("x");
                    assertThat(c.position(0)).isEqualTo(1);
                }
            }
        }

        @Test
        void aSecondThreadInsideAConsumerGetsConcurrentModification() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Consumer c = k.consumer("t");
                CompletableFuture<List<KafkoRecord>> polled = new CompletableFuture<>();
                new Thread(() -> polled.complete(c.poll(Duration.ofSeconds(5)))).start();
                Thread.sleep(200);
                assertThatThrownBy(() -> c.position(0)).isInstanceOf(java.util.ConcurrentModificationException.class);
                assertThatThrownBy(() -> c.poll(Duration.ZERO))
                        .isInstanceOf(java.util.ConcurrentModificationException.class);
                c.wakeup();
                assertThat(polled.get(5, TimeUnit.SECONDS)).isEmpty();
                c.close();
            }
        }

        @Test
        void closingTheInstanceEndsAPollWaitingOnAnotherThread() throws Exception {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            Consumer c = k.groupConsumer("t", "g");
            CompletableFuture<Object> polled = new CompletableFuture<>();
            Thread poller = new Thread(() -> {
                try {
                    // a timeout it can never wait out: returning at all is returning at the close
                    polled.complete(c.poll(Duration.ofDays(1)));
                } catch (Throwable e) {
                    polled.complete(e);
                }
            });
            poller.setDaemon(true);
            poller.start();
            Thread.sleep(200);
            k.close();
            Object result = polled.get(60, TimeUnit.SECONDS);
            assertThat(result).satisfiesAnyOf(r -> assertThat(r).isInstanceOf(KafkoClosedException.class),
                    r -> assertThat(r).isEqualTo(List.of()));
            try (Kafko again = Kafko.open(dir)) {
                assertThat(again.topics()).containsExactly("t");
            }
        }

        @Test
        void aClosedMembersUncommittedReadsAreReadAgainByTheMemberThatTakesOver() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 10; i++) {
                    p.send(null, b("v" + i)).join();
                }
                Consumer a = k.groupConsumer("t", "g");
                pollUntil(a, 4);
                a.seek(0, 4);
                a.commit();
                assertThat(pollUntil(a, 6)).hasSize(6); // read to 10 but commit stays at 4
                a.close();
                try (Consumer b = k.groupConsumer("t", "g")) {
                    assertThat(b.position(0)).isEqualTo(4);
                    assertThat(pollUntil(b, 6)).hasSize(6);
                }
            }
        }

        @Test
        void aNewGroupUnderLatestStartsAtTheEnd() {
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().offsetReset(dev.kafko.OffsetResetPolicy.LATEST)
                    .build())) {
                k.createTopic("t");
                k.producer("t").send(null, b("old")).join();
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThat(g.position(0)).isEqualTo(1);
                    k.producer("t").send(null, b("new")).join();
                    assertThat(values(pollUntil(g, 1))).containsExactly("new");
                }
                try (Consumer anon = k.consumer("t")) {
                    assertThat(anon.position(0)).isZero(); // anonymous: offset 0, whatever the policy
                }
            }
        }

        @Test
        void growingATopicPersistsAndAMemberGetsTheNewPartitions() {
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).build());
                try (Consumer g = k.groupConsumer("t", "g"); Consumer anon = k.consumer("t")) {
                    t.increasePartitions(4);
                    assertThat(t.partitionCount()).isEqualTo(4);
                    assertThat(t.config().partitions()).isEqualTo(4);
                    assertThat(k.producer("t").partitionCount()).isEqualTo(4);
                    k.producer("t").sendTo(3, null, b("p3")).join();
                    assertThat(values(pollUntil(g, 1))).containsExactly("p3");
                    assertThat(g.assignment()).containsExactlyInAnyOrder(0, 1, 2, 3);
                    assertThat(values(pollUntil(anon, 1))).containsExactly("p3");
                    assertThat(anon.assignment()).containsExactlyInAnyOrder(0, 1, 2, 3);
                }
                assertThatThrownBy(() -> t.increasePartitions(3)).isInstanceOf(InvalidPartitionException.class);
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("t").orElseThrow().partitionCount()).isEqualTo(4);
                assertThat(k.topic("t").orElseThrow().config().partitions()).isEqualTo(4);
            }
        }

        @Test
        void theReturnedCollectionsCannotChangeTheInstance() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Set<String> topics = k.topics();
                try {
                    topics.add("ghost");
                    topics.remove("t");
                } catch (UnsupportedOperationException expected) {
                    // fine
                }
                assertThat(k.topics()).containsExactly("t");
                try (Consumer c = k.consumer("t")) {
                    Set<Integer> a = c.assignment();
                    try {
                        a.clear();
                    } catch (UnsupportedOperationException expected) {
                        // fine
                    }
                    assertThat(c.assignment()).containsExactlyInAnyOrder(0, 1);
                }
                assertThatThrownBy(() -> k.topic("t").orElseThrow().partitions().clear())
                        .isInstanceOf(UnsupportedOperationException.class);
            }
        }

        @Test
        void nullsAreNullPointerExceptionsNamingTheParameterAndWriteNothing() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                assertThatThrownBy(() -> p.send(null, b("x"), null)).isInstanceOf(NullPointerException.class);
                assertThatThrownBy(() -> p.sendBatch(null)).isInstanceOf(NullPointerException.class);
                List<OutgoingRecord> withNull = new ArrayList<>();
                withNull.add(OutgoingRecord.of(null, b("a")));
                withNull.add(null);
                assertThatThrownBy(() -> p.sendBatch(withNull)).isInstanceOf(NullPointerException.class)
                        .hasMessageContaining("1");
                assertThatThrownBy(() -> k.createTopic(null)).isInstanceOf(NullPointerException.class);
                assertThatThrownBy(() -> k.createTopic("u", null)).isInstanceOf(NullPointerException.class);
                try (Consumer c = k.consumer("t")) {
                    assertThatThrownBy(() -> c.poll(null)).isInstanceOf(NullPointerException.class);
                }
                assertThat(k.topics()).containsExactly("t");
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isZero();
            }
        }

        @Test
        void aFrameLargerThanTheSegmentSizeGoesIntoASegmentOfItsOwn() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(1024).maxRecordBytes(100_000).build());
                Producer p = k.producer("t");
                p.send(null, new byte[10]).join();
                p.send(null, new byte[50_000]).join();
                p.send(null, new byte[10]).join();
                p.sendBatch(List.of(OutgoingRecord.of(null, new byte[30_000]), OutgoingRecord.of(null, new byte[30_000])))
                        .join();
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                assertThat(pollUntil(c, 5)).extracting(r -> r.value().length).containsExactly(10, 50_000, 10, 30_000,
                        30_000);
            }
        }

        @Test
        void aTornTailAfterAnUncleanStopIsCutAndAppendsContinueAtTheNextOffset() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                for (int i = 0; i < 5; i++) {
                    k.producer("t").send(null, b("v" + i)).join();
                }
            }
            Path part = dir.resolve("t/0");
            Files.deleteIfExists(part.resolve(".clean"));
            Path log = part.resolve("00000000000000000000.log");
            byte[] garbage = new byte[37];
            new java.util.Random(3).nextBytes(garbage);
            Files.write(log, garbage, java.nio.file.StandardOpenOption.APPEND);
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(5);
                assertThat(k.producer("t").send(null, b("v5")).join()).isEqualTo(new RecordPosition(0, 5));
                try (Consumer c = k.consumer("t")) {
                    assertThat(values(pollUntil(c, 6))).containsExactly("v0", "v1", "v2", "v3", "v4", "v5");
                }
            }
        }

        @Test
        void aDamagedFrameInASealedSegmentIsACorruptLogExceptionAfterTheIntactRecords() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(1024).build());
                for (int i = 0; i < 40; i++) {
                    k.producer("t").send(null, b(String.format("%0100d", i))).join();
                }
            }
            Path first = dir.resolve("t/0/00000000000000000000.log");
            byte[] bytes = Files.readAllBytes(first);
            int at = bytes.length - 20; // inside the last frame of the first segment
            bytes[at] ^= 0x55;
            Files.write(first, bytes);
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                List<KafkoRecord> got = new ArrayList<>();
                Throwable failure = null;
                for (int i = 0; i < 20 && failure == null; i++) {
                    try {
                        got.addAll(c.poll(Duration.ofMillis(50)));
                    } catch (dev.kafko.CorruptLogException e) {
                        failure = e;
                    }
                }
                assertThat(failure).isNotNull();
                assertThat(failure.getMessage()).contains("00000000000000000000.log");
                assertThat(got).isNotEmpty();
                for (int i = 0; i < got.size(); i++) {
                    assertThat(got.get(i).offset()).isEqualTo(i);
                }
                long bad = got.size();
                c.seek(0, bad + 1);
                List<KafkoRecord> rest = pollUntil(c, (int) (40 - bad - 1));
                assertThat(rest).hasSize((int) (40 - bad - 1));
            }
        }

        @Test
        void aMissingPartitionDirectoryIsAnInvalidTopicLayoutNamingTheTopic() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                k.createTopic("other");
            }
            Path p1 = dir.resolve("t/1");
            try (var files = Files.list(p1)) {
                for (Path f : files.collect(Collectors.toList())) {
                    Files.delete(f);
                }
            }
            Files.delete(p1);
            assertThatThrownBy(() -> Kafko.open(dir)).isInstanceOf(dev.kafko.InvalidTopicLayoutException.class)
                    .satisfies(e -> assertThat(((dev.kafko.InvalidTopicLayoutException) e).topic()).isEqualTo("t"));
            // and the failed open released the lock
            Files.createDirectory(p1);
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topics()).containsExactlyInAnyOrder("t", "other");
            }
        }

        @Test
        void aSegmentDirectlyUnderTheTopicDirectoryAsInTheOldLayoutIsRefusedOrIgnoredNeverMisread() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("x")).join();
            }
            Files.copy(dir.resolve("t/0/00000000000000000000.log"), dir.resolve("t/00000000000000000000.log"));
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                assertThat(values(pollUntil(c, 1))).containsExactly("x");
                assertThat(c.poll(Duration.ofMillis(50))).isEmpty();
            } catch (dev.kafko.InvalidTopicLayoutException acceptable) {
                // the seed's behaviour
            }
        }

        @Test
        void openingAFileInsteadOfADirectoryIsATypedError() throws Exception {
            Path file = Files.writeString(dir.resolve("file"), "x");
            assertThatThrownBy(() -> Kafko.open(file)).isInstanceOf(KafkoException.class);
        }

        @Test
        void theGroupsOfATopicIncludeLiveMembersWithoutCommits() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                try (Consumer g = k.groupConsumer("t", "live")) {
                    assertThat(k.groups("t")).containsExactly("live");
                    assertThat(k.groupInfo("t", "live").members()).isEqualTo(1);
                }
                assertThat(k.groupInfo("t", "live").members()).isZero();
                assertThatThrownBy(() -> k.groups("absent")).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> k.groupConsumer("absent", "g")).isInstanceOf(UnknownTopicException.class);
            }
        }

        @Test
        void aConsumerCreatedWithMaxPollRecordsOverridesTheInstance() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                Producer p = k.producer("t");
                for (int i = 0; i < 10; i++) {
                    p.send(null, b("v" + i)).join();
                }
                try (Consumer c = k.consumer("t", dev.kafko.ConsumerOptions.DEFAULTS.withMaxPollRecords(3))) {
                    assertThat(c.poll(Duration.ofSeconds(1))).hasSize(3);
                }
            }
        }

        @Test
        void aMemberSeekingAPartitionItDoesNotOwnIsInvalidPartition() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                try (Consumer a = k.groupConsumer("t", "g"); Consumer b = k.groupConsumer("t", "g")) {
                    a.poll(Duration.ofMillis(10));
                    b.poll(Duration.ofMillis(10));
                    a.poll(Duration.ofMillis(10));
                    int other = b.assignment().iterator().next();
                    assertThatThrownBy(() -> a.seek(other, 0)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> a.position(other)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> a.commit(Map.of(other, 0L))).isInstanceOf(InvalidPartitionException.class);
                    // committed() takes any partition of the topic
                    assertThat(a.committed(other)).isEmpty();
                }
            }
        }

        @Test
        void everyCallOnADeletedTopicsHandlesIsUnknownTopic() {
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                Consumer c = k.consumer("t");
                k.deleteTopic("t");
                assertThatThrownBy(p::partitionCount).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> p.partitionFor(b("k"))).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> p.sendBatch(List.of())).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(p::flush).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> t.increasePartitions(3)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> c.seek(0, 0)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(c::seekToEnd).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(() -> c.position(0)).isInstanceOf(UnknownTopicException.class);
                c.close();
            }
        }
    }

    // ------------------------------------------------------------------ batches inside frames

    @Nested
    class Frames {

        private List<OutgoingRecord> batch(int n, long firstTs) {
            List<OutgoingRecord> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(OutgoingRecord.of(b("k" + i), b("v" + i), Headers.of("i", b(Integer.toString(i))),
                        firstTs + i));
            }
            return out;
        }

        @ParameterizedTest
        @EnumSource(Compression.class)
        void aSeekIntoTheMiddleOfABatchFrameReadsFromThatOffset(Compression codec) {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().compression(codec).build());
                Producer p = k.producer("t");
                p.sendBatch(batch(10, 1000)).join();
                p.sendBatch(batch(10, 2000)).join();
                try (Consumer c = k.consumer("t")) {
                    c.seek(0, 5);
                    List<KafkoRecord> r = pollUntil(c, 15);
                    assertThat(r).extracting(KafkoRecord::offset)
                            .containsExactlyElementsOf(IntStream.range(5, 20).mapToObj(i -> (long) i)
                                    .collect(Collectors.toList()));
                    assertThat(s(r.get(0).value())).isEqualTo("v5");
                    assertThat(r.get(0).timestamp()).isEqualTo(1005);
                    assertThat(s(r.get(0).headers().lastValue("i"))).isEqualTo("5");
                    c.seekToTimestamp(2003);
                    assertThat(c.position(0)).isEqualTo(13);
                    assertThat(s(pollUntil(c, 1).get(0).value())).isEqualTo("v3");
                    c.seekToTimestamp(0, 1009);
                    assertThat(c.position(0)).isEqualTo(9);
                }
            }
        }

        @ParameterizedTest
        @EnumSource(Compression.class)
        void maxPollRecordsSplitsABatchFrameAndTheNextPollContinuesInsideIt(Compression codec) {
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().maxPollRecords(3).build())) {
                k.createTopic("t", TopicConfig.builder().compression(codec).build());
                k.producer("t").sendBatch(batch(10, 1000)).join();
                try (Consumer g = k.groupConsumer("t", "g")) {
                    List<KafkoRecord> first = g.poll(Duration.ofSeconds(1));
                    assertThat(first).extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L);
                    assertThat(g.position(0)).isEqualTo(3);
                    g.commit();
                    List<KafkoRecord> second = g.poll(Duration.ofSeconds(1));
                    assertThat(second).extracting(KafkoRecord::offset).containsExactly(3L, 4L, 5L);
                }
            }
            try (Kafko k = Kafko.open(dir); Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.committed(0)).hasValue(3);
                List<KafkoRecord> r = pollUntil(g, 7);
                assertThat(r).extracting(KafkoRecord::offset).containsExactly(3L, 4L, 5L, 6L, 7L, 8L, 9L);
            }
        }

        @Test
        void keylessRecordsOfABatchSpreadOneByOneAsSendWould() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).build());
                Producer p = k.producer("t");
                List<RecordPosition> pos = p.sendBatch(List.of(OutgoingRecord.of(null, b("a")),
                        OutgoingRecord.of(null, b("b")), OutgoingRecord.of(null, b("c")),
                        OutgoingRecord.of(null, b("d")))).join();
                assertThat(pos).extracting(RecordPosition::partition).containsExactly(0, 1, 2, 0);
                assertThat(p.send(null, b("e")).join().partition()).isEqualTo(1);
            }
        }

        @Test
        void aKeylessSendRefusedAsTooLargeStillMovesTheRoundRobin() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).maxRecordBytes(100).build());
                Producer p = k.producer("t");
                assertThat(p.send(null, b("a")).join().partition()).isEqualTo(0);
                assertThatThrownBy(() -> p.send(null, new byte[500])).isInstanceOf(RecordTooLargeException.class);
                assertThat(p.send(null, b("c")).join().partition()).isEqualTo(2);
            }
        }

        @ParameterizedTest
        @EnumSource(Compression.class)
        void aTornBatchFrameAtTheTailIsCutWhole(Compression codec) throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().compression(codec).build());
                k.producer("t").sendBatch(batch(5, 1000)).join();
                k.producer("t").sendBatch(batch(5, 2000)).join();
            }
            Path part = dir.resolve("t/0");
            Files.delete(part.resolve(".clean"));
            Path log = part.resolve("00000000000000000000.log");
            byte[] bytes = Files.readAllBytes(log);
            Files.write(log, Arrays.copyOf(bytes, bytes.length - 3));
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(5);
                assertThat(k.producer("t").send(null, b("after")).join().offset()).isEqualTo(5);
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, 6);
                    assertThat(values(r)).containsExactly("v0", "v1", "v2", "v3", "v4", "after");
                }
            }
        }

        @Test
        void aRolledSegmentKeepsItsRecordsReadableAcrossReopenAndSeek() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(1024).compression(Compression.LZ4).build());
                Producer p = k.producer("t");
                for (int i = 0; i < 30; i++) {
                    p.sendBatch(batch(7, i * 100L)).join();
                }
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                assertThat(k.topic("t").orElseThrow().partition(0).segmentCount()).isGreaterThan(3);
                for (long off : new long[] {0, 6, 7, 100, 150, 209}) {
                    c.seek(0, off);
                    KafkoRecord r = pollUntil(c, 1).get(0);
                    assertThat(r.offset()).isEqualTo(off);
                    assertThat(s(r.value())).isEqualTo("v" + off % 7);
                    assertThat(r.timestamp()).isEqualTo(off / 7 * 100 + off % 7);
                }
            }
        }
    }

    // ------------------------------------------------------------------ more edges

    @Nested
    class MoreEdges {

        @Test
        void theLongestTopicNameCanBeDeletedAndCreatedAgainWithTheLongestGroup() {
            String topic = "t".repeat(249);
            String group = "g".repeat(249);
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic(topic, TopicConfig.builder().partitions(2).build());
                k.producer(topic).send(null, b("x")).join();
                try (Consumer g = k.groupConsumer(topic, group)) {
                    for (int i = 0; i < 300; i++) {
                        g.seek(0, 1);
                        g.commit();
                    }
                }
                k.deleteTopic(topic);
                k.createTopic(topic);
                k.producer(topic).send(null, b("y")).join();
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer(topic)) {
                assertThat(values(pollUntil(c, 1))).containsExactly("y");
            }
        }

        @Test
        void aCommitPastTheEndIsKeptAndTheNextRecordsAreStillRead() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("0")).join();
                try (Consumer g = k.groupConsumer("t", "g")) {
                    g.commit(Map.of(0, 100L));
                    assertThat(g.committed(0)).hasValue(100);
                }
                var info = k.groupInfo("t", "g");
                assertThat(info.committed()).containsEntry(0, 100L);
                assertThat(info.lag().get(0)).as("lag of a commit past the end").isGreaterThanOrEqualTo(0L);
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThat(g.position(0)).isEqualTo(1);
                    k.producer("t").send(null, b("1")).join();
                    assertThat(values(pollUntil(g, 1))).containsExactly("1");
                }
            }
            try (Kafko k = Kafko.open(dir)) {
                try (Consumer g = k.groupConsumer("t", "g")) {
                    k.producer("t").send(null, b("2")).join();
                    assertThat(values(pollUntil(g, 1))).containsExactly("2");
                }
            }
        }

        @Test
        void aNegativeCommitIsRefused() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThatThrownBy(() -> g.commit(Map.of(0, -1L))).isInstanceOf(OffsetOutOfRangeException.class);
                    assertThat(g.committed(0)).isEmpty();
                }
            }
        }

        @Test
        void everyListedErrorIsAKafkoException() {
            for (Class<?> c : List.of(dev.kafko.AlreadyOpenException.class, InvalidNameException.class,
                    TopicExistsException.class, UnknownTopicException.class, InvalidPartitionException.class,
                    RecordTooLargeException.class, dev.kafko.CompressionUnavailableException.class,
                    dev.kafko.CorruptLogException.class, KafkoClosedException.class,
                    dev.kafko.PartitionFailedException.class, dev.kafko.InvalidTopicLayoutException.class,
                    dev.kafko.InvalidConfigException.class, OffsetOutOfRangeException.class,
                    dev.kafko.KafkoStorageException.class, dev.kafko.BufferExhaustedException.class,
                    dev.kafko.InterruptException.class)) {
                assertThat(KafkoException.class).as(c.getName()).isAssignableFrom(c);
            }
            assertThat(RuntimeException.class).isAssignableFrom(KafkoException.class);
            assertThatThrownBy(() -> TopicConfig.builder().partitions(0).build()).isInstanceOf(KafkoException.class);
        }

        @Test
        void anUnpairedSurrogateInAHeaderKeyComesBackAsAQuestionMark() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("v"), Headers.of("a\uD800b", b("x")).with("\uD83D\uDE00", null)).join();
                try (Consumer c = k.consumer("t")) {
                    Headers h = pollUntil(c, 1).get(0).headers();
                    assertThat(h.get(0).key()).isEqualTo("a?b");
                    assertThat(h.get(1).key()).isEqualTo("\uD83D\uDE00");
                }
            }
        }

        @Test
        void theSizeLimitCountsHeaderKeysInUtf8Bytes() {
            // 5 + 1 (null key) + 1 (null value) + 1 (count) + 1 + 8 (4 x 2-byte ü) + 1 (null value) = 18
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().maxRecordBytes(18).build());
                Producer p = k.producer("t");
                p.send(null, null, Headers.of("üüüü", null)).join();
                assertThatThrownBy(() -> p.send(null, null, Headers.of("üüüüü", null)))
                        .isInstanceOf(RecordTooLargeException.class);
                assertThatThrownBy(() -> p.send(null, null, Headers.of("üüüüa", null)))
                        .isInstanceOf(RecordTooLargeException.class);
            }
        }

        @Test
        void seekToTimestampAgreesWithBruteForceOverLiveOutOfOrderBatches() {
            java.util.Random random = new java.util.Random(5);
            List<Long> stamps = new ArrayList<>();
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().segmentBytes(2048).indexIntervalBytes(64)
                        .compression(Compression.ZSTD).build());
                Producer p = k.producer("t");
                for (int f = 0; f < 60; f++) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int i = 0; i < 1 + random.nextInt(6); i++) {
                        long t = 1000 + random.nextInt(5000);
                        stamps.add(t);
                        batch.add(OutgoingRecord.of(null, b("v" + stamps.size()), Headers.empty(), t));
                    }
                    p.sendBatch(batch).join();
                }
                try (Consumer c = k.consumer("t")) {
                    assertSeeksToTimestampsAsBruteForce(c, stamps, random, 150);
                }
            }
        }

        @Test
        void seekToBeginningAfterRetentionEmptiedThePartitionIsItsEnd() throws Exception {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock)
                    .retentionCheckInterval(Duration.ofMillis(30)).build())) {
                k.createTopic("t", TopicConfig.builder().retention(Duration.ofMinutes(1)).build());
                for (int i = 0; i < 5; i++) {
                    k.producer("t").send(null, b("v")).join();
                }
                try (Consumer c = k.consumer("t"); Consumer g = k.groupConsumer("t", "g")) {
                    clock.millis.addAndGet(120_000);
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (k.topic("t").orElseThrow().partition(0).logStartOffset() < 5
                            && System.nanoTime() < deadline) {
                        Thread.sleep(20);
                    }
                    c.seekToBeginning();
                    assertThat(c.position(0)).isEqualTo(5);
                    assertThat(c.poll(Duration.ofMillis(20))).isEmpty();
                    assertThat(g.poll(Duration.ofMillis(20))).isEmpty();
                    assertThat(g.position(0)).isEqualTo(5);
                    assertThat(k.groupInfo("t", "g").lag().getOrDefault(0, 0L)).isZero();
                }
            }
        }
    }

    // ------------------------------------------------------------------ concurrency

    @Nested
    class UnderLoad {

        @Test
        void closeUnderFourSendingThreadsKeepsEveryAcknowledgedRecordAndCompletesEveryFuture() throws Exception {
            Kafko k = Kafko.open(dir);
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            Producer p = k.producer("t");
            List<List<CompletableFuture<RecordPosition>>> perThread = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(4);
            for (int t = 0; t < 4; t++) {
                List<CompletableFuture<RecordPosition>> mine = new ArrayList<>();
                perThread.add(mine);
                int id = t;
                Thread th = new Thread(() -> {
                    started.countDown();
                    for (int i = 0; i < 200_000; i++) {
                        try {
                            mine.add(p.send(b("k" + (i % 17)), b(id + ":" + i)));
                        } catch (KafkoClosedException e) {
                            return;
                        }
                    }
                });
                threads.add(th);
                th.start();
            }
            started.await();
            Thread.sleep(100);
            k.close();
            for (Thread th : threads) {
                th.join(10_000);
                assertThat(th.isAlive()).isFalse();
            }
            // (hundreds of thousands of futures: checked in plain loops, AssertJ's containsAll on sets is quadratic)
            Set<String> acked = new HashSet<>();
            List<String> notDone = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                List<CompletableFuture<RecordPosition>> mine = perThread.get(t);
                for (int i = 0; i < mine.size(); i++) {
                    CompletableFuture<RecordPosition> f = mine.get(i);
                    if (!f.isDone()) {
                        notDone.add(t + ":" + i);
                    } else if (!f.isCompletedExceptionally()) {
                        acked.add(t + ":" + i);
                    }
                }
            }
            assertThat(notDone).as("futures not completed by the close").isEmpty();
            assertThat(acked).isNotEmpty();
            try (Kafko again = Kafko.open(dir); Consumer c = again.consumer("t")) {
                long total = again.topic("t").orElseThrow().partitions().stream().mapToLong(pi -> pi.endOffset()).sum();
                List<KafkoRecord> all = pollUntil(c, (int) total);
                Set<String> stored = all.stream().map(r -> s(r.value())).collect(Collectors.toSet());
                assertThat(stored.size()).as("no duplicates").isEqualTo(all.size());
                List<String> lost = acked.stream().filter(a -> !stored.contains(a)).limit(10).toList();
                assertThat(lost).as("acknowledged records missing after the reopen").isEmpty();
            }
        }

        @Test
        void aConcurrentConsumerNeverSeesPartOfABatch() throws Exception {
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().maxPollRecords(100_000).build())) {
                k.createTopic("t", TopicConfig.builder().compression(Compression.NONE).build());
                Producer p = k.producer("t");
                CompletableFuture<Void> producing = CompletableFuture.runAsync(() -> {
                    for (int n = 0; n < 300; n++) {
                        List<OutgoingRecord> batch = new ArrayList<>();
                        for (int i = 0; i < 37; i++) {
                            batch.add(OutgoingRecord.of(null, b(n + ":" + i)));
                        }
                        p.sendBatch(batch).join();
                    }
                }, r -> new Thread(r).start());
                try (Consumer c = k.consumer("t")) {
                    long seen = 0;
                    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                    while (seen < 300 * 37 && System.nanoTime() < deadline) {
                        List<KafkoRecord> r = c.poll(Duration.ofMillis(100));
                        seen += r.size();
                        assertThat(seen % 37).as("a poll ended inside a batch at %d", seen).isZero();
                    }
                    assertThat(seen).isEqualTo(300 * 37);
                }
                producing.join();
            }
        }

        @Test
        void deleteTopicUnderSendingThreadsCompletesEveryFuture() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                List<CompletableFuture<RecordPosition>> all = java.util.Collections.synchronizedList(new ArrayList<>());
                List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    Thread th = new Thread(() -> {
                        for (int i = 0; i < 100_000; i++) {
                            try {
                                all.add(p.send(null, b("v" + i)));
                            } catch (UnknownTopicException e) {
                                return;
                            }
                        }
                    });
                    threads.add(th);
                    th.start();
                }
                Thread.sleep(100);
                k.deleteTopic("t");
                for (Thread th : threads) {
                    th.join(10_000);
                }
                List<CompletableFuture<RecordPosition>> copy;
                synchronized (all) {
                    copy = new ArrayList<>(all);
                }
                CompletableFuture.allOf(copy.stream().map(f -> f.exceptionally(e -> null))
                        .toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
                k.createTopic("t");
                assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isZero();
            }
        }
    }

    @Nested
    class Time {

        private void awaitTrue(java.util.function.BooleanSupplier cond) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!cond.getAsBoolean() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        }

        @Test
        void aSegmentRollsAtItsAgeAndAFutureStampedRecordHoldsBackEverythingAfterIt() throws Exception {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            KafkoOptions opts = KafkoOptions.builder().clock(clock).retentionCheckInterval(Duration.ofMillis(30))
                    .build();
            long hour = 3_600_000L;
            try (Kafko k = Kafko.open(dir, opts)) {
                k.createTopic("t", TopicConfig.builder().segmentAge(Duration.ofHours(1))
                        .retention(Duration.ofHours(5)).build());
                Producer p = k.producer("t");
                Topic t = k.topic("t").orElseThrow();
                p.send(null, b("a")).join(); // segment 1, at T
                clock.millis.addAndGet(2 * hour);
                p.send(null, b("b")).join(); // T+2h: segment 1 is older than 1h, so segment 2
                assertThat(t.partition(0).segmentCount()).isEqualTo(2);
                p.send(OutgoingRecord.of(null, b("future"), Headers.empty(), clock.millis() + 100 * hour)).join();
                clock.millis.addAndGet(2 * hour);
                p.send(null, b("c")).join(); // T+4h: segment 3
                assertThat(t.partition(0).segmentCount()).isEqualTo(3);
                clock.millis.addAndGet(10 * hour); // everything but "future" is far past 5h
                awaitTrue(() -> t.partition(0).logStartOffset() >= 1);
                Thread.sleep(200);
                assertThat(t.partition(0).logStartOffset()).isEqualTo(1); // "b" and "future" share a segment
                try (Consumer c = k.consumer("t")) {
                    assertThat(values(pollUntil(c, 3))).containsExactly("b", "future", "c");
                }
            }
        }

        @Test
        void retentionAtOpenDeletesWhatExpiredWhileTheInstanceWasClosed() throws Exception {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock).build())) {
                k.createTopic("t", TopicConfig.builder().retention(Duration.ofHours(1)).segmentBytes(1024).build());
                for (int i = 0; i < 30; i++) {
                    k.producer("t").send(null, b(String.format("%0100d", i))).join();
                }
            }
            clock.millis.addAndGet(Duration.ofHours(2).toMillis());
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock).build())) {
                Topic t = k.topic("t").orElseThrow();
                awaitTrue(() -> t.partition(0).logStartOffset() == 30);
                assertThat(t.partition(0).logStartOffset()).isEqualTo(30);
                assertThat(t.partition(0).endOffset()).isEqualTo(30);
            }
        }

        @Test
        void aClockThatGoesBackDoesNotBreakTimestampSeeks() {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock).build())) {
                k.createTopic("t");
                Producer p = k.producer("t");
                p.send(null, b("a")).join();
                clock.millis.addAndGet(-10_000);
                p.send(null, b("b")).join();
                clock.millis.addAndGet(20_000);
                p.send(null, b("c")).join();
                try (Consumer c = k.consumer("t")) {
                    assertThat(pollUntil(c, 3)).extracting(KafkoRecord::timestamp)
                            .containsExactly(1_700_000_000_000L, 1_699_999_990_000L, 1_700_000_010_000L);
                    c.seekToTimestamp(1_699_999_995_000L);
                    assertThat(c.position(0)).isZero();
                    c.seekToTimestamp(1_700_000_000_001L);
                    assertThat(c.position(0)).isEqualTo(2);
                }
            }
        }
    }

    @Nested
    class Sends {

        @Test
        void anExplicitPartitionDoesNotMoveTheRoundRobin() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(3).build());
                Producer p = k.producer("t");
                assertThat(p.send(null, b("a")).join().partition()).isZero();
                p.sendTo(2, null, b("b")).join();
                p.send(b("key"), b("c")).join();
                assertThat(p.send(null, b("d")).join().partition()).isEqualTo(1);
            }
        }

        @Test
        void aLoopOfZeroPollsSeesLingeringSendsOnceTheLingerEnds() {
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofMillis(20)).build())) {
                k.createTopic("t");
                Producer p = k.producer("t");
                try (Consumer c = k.consumer("t")) {
                    List<CompletableFuture<RecordPosition>> fs = new ArrayList<>();
                    for (int i = 0; i < 1000; i++) {
                        fs.add(p.send(null, b("v" + i)));
                    }
                    int seen = 0;
                    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                    while (seen < 1000 && System.nanoTime() < deadline) {
                        seen += c.poll(Duration.ZERO).size();
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                    }
                    assertThat(seen).isEqualTo(1000);
                    assertThat(fs).allMatch(CompletableFuture::isDone);
                }
            }
        }

        @Test
        void flushWritesEveryEarlierSend() {
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofSeconds(5)).build())) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                List<CompletableFuture<RecordPosition>> fs = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    fs.add(p.send(null, b("v" + i)));
                }
                p.flush();
                assertThat(fs).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
                assertThat(k.topic("t").orElseThrow().partitions().stream().mapToLong(pi -> pi.endOffset()).sum())
                        .isEqualTo(500);
            }
        }

        @Test
        void anInterruptedPollReturnsRecordsFirstThenThrowsKeepingTheInterrupt() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t");
                k.producer("t").send(null, b("x")).join();
                try (Consumer c = k.consumer("t")) {
                    Thread.currentThread().interrupt();
                    try {
                        assertThat(values(c.poll(Duration.ofSeconds(5)))).containsExactly("x");
                        long start = System.nanoTime();
                        assertThatThrownBy(() -> c.poll(Duration.ofSeconds(5)))
                                .isInstanceOf(dev.kafko.InterruptException.class);
                        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
                        assertThat(Thread.currentThread().isInterrupted()).isTrue();
                        assertThat(c.poll(Duration.ZERO)).isEmpty(); // a zero poll does not wait: no throw
                    } finally {
                        Thread.interrupted();
                    }
                }
            }
        }

        @Test
        void underEveryBatchAnAcknowledgedRecordIsReadAndCommittedAcrossAReopen() {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().fsync(dev.kafko.FsyncPolicy.EVERY_BATCH).partitions(2)
                        .build());
                Producer p = k.producer("t");
                List<CompletableFuture<RecordPosition>> fs = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    fs.add(p.send(b("k" + i), b("v" + i)));
                }
                fs.forEach(CompletableFuture::join);
                try (Consumer g = k.groupConsumer("t", "g")) {
                    assertThat(pollUntil(g, 200)).hasSize(200);
                    g.commit();
                    assertThat(g.committed(0).getAsLong() + g.committed(1).getAsLong()).isEqualTo(200);
                }
            }
            try (Kafko k = Kafko.open(dir); Consumer g = k.groupConsumer("t", "g")) {
                assertThat(g.poll(Duration.ofMillis(50))).isEmpty();
            }
        }

        @Test
        void underFailANewAnonymousConsumerBelowTheLogStartThrowsUntilItSeeks() throws Exception {
            ManualClock clock = new ManualClock(1_700_000_000_000L);
            try (Kafko k = Kafko.open(dir, KafkoOptions.builder().clock(clock)
                    .retentionCheckInterval(Duration.ofMillis(30)).build())) {
                k.createTopic("t", TopicConfig.builder().retention(Duration.ofMinutes(1)).segmentBytes(1024).build());
                for (int i = 0; i < 20; i++) {
                    k.producer("t").send(null, b(String.format("%0100d", i))).join();
                }
                clock.millis.addAndGet(120_000);
                k.producer("t").send(null, b("fresh")).join();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (k.topic("t").orElseThrow().partition(0).logStartOffset() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                long start = k.topic("t").orElseThrow().partition(0).logStartOffset();
                assertThat(start).isGreaterThan(0);
                try (Consumer c = k.consumer("t", dev.kafko.ConsumerOptions.DEFAULTS
                        .withOffsetReset(dev.kafko.OffsetResetPolicy.FAIL))) {
                    assertThat(c.position(0)).isZero();
                    assertThatThrownBy(() -> c.poll(Duration.ofMillis(10))).isInstanceOf(OffsetOutOfRangeException.class);
                    c.seekToBeginning();
                    assertThat(c.position(0)).isEqualTo(start);
                    assertThat(values(pollUntil(c, 1))).last().isEqualTo("fresh");
                }
            }
        }
    }

    @Nested
    class BigRecords {

        private byte[] pattern(int size, int seed) {
            byte[] v = new byte[size];
            new java.util.Random(seed).nextBytes(v);
            return v;
        }

        @ParameterizedTest
        @EnumSource(Compression.class)
        void recordsOverTheReadSizeAndAcrossMappingWindowsRoundTrip(Compression codec) {
            int[] sizes = {3_000_001, 5_123_457, 7, 20_000_000, 4_999_999, 1, 9_876_543};
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().compression(codec)
                        .maxRecordBytes(TopicConfig.MAX_RECORD_BYTES_LIMIT).build());
                Producer p = k.producer("t");
                for (int i = 0; i < sizes.length; i++) {
                    p.send(null, pattern(sizes[i], i)).join();
                }
                try (Consumer c = k.consumer("t")) {
                    List<KafkoRecord> r = pollUntil(c, sizes.length);
                    assertThat(r).hasSize(sizes.length);
                    for (int i = 0; i < sizes.length; i++) {
                        assertThat(Arrays.equals(r.get(i).value(), pattern(sizes[i], i))).as("record %d", i).isTrue();
                    }
                }
            }
            try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
                c.seek(0, 3);
                KafkoRecord r = pollUntil(c, 1).get(0);
                assertThat(r.offset()).isEqualTo(3);
                assertThat(Arrays.equals(r.value(), pattern(sizes[3], 3))).isTrue();
                c.seekToBeginning();
                List<KafkoRecord> all = pollUntil(c, sizes.length);
                for (int i = 0; i < sizes.length; i++) {
                    assertThat(Arrays.equals(all.get(i).value(), pattern(sizes[i], i))).as("record %d", i).isTrue();
                }
            }
        }

        @Test
        void theLargestRecordFitsAndOneByteMoreIsRefused() {
            try (Kafko k = Kafko.open(dir)) {
                int max = TopicConfig.MAX_RECORD_BYTES_LIMIT;
                k.createTopic("t", TopicConfig.builder().maxRecordBytes(max).build());
                Producer p = k.producer("t");
                // 5 + 1 (null key) + 4 (varint of value length + 1) + value + 1 (header count)
                byte[] value = new byte[max - 11];
                p.send(null, value).join();
                assertThatThrownBy(() -> p.send(null, new byte[max - 10])).isInstanceOf(RecordTooLargeException.class);
                try (Consumer c = k.consumer("t")) {
                    assertThat(pollUntil(c, 1).get(0).value()).hasSize(max - 11);
                }
            }
        }
    }

    @Nested
    class AfterClose {

        @Test
        void argumentsAreCheckedBeforeTheClose() {
            Kafko k = Kafko.open(dir);
            k.createTopic("t");
            Producer p = k.producer("t");
            Consumer c = k.groupConsumer("t", "g");
            k.close();
            List<String> wrong = new ArrayList<>();
            java.util.function.BiConsumer<String, Runnable> expectNot = (what, call) -> {
                try {
                    call.run();
                    wrong.add(what + ": no exception");
                } catch (KafkoClosedException e) {
                    wrong.add(what + ": KafkoClosedException");
                } catch (RuntimeException e) {
                    // the argument's own error
                }
            };
            expectNot.accept("topic(bad)", () -> k.topic("bad name"));
            expectNot.accept("createTopic(bad)", () -> k.createTopic("bad name"));
            expectNot.accept("createTopic(t, null)", () -> k.createTopic("u", null));
            expectNot.accept("deleteTopic(bad)", () -> k.deleteTopic("bad name"));
            expectNot.accept("groupConsumer(t, bad)", () -> k.groupConsumer("t", "bad name"));
            expectNot.accept("groups(bad)", () -> k.groups("bad name"));
            expectNot.accept("groupInfo(t, bad)", () -> k.groupInfo("t", "bad name"));
            expectNot.accept("send(headers null)", () -> p.send(null, b("x"), null));
            expectNot.accept("sendBatch(null)", () -> p.sendBatch(null));
            expectNot.accept("send(ts -5)", () -> p.send(OutgoingRecord.of(null, null, Headers.empty(), -5)));
            expectNot.accept("poll(-1)", () -> c.poll(Duration.ofMillis(-1)));
            expectNot.accept("poll(null)", () -> c.poll(null));
            expectNot.accept("seek(0, -1)", () -> c.seek(0, -1));
            expectNot.accept("seekAll(-1)", () -> c.seekAll(-1));
            expectNot.accept("seekToTimestamp(-1)", () -> c.seekToTimestamp(-1));
            expectNot.accept("commit(null)", () -> c.commit(null));
            expectNot.accept("commit({0:-1})", () -> c.commit(Map.of(0, -1L)));
            assertThat(wrong).isEmpty();
        }

        @Test
        void adminCallsAfterCloseAreKafkoClosedAndAStaleTopicHandleReportsClosedPartitions() {
            try (Kafko k = Kafko.open(dir.resolve("x"))) {
                Topic t = k.createTopic("t");
                k.producer("t").send(null, b("x")).join();
                k.deleteTopic("t");
                assertThat(t.partitions()).allMatch(pi -> pi.state() == dev.kafko.PartitionState.CLOSED);
                assertThatThrownBy(() -> t.increasePartitions(2)).isInstanceOf(UnknownTopicException.class);
            }
            Kafko k = Kafko.open(dir);
            Topic t = k.createTopic("t");
            k.close();
            assertThatThrownBy(() -> k.groups("t")).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.groupInfo("t", "g")).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> k.consumer("t", dev.kafko.ConsumerOptions.DEFAULTS))
                    .isInstanceOf(KafkoClosedException.class);
            assertThat(t.name()).isEqualTo("t");
            assertThat(t.partitions()).allMatch(pi -> pi.state() == dev.kafko.PartitionState.CLOSED);
        }
    }

    @Nested
    class Growth {

        @ParameterizedTest
        @ValueSource(booleans = {false, true})
        void aPollBlockedWhileTheTopicGrowsReturnsARecordSentToTheNewPartitionAtOnce(boolean member)
                throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                Topic t = k.createTopic("t");
                Consumer c = member ? k.groupConsumer("t", "g") : k.consumer("t");
                CompletableFuture<List<KafkoRecord>> polled = new CompletableFuture<>();
                Thread poller = new Thread(() -> {
                    try {
                        // a timeout it can never wait out: returning at all is returning on the send
                        polled.complete(c.poll(Duration.ofDays(1)));
                    } catch (Throwable e) {
                        polled.completeExceptionally(e);
                    }
                });
                poller.setDaemon(true);
                poller.start();
                Thread.sleep(200);
                t.increasePartitions(2);
                Thread.sleep(100);
                k.producer("t").sendTo(1, null, b("new")).join();
                List<KafkoRecord> got = polled.get(60, TimeUnit.SECONDS);
                assertThat(values(got)).containsExactly("new");
                c.close();
            }
        }
    }

    @Nested
    class StrayFiles {

        @Test
        void filesADesktopOrAMountLeavesInTheDataDirectoryDoNotStopTheOpen() throws Exception {
            try (Kafko k = Kafko.open(dir)) {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                k.producer("t").send(null, b("x")).join();
                try (Consumer g = k.groupConsumer("t", "g")) {
                    pollUntil(g, 1);
                    g.commit();
                }
            }
            Files.createDirectories(dir.resolve("lost+found"));
            for (Path p : List.of(dir, dir.resolve("t"), dir.resolve("t/0"), dir.resolve("t/groups"),
                    dir.resolve("t/groups/g"))) {
                Files.write(p.resolve(".DS_Store"), new byte[] {0, 0, 0, 1, 'B', 'u', 'd', '1'});
            }
            Files.writeString(dir.resolve("README.txt"), "hands off");
            Files.createDirectories(dir.resolve("empty-dir"));
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topics()).containsExactly("t");
                try (Consumer g = k.groupConsumer("t", "g"); Consumer c = k.consumer("t")) {
                    assertThat(g.committed(0).orElse(0) + g.committed(1).orElse(0)).isEqualTo(1);
                    assertThat(values(pollUntil(c, 1))).containsExactly("x");
                }
                k.producer("t").send(null, b("y")).join();
                k.createTopic("empty-dir");
                assertThatThrownBy(() -> k.createTopic("lost+found")).isInstanceOf(InvalidNameException.class);
            }
            try (Kafko k = Kafko.open(dir)) {
                assertThat(k.topics()).containsExactlyInAnyOrder("t", "empty-dir");
                k.deleteTopic("t");
            }
            assertThat(dir.resolve("README.txt")).exists();
        }
    }
}
