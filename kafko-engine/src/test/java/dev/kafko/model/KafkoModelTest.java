package dev.kafko.model;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.kafko.AlreadyOpenException;
import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.FsyncPolicy;
import dev.kafko.GroupInfo;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.InvalidNameException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OffsetOutOfRangeException;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.RecordTooLargeException;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.log.MutableClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Model-based randomized test of the engine's public API. Each seed runs a random sequence of operations
 * (sends of every shape, batches, seeks, polls, group members joining, committing and leaving, topics
 * created, deleted, recreated and grown, retention by age on a settable clock and by size, clean close
 * and reopen) against a real instance on tiny segments and against an in-memory model, and checks every
 * result: offsets, keys, values, headers and timestamps read back, Kafka's partitioner for keys, positions,
 * group assignments and commits, introspection, and the typed exception of every refused call. On a
 * failure the message names the seed, the operation and the 60 before it. {@code -Dseed=N} runs one seed,
 * {@code -Dseeds=N} the first N (20 by default), {@code -Dops=N} sets the operations per seed (400).
 */
class KafkoModelTest {

    static final int OPS = Integer.getInteger("ops", 400);

    static LongStream seeds() {
        String only = System.getProperty("seed");
        if (only != null) {
            return LongStream.of(Long.parseLong(only));
        }
        return LongStream.rangeClosed(1, Integer.getInteger("seeds", 20));
    }

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomOperationsAgreeWithTheModel(long seed) throws Exception {
        Run run = new Run(seed, tmp.resolve("data"));
        try {
            run.go();
        } catch (Throwable t) {
            run.closeQuietly();
            List<String> trace = run.trace;
            String tail = String.join("\n", trace.subList(Math.max(0, trace.size() - 60), trace.size()));
            throw new AssertionError("seed " + seed + " failed at op #" + run.opNo + "; last ops:\n" + tail, t);
        }
    }

    @Test
    void murmur2MatchesKafkaVectors() {
        assertThat(Murmur2.hash("21".getBytes(UTF_8))).isEqualTo(-973932308);
        assertThat(Murmur2.hash("foobar".getBytes(UTF_8))).isEqualTo(-790332482);
        assertThat(Murmur2.hash("a-little-bit-long-string".getBytes(UTF_8))).isEqualTo(-985981536);
        assertThat(Murmur2.hash("a-little-bit-longer-string".getBytes(UTF_8))).isEqualTo(-1486304829);
        assertThat(Murmur2.hash("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8".getBytes(UTF_8)))
                .isEqualTo(-58897971);
        assertThat(Murmur2.hash("abc".getBytes(UTF_8))).isEqualTo(479470107);
    }

    // ------------------------------------------------------------------ model types

    record MRec(byte[] key, byte[] value, List<Header> headers, long ts) {
    }

    static final class MTopic {
        final String name;
        final TopicConfig cfg;
        final List<List<MRec>> log = new ArrayList<>();
        final List<Long> ls = new ArrayList<>();
        int rr;
        final Map<String, Map<Integer, Long>> commits = new HashMap<>();
        final Map<String, List<MCons>> members = new LinkedHashMap<>();
        /** Groups that made a commit call that committed nothing: listed by groups() (known defect, see EmptyCommitListsGroupTest). */
        Topic handle;
        Producer producer;

        MTopic(String name, TopicConfig cfg) {
            this.name = name;
            this.cfg = cfg;
            for (int i = 0; i < cfg.partitions(); i++) {
                addPartition();
            }
        }

        void addPartition() {
            log.add(new ArrayList<>());
            ls.add(0L);
        }

        int n() {
            return log.size();
        }

        long end(int p) {
            return log.get(p).size();
        }

        boolean hasRetention() {
            return cfg.retention() != null || cfg.retentionBytes() >= 0;
        }
    }

    static final class MCons {
        final Consumer c;
        final MTopic t;
        final String group;
        final int maxPoll;
        final Map<Integer, Long> pos = new TreeMap<>();
        final Set<Integer> owned = new TreeSet<>();
        final String id;
        /** Partitions announced by rebalance callbacks (revoked removed, assigned added). */
        final Set<Integer> announced = new TreeSet<>();
        final List<String> events = new ArrayList<>();
        boolean commitOnRevoke;
        /** Offsets committed from onPartitionsRevoked during the last poll. */
        final Map<Integer, Long> revokeCommits = new TreeMap<>();
        Consumer self;

        MCons(Consumer c, MTopic t, String group, int maxPoll, String id) {
            this.c = c;
            this.t = t;
            this.group = group;
            this.maxPoll = maxPoll;
            this.id = id;
        }
    }

    // ------------------------------------------------------------------ one run

    static final class Run {
        final long seed;
        final Random rnd;
        final Path dir;
        final MutableClock clock = new MutableClock(1_700_000_000_000L);
        final AtomicLong retentionEvents = new AtomicLong();
        final List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        int maxSegments;
        int reopens;
        int rebalanceChecks;
        final KafkoOptions options;
        final List<String> trace = new ArrayList<>();
        int opNo;
        Kafko k;
        final Map<String, MTopic> topics = new TreeMap<>();
        final List<MCons> consumers = new ArrayList<>();
        int consumerSeq;
        static final String[] NAMES = {"t0", "t1", "t.2", "t-3"};
        static final String[] GROUPS = {"g1", "g2", "g.3"};
        static final String[] HKEYS = {"h", "trace-id", "ключ", "h", "s?x"};

        Run(long seed, Path dir) {
            this.seed = seed;
            this.rnd = new Random(seed);
            this.dir = dir;
            KafkoOptions.Builder b = KafkoOptions.builder().clock(clock).observer(new dev.kafko.KafkoObserver() {
                        @Override
                        public void onRetention(String topic, int partition, int segments, long bytes) {
                            retentionEvents.incrementAndGet();
                        }

                        @Override
                        public void onFailure(String topic, int partition, Throwable cause) {
                            failures.add(topic + "-" + partition + ": " + cause);
                        }
                    })
                    .retentionCheckInterval(Duration.ofMillis(20));
            if (rnd.nextBoolean()) {
                b.linger(Duration.ZERO);
            }
            this.options = b.build();
        }

        void log(String s) {
            trace.add("#" + opNo + " " + s);
        }

        void closeQuietly() {
            try {
                if (k != null) {
                    k.close();
                }
            } catch (Throwable ignored) {
                // nothing
            }
        }

        void go() {
            k = Kafko.open(dir, options);
            createTopic(NAMES[0]);
            for (opNo = 1; opNo <= OPS; opNo++) {
                int w = rnd.nextInt(100);
                if (w < 22) {
                    opSend();
                } else if (w < 28) {
                    opBatch();
                } else if (w < 32) {
                    opBurst();
                } else if (w < 46) {
                    opPoll();
                } else if (w < 52) {
                    opSeek();
                } else if (w < 56) {
                    opNewConsumer();
                } else if (w < 62) {
                    opJoinGroup();
                } else if (w < 66) {
                    opCloseConsumer();
                } else if (w < 72) {
                    opCommit();
                } else if (w < 75) {
                    opSettle();
                } else if (w < 78) {
                    opCreateTopic();
                } else if (w < 80) {
                    opDeleteTopic();
                } else if (w < 82) {
                    opIncreasePartitions();
                } else if (w < 85) {
                    opReopen();
                } else if (w < 89) {
                    opAdvanceClock();
                } else if (w < 94) {
                    opBadInput();
                } else {
                    opIntrospect();
                }
            }
            opReopen();
            k.close();
            assertThat(failures).as("partition failures reported to the observer").isEmpty();
            System.out.printf("seed %d: retention events %d, max segments %d, reopens %d, settled groups %d, topics %s%n",
                    seed, retentionEvents.get(), maxSegments, reopens, rebalanceChecks, topics.keySet());
        }

        // ---------------------------------------------------------------- helpers

        MTopic anyTopic() {
            if (topics.isEmpty()) {
                return createTopic(NAMES[rnd.nextInt(NAMES.length)]);
            }
            List<MTopic> l = new ArrayList<>(topics.values());
            return l.get(rnd.nextInt(l.size()));
        }

        MTopic createTopic(String name) {
            TopicConfig.Builder b = TopicConfig.builder().partitions(1 + rnd.nextInt(4))
                    .compression(Compression.values()[rnd.nextInt(3)])
                    .segmentBytes(1024 + rnd.nextInt(3) * 1024)
                    .fsync(rnd.nextInt(4) == 0 ? FsyncPolicy.EVERY_BATCH : FsyncPolicy.NEVER);
            int ret = rnd.nextInt(5);
            if (ret == 0) {
                b.retention(Duration.ofHours(1 + rnd.nextInt(3)));
            } else if (ret == 1) {
                b.retentionBytes(2048 + rnd.nextInt(4) * 1024L);
            }
            if (rnd.nextInt(3) == 0) {
                b.maxRecordBytes(512);
            }
            if (rnd.nextBoolean()) {
                b.indexIntervalBytes(64 + rnd.nextInt(500));
            }
            TopicConfig cfg = b.build();
            log("createTopic " + name + " " + cfg);
            Topic t = k.createTopic(name, cfg);
            MTopic m = new MTopic(name, cfg);
            m.handle = t;
            m.producer = k.producer(name);
            assertThat(t.partitionCount()).isEqualTo(cfg.partitions());
            assertThat(t.name()).isEqualTo(name);
            topics.put(name, m);
            assertThat(k.topics()).isEqualTo(topics.keySet());
            return m;
        }

        byte[] bytes(int n) {
            byte[] b = new byte[n];
            rnd.nextBytes(b);
            return b;
        }

        byte[] randKey() {
            int r = rnd.nextInt(20);
            if (r < 6) {
                return null;
            }
            if (r == 6) {
                return new byte[0];
            }
            if (r < 14) {
                return ("k" + rnd.nextInt(10)).getBytes(UTF_8);
            }
            return bytes(1 + rnd.nextInt(12));
        }

        byte[] randValue() {
            int r = rnd.nextInt(10);
            if (r == 0) {
                return null;
            }
            if (r == 1) {
                return new byte[0];
            }
            return bytes(rnd.nextInt(150));
        }

        List<Header> randHeaders() {
            if (rnd.nextBoolean()) {
                return List.of();
            }
            List<Header> hs = new ArrayList<>();
            int n = 1 + rnd.nextInt(3);
            for (int i = 0; i < n; i++) {
                String key = HKEYS[rnd.nextInt(HKEYS.length)];
                byte[] v = rnd.nextInt(4) == 0 ? null : rnd.nextInt(4) == 0 ? new byte[0] : bytes(rnd.nextInt(10));
                hs.add(new Header(key, v));
            }
            return hs;
        }

        long randTs() {
            int r = rnd.nextInt(10);
            if (r < 6) {
                return OutgoingRecord.NO_TIMESTAMP;
            }
            long now = clock.millis();
            if (r == 6) {
                return Math.max(0, now - rnd.nextInt(3 * 3_600_000));
            }
            if (r == 7) {
                return now + rnd.nextInt(3 * 3_600_000); // future
            }
            if (r == 8) {
                return rnd.nextInt(3); // ancient
            }
            return now;
        }

        MRec randRec() {
            return new MRec(randKey(), randValue(), randHeaders(), randTs());
        }

        OutgoingRecord out(MRec r) {
            return OutgoingRecord.of(r.key(), r.value(), sentHeaders(r), r.ts());
        }

        /** The model stores "s?x"; the record is sent with an unpaired surrogate there, which reads back as '?'. */
        static Headers sentHeaders(MRec r) {
            List<Header> hs = new ArrayList<>();
            for (Header h : r.headers()) {
                hs.add(h.key().equals("s?x") ? new Header("s\uD800x", h.value()) : h);
            }
            return Headers.of(hs);
        }

        MRec stamped(MRec r) {
            return r.ts() == OutgoingRecord.NO_TIMESTAMP ? new MRec(r.key(), r.value(), r.headers(), clock.millis()) : r;
        }

        int route(MTopic t, MRec r) {
            if (t.n() == 1) {
                return 0; // the engine does not advance the counter of a one-partition topic
            }
            if (r.key() == null) {
                return (t.rr++ & 0x7fffffff) % t.n();
            }
            return Murmur2.partition(r.key(), t.n());
        }

        void checkPosition(RecordPosition rp, int p, long offset) {
            assertThat(rp).as("position of acknowledged send").isEqualTo(new RecordPosition(p, offset));
        }

        void append(MTopic t, int p, MRec r) {
            t.log.get(p).add(stamped(r));
        }

        static <T> T join(CompletableFuture<T> f) {
            try {
                return f.join();
            } catch (CompletionException e) {
                throw new AssertionError("send failed: " + e.getCause(), e.getCause());
            }
        }

        // ---------------------------------------------------------------- produce

        void opSend() {
            MTopic t = anyTopic();
            MRec r = randRec();
            int mode = rnd.nextInt(5);
            if (mode == 3 || mode == 4) {
                int p = rnd.nextInt(t.n());
                log("sendTo " + t.name + " p" + p + " " + desc(r) + " mode" + mode);
                RecordPosition rp = mode == 3 && r.headers().isEmpty() && r.ts() == OutgoingRecord.NO_TIMESTAMP
                        ? join(t.producer.sendTo(p, r.key(), r.value()))
                        : join(t.producer.sendTo(p, out(r)));
                checkPosition(rp, p, t.end(p));
                append(t, p, r);
                return;
            }
            if (r.key() != null) {
                assertThat(t.producer.partitionFor(r.key())).isEqualTo(Murmur2.partition(r.key(), t.n()));
            }
            int p = route(t, r);
            log("send " + t.name + " -> p" + p + " " + desc(r) + " mode" + mode);
            RecordPosition rp;
            if (mode == 0 && r.headers().isEmpty() && r.ts() == OutgoingRecord.NO_TIMESTAMP) {
                rp = join(t.producer.send(r.key(), r.value()));
            } else if (mode == 1 && r.ts() == OutgoingRecord.NO_TIMESTAMP) {
                rp = join(t.producer.send(r.key(), r.value(), sentHeaders(r)));
            } else {
                rp = join(t.producer.send(out(r)));
            }
            checkPosition(rp, p, t.end(p));
            append(t, p, r);
        }

        String desc(MRec r) {
            return "key=" + (r.key() == null ? "null" : r.key().length) + " val="
                    + (r.value() == null ? "null" : r.value().length) + " h=" + r.headers().size() + " ts=" + r.ts();
        }

        void opBatch() {
            MTopic t = anyTopic();
            int n = 1 + rnd.nextInt(8);
            List<MRec> recs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                recs.add(randRec());
            }
            List<OutgoingRecord> outs = recs.stream().map(this::out).toList();
            if (rnd.nextInt(4) == 0) {
                int p = rnd.nextInt(t.n());
                log("sendBatchTo " + t.name + " p" + p + " n=" + n);
                List<RecordPosition> res = join(t.producer.sendBatchTo(p, outs));
                assertThat(res).hasSize(n);
                for (int i = 0; i < n; i++) {
                    checkPosition(res.get(i), p, t.end(p));
                    append(t, p, recs.get(i));
                }
                return;
            }
            int[] parts = new int[n];
            for (int i = 0; i < n; i++) {
                parts[i] = route(t, recs.get(i));
            }
            log("sendBatch " + t.name + " n=" + n + " parts=" + Arrays.toString(parts) + " rr=" + t.rr + " keys="
                    + recs.stream().map(r -> r.key() == null ? "null" : Arrays.toString(r.key())).toList());
            List<RecordPosition> res = join(t.producer.sendBatch(outs));
            assertThat(res).hasSize(n);
            for (int i = 0; i < n; i++) {
                checkPosition(res.get(i), parts[i], t.end(parts[i]));
                append(t, parts[i], recs.get(i));
            }
        }

        /** Several sends without waiting, then flush: every future must be complete when flush returns. */
        void opBurst() {
            MTopic t = anyTopic();
            int n = 2 + rnd.nextInt(10);
            List<CompletableFuture<RecordPosition>> fs = new ArrayList<>();
            List<Integer> parts = new ArrayList<>();
            List<MRec> recs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                MRec r = randRec();
                recs.add(r);
                int p = route(t, r);
                parts.add(p);
                fs.add(t.producer.send(out(r)));
            }
            log("burst " + t.name + " parts=" + parts);
            t.producer.flush();
            for (int i = 0; i < n; i++) {
                assertThat(fs.get(i)).as("future %d done after flush()", i).isDone();
            }
            for (int i = 0; i < n; i++) {
                int p = parts.get(i);
                checkPosition(join(fs.get(i)), p, t.end(p));
                append(t, p, recs.get(i));
            }
        }

        // ---------------------------------------------------------------- consume

        long refreshLs(MTopic t, int p) {
            PartitionInfo info = t.handle.partition(p);
            checkLogStart(t, p, info.logStartOffset());
            assertThat(info.endOffset()).as("end offset of %s-%d", t.name, p).isEqualTo(t.end(p));
            return info.logStartOffset();
        }

        void checkLogStart(MTopic t, int p, long observed) {
            long prev = t.ls.get(p);
            long end = t.end(p);
            assertThat(observed).as("log start of %s-%d never moves back", t.name, p).isGreaterThanOrEqualTo(prev);
            assertThat(observed).as("log start of %s-%d <= end", t.name, p).isLessThanOrEqualTo(end);
            if (!t.hasRetention()) {
                assertThat(observed).as("log start of %s-%d without retention", t.name, p).isZero();
            } else if (t.cfg.retention() != null) {
                long ub = ageUpperBound(t, p);
                assertThat(observed).as("log start of %s-%d <= first unexpired record %d", t.name, p, ub)
                        .isLessThanOrEqualTo(ub);
            } else if (end > 0) {
                assertThat(observed).as("bytes retention keeps the active segment of %s-%d", t.name, p)
                        .isLessThanOrEqualTo(end - 1);
            }
            t.ls.set(p, observed);
        }

        long ageUpperBound(MTopic t, int p) {
            long now = clock.millis();
            long r = t.cfg.retention().toMillis();
            List<MRec> l = t.log.get(p);
            for (int o = 0; o < l.size(); o++) {
                if (now - l.get(o).ts() <= r) {
                    return o;
                }
            }
            return l.size();
        }

        void syncAssignment(MCons m) {
            Set<Integer> actual = m.c.assignment();
            if (m.group == null) {
                Set<Integer> all = new TreeSet<>();
                for (int p = 0; p < m.t.n(); p++) {
                    all.add(p);
                }
                // anonymous consumers grow on poll; before that they may lag behind the count
                assertThat(all).containsAll(actual);
            }
            for (int p : actual) {
                if (!m.owned.contains(p)) {
                    long start = 0;
                    if (m.group != null) {
                        Long c = m.t.commits.getOrDefault(m.group, Map.of()).get(p);
                        if (c != null) {
                            start = Math.min(c, m.t.end(p));
                        }
                    }
                    m.pos.put(p, start);
                }
            }
            m.pos.keySet().retainAll(actual);
            m.owned.clear();
            m.owned.addAll(actual);
            if (m.group != null) {
                // no partition owned by two live members
                for (MCons o : m.t.members.getOrDefault(m.group, List.of())) {
                    if (o != m) {
                        Set<Integer> inter = new TreeSet<>(o.owned);
                        inter.retainAll(actual);
                        assertThat(inter).as("partitions owned by both %s and %s", m.id, o.id).isEmpty();
                    }
                }
            }
        }

        void checkPositions(MCons m) {
            for (int p : m.owned) {
                long a = m.c.position(p);
                long exp = m.pos.get(p);
                if (a != exp) {
                    long ls = refreshLs(m.t, p);
                    assertThat(a).as("%s position(%d) (model %d, log start %d)", m.id, p, exp, ls)
                            .isGreaterThan(exp).isLessThanOrEqualTo(ls);
                    m.pos.put(p, a);
                }
            }
        }

        long available(MCons m) {
            long n = 0;
            for (int p : m.owned) {
                n += Math.max(0, m.t.end(p) - Math.max(m.pos.get(p), m.t.ls.get(p)));
            }
            return n;
        }

        MCons anyConsumer() {
            if (consumers.isEmpty()) {
                return newConsumer(anyTopic(), null);
            }
            return consumers.get(rnd.nextInt(consumers.size()));
        }

        MCons newConsumer(MTopic t, String group) {
            int maxPoll = rnd.nextInt(3) == 0 ? 0 : 1 + rnd.nextInt(20);
            ConsumerOptions o = ConsumerOptions.DEFAULTS.withMaxPollRecords(maxPoll);
            MCons[] holder = new MCons[1];
            boolean commitOnRevoke = rnd.nextBoolean();
            if (group != null) {
                o = o.withRebalanceListener(new dev.kafko.ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(java.util.Collection<Integer> partitions) {
                        MCons h = holder[0];
                        h.events.add("revoked " + partitions);
                        assertThat(h.announced).as("%s revoked partitions it was not assigned", h.id)
                                .containsAll(partitions);
                        h.announced.removeAll(partitions);
                        if (h.commitOnRevoke && !partitions.isEmpty()) {
                            Map<Integer, Long> offs = new TreeMap<>();
                            for (int p : partitions) {
                                offs.put(p, h.self.position(p));
                            }
                            h.self.commit(offs);
                            h.revokeCommits.putAll(offs);
                        }
                    }

                    @Override
                    public void onPartitionsAssigned(java.util.Collection<Integer> partitions) {
                        MCons h = holder[0];
                        h.events.add("assigned " + partitions);
                        for (int p : partitions) {
                            assertThat(h.announced.add(p)).as("%s assigned %d twice", h.id, p).isTrue();
                        }
                    }
                });
            }
            Consumer c = group == null ? k.consumer(t.name, o) : k.groupConsumer(t.name, group, o);
            MCons m = new MCons(c, t, group, maxPoll == 0 ? 500 : maxPoll, "c" + (consumerSeq++) + "[" + t.name
                    + (group == null ? "" : "/" + group) + "]");
            m.self = c;
            m.commitOnRevoke = commitOnRevoke;
            holder[0] = m;
            log("new consumer " + m.id + " maxPoll=" + maxPoll);
            assertThat(c.topic()).isEqualTo(t.name);
            assertThat(c.group()).isEqualTo(java.util.Optional.ofNullable(group));
            consumers.add(m);
            if (group != null) {
                t.members.computeIfAbsent(group, g -> new ArrayList<>()).add(m);
            }
            syncAssignment(m);
            checkPositions(m);
            return m;
        }

        void opNewConsumer() {
            newConsumer(anyTopic(), null);
        }

        void opJoinGroup() {
            newConsumer(anyTopic(), GROUPS[rnd.nextInt(GROUPS.length)]);
        }

        void opCloseConsumer() {
            if (consumers.isEmpty()) {
                return;
            }
            MCons m = consumers.get(rnd.nextInt(consumers.size()));
            log("close " + m.id);
            closeMember(m);
            m.c.close(); // idempotent
            assertThatThrownBy(() -> m.c.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
        }

        /** Closes a consumer; a group member's close revokes its partitions first, where it may commit. */
        void closeMember(MCons m) {
            m.revokeCommits.clear();
            m.events.clear();
            m.c.close();
            if (!m.events.isEmpty()) {
                log("  close callbacks " + m.id + " " + m.events + " revokeCommits=" + m.revokeCommits);
            }
            applyRevokeCommits(m);
            dropConsumer(m);
        }

        void applyRevokeCommits(MCons m) {
            if (m.group != null && !m.revokeCommits.isEmpty()) {
                for (var e : m.revokeCommits.entrySet()) {
                    long exp = m.pos.get(e.getKey());
                    if (e.getValue() != exp) {
                        long ls = refreshLs(m.t, e.getKey());
                        assertThat(e.getValue()).as("%s position of revoked p%d", m.id, e.getKey())
                                .isGreaterThan(exp).isLessThanOrEqualTo(ls);
                    }
                }
                m.t.commits.computeIfAbsent(m.group, g -> new TreeMap<>()).putAll(m.revokeCommits);
            }
        }

        void dropConsumer(MCons m) {
            consumers.remove(m);
            if (m.group != null) {
                m.t.members.get(m.group).remove(m);
            }
        }

        boolean lastPollWoken;

        void poll(MCons m, Duration timeout) {
            m.revokeCommits.clear();
            m.events.clear();
            boolean wake = rnd.nextInt(25) == 0;
            if (wake) {
                m.c.wakeup();
                timeout = Duration.ofSeconds(5);
            }
            lastPollWoken = wake;
            long t0 = System.nanoTime();
            List<KafkoRecord> recs = m.c.poll(timeout);
            if (wake) {
                log("wakeup+poll " + m.id + " -> " + recs.size());
                assertThat(recs).as("poll after wakeup() returns at once with no records").isEmpty();
                assertThat(System.nanoTime() - t0).as("poll after wakeup() returns at once").isLessThan(2_000_000_000L);
            }
            if (!m.events.isEmpty()) {
                log("  rebalance " + m.id + " " + m.events + " revokeCommits=" + m.revokeCommits);
            }
            applyRevokeCommits(m);
            syncAssignment(m);
            if (m.group != null && !wake) {
                assertThat(m.announced).as("%s partitions announced by callbacks == assignment()", m.id)
                        .isEqualTo(m.owned);
            }
            assertThat(recs.size()).as("poll size <= maxPollRecords").isLessThanOrEqualTo(m.maxPoll);
            Map<Integer, List<KafkoRecord>> byPart = new TreeMap<>();
            for (KafkoRecord r : recs) {
                assertThat(r.topic()).isEqualTo(m.t.name);
                byPart.computeIfAbsent(r.partition(), x -> new ArrayList<>()).add(r);
            }
            log("poll " + m.id + " -> " + recs.size() + " " + summary(byPart));
            for (var e : byPart.entrySet()) {
                int p = e.getKey();
                assertThat(m.owned).as("%s got records of partition %d it does not own", m.id, p).contains(p);
                long pos = m.pos.get(p);
                List<KafkoRecord> l = e.getValue();
                long first = l.get(0).offset();
                if (first != pos) {
                    long ls = refreshLs(m.t, p);
                    assertThat(first).as("%s first offset of p%d (model position %d, log start %d)", m.id, p, pos, ls)
                            .isGreaterThan(pos).isLessThanOrEqualTo(ls);
                }
                long expect = first;
                for (KafkoRecord r : l) {
                    assertThat(r.offset()).as("%s offsets of p%d contiguous and in order", m.id, p).isEqualTo(expect);
                    checkRecord(m.t, p, r);
                    expect++;
                }
                m.pos.put(p, expect);
            }
            checkPositions(m);
        }

        String summary(Map<Integer, List<KafkoRecord>> byPart) {
            StringBuilder sb = new StringBuilder();
            byPart.forEach((p, l) -> sb.append("p").append(p).append("[").append(l.get(0).offset()).append("..")
                    .append(l.get(l.size() - 1).offset()).append("] "));
            return sb.toString();
        }

        void checkRecord(MTopic t, int p, KafkoRecord r) {
            List<MRec> l = t.log.get(p);
            assertThat(r.offset()).as("offset within model log of %s-%d", t.name, p).isLessThan(l.size());
            MRec e = l.get((int) r.offset());
            String at = t.name + "-" + p + "@" + r.offset();
            assertThat(r.key()).as("key " + at).isEqualTo(e.key());
            assertThat(r.value()).as("value " + at).isEqualTo(e.value());
            assertThat(r.headers().asList()).as("headers " + at).isEqualTo(e.headers());
            assertThat(r.timestamp()).as("timestamp " + at).isEqualTo(e.ts());
        }

        void opPoll() {
            MCons m = anyConsumer();
            if (m.group == null) {
                syncAssignment(m);
                for (int p : m.owned) {
                    refreshLs(m.t, p);
                }
                long avail = available(m);
                boolean stable = !m.t.hasRetention() && m.owned.size() == m.t.n();
                poll(m, avail > 0 ? Duration.ofSeconds(2) : Duration.ZERO);
                if (avail > 0 && stable && !lastPollWoken) {
                    // anonymous consumer with records available must return some
                    assertThat(trace.get(trace.size() - 1)).as("poll returned nothing with %d available", avail)
                            .doesNotContain("-> 0 ");
                }
            } else {
                poll(m, Duration.ZERO);
            }
        }

        void opSettle() {
            MTopic t = anyTopic();
            settle(t);
        }

        void settle(MTopic t) {
            for (var e : t.members.entrySet()) {
                List<MCons> ms = e.getValue();
                if (ms.isEmpty()) {
                    continue;
                }
                for (int round = 0; round < 3; round++) {
                    for (MCons m : ms) {
                        poll(m, Duration.ZERO);
                    }
                }
                // range assignment over the live members in join order
                int n = t.n();
                int kk = ms.size();
                int start = 0;
                for (int i = 0; i < kk; i++) {
                    int cnt = n / kk + (i < n % kk ? 1 : 0);
                    Set<Integer> exp = new TreeSet<>();
                    for (int p = start; p < start + cnt; p++) {
                        exp.add(p);
                    }
                    start += cnt;
                    rebalanceChecks++;
                    assertThat(ms.get(i).owned).as("assignment of %s (member %d of %d, %d partitions)",
                            ms.get(i).id, i, kk, n).isEqualTo(exp);
                }
            }
        }

        void opSeek() {
            MCons m = anyConsumer();
            syncAssignment(m);
            if (m.owned.isEmpty()) {
                return;
            }
            List<Integer> owned = new ArrayList<>(m.owned);
            int kind = rnd.nextInt(6);
            switch (kind) {
                case 0 -> {
                    int p = owned.get(rnd.nextInt(owned.size()));
                    long off = rnd.nextInt((int) m.t.end(p) + 4);
                    log("seek " + m.id + " p" + p + " " + off);
                    m.c.seek(p, off);
                    m.pos.put(p, Math.min(off, m.t.end(p)));
                }
                case 1 -> {
                    long off = rnd.nextInt(12);
                    log("seekAll " + m.id + " " + off);
                    m.c.seekAll(off);
                    for (int p : owned) {
                        m.pos.put(p, Math.min(off, m.t.end(p)));
                    }
                }
                case 2 -> {
                    log("seekToBeginning " + m.id);
                    Map<Integer, Long> before = new HashMap<>();
                    for (int p : owned) {
                        before.put(p, refreshLs(m.t, p));
                    }
                    m.c.seekToBeginning();
                    for (int p : owned) {
                        long a = m.c.position(p);
                        long after = refreshLs(m.t, p);
                        assertThat(a).as("seekToBeginning %s p%d", m.id, p).isBetween(before.get(p), after);
                        m.pos.put(p, a);
                    }
                }
                case 3 -> {
                    log("seekToEnd " + m.id);
                    m.c.seekToEnd();
                    for (int p : owned) {
                        m.pos.put(p, m.t.end(p));
                    }
                }
                case 4, 5 -> {
                    long ts = pickTs(m.t);
                    log("seekToTimestamp " + m.id + " " + ts);
                    m.c.seekToTimestamp(ts);
                    for (int p : owned) {
                        long a = m.c.position(p);
                        long ls = refreshLs(m.t, p);
                        long exp = firstAtOrAfter(m.t, p, ls, ts);
                        if (a != exp) {
                            assertThat(a).as("seekToTimestamp(%d) %s p%d (model %d, log start %d)", ts, m.id, p, exp, ls)
                                    .isLessThan(ls).isGreaterThanOrEqualTo(firstAtOrAfter(m.t, p, 0, ts));
                        }
                        m.pos.put(p, a);
                    }
                }
                default -> throw new IllegalStateException();
            }
            checkPositions(m);
        }

        long pickTs(MTopic t) {
            List<MRec> all = new ArrayList<>();
            t.log.forEach(all::addAll);
            if (all.isEmpty() || rnd.nextInt(5) == 0) {
                return Math.max(0, clock.millis() + rnd.nextInt(7_200_000) - 3_600_000);
            }
            return Math.max(0, all.get(rnd.nextInt(all.size())).ts() + rnd.nextInt(3) - 1);
        }

        long firstAtOrAfter(MTopic t, int p, long from, long ts) {
            List<MRec> l = t.log.get(p);
            for (long o = from; o < l.size(); o++) {
                if (l.get((int) o).ts() >= ts) {
                    return o;
                }
            }
            return l.size();
        }

        void opCommit() {
            List<MCons> gs = consumers.stream().filter(c -> c.group != null).toList();
            MCons m = gs.isEmpty() || rnd.nextInt(8) == 0 ? anyConsumer() : gs.get(rnd.nextInt(gs.size()));
            syncAssignment(m);
            checkPositions(m);
            if (rnd.nextBoolean()) {
                log("commit() " + m.id + " " + m.pos);
                m.c.commit();
                if (m.group != null) {
                    Map<Integer, Long> cm = m.t.commits.computeIfAbsent(m.group, g -> new TreeMap<>());
                    cm.putAll(m.pos);
                }
            } else {
                Map<Integer, Long> offs = new TreeMap<>();
                for (int p : m.owned) {
                    if (rnd.nextBoolean()) {
                        offs.put(p, (long) rnd.nextInt((int) m.t.end(p) + 3));
                    }
                }
                log("commit(map) " + m.id + " " + offs);
                m.c.commit(offs);
                if (m.group != null && !offs.isEmpty()) {
                    m.t.commits.computeIfAbsent(m.group, g -> new TreeMap<>()).putAll(offs);
                }
            }
            checkCommitted(m);
        }

        void checkCommitted(MCons m) {
            for (int p : m.owned) {
                OptionalLong c = m.c.committed(p);
                Long exp = m.group == null ? null : m.t.commits.getOrDefault(m.group, Map.of()).get(p);
                assertThat(c).as("%s committed(%d)", m.id, p)
                        .isEqualTo(exp == null ? OptionalLong.empty() : OptionalLong.of(exp));
            }
        }

        // ---------------------------------------------------------------- topics

        void opCreateTopic() {
            List<String> free = new ArrayList<>();
            for (String n : NAMES) {
                if (!topics.containsKey(n)) {
                    free.add(n);
                }
            }
            if (free.isEmpty()) {
                return;
            }
            createTopic(free.get(rnd.nextInt(free.size())));
        }

        void opDeleteTopic() {
            if (topics.isEmpty()) {
                return;
            }
            MTopic t = anyTopic();
            log("deleteTopic " + t.name);
            Producer oldProducer = t.producer;
            k.deleteTopic(t.name);
            topics.remove(t.name);
            assertThat(k.topics()).isEqualTo(topics.keySet());
            assertThat(k.topic(t.name)).isEmpty();
            for (MCons m : new ArrayList<>(consumers)) {
                if (m.t == t) {
                    assertThatThrownBy(() -> m.c.poll(Duration.ZERO)).as("poll of %s after deleteTopic", m.id)
                            .isInstanceOf(UnknownTopicException.class);
                    m.c.close();
                    dropConsumer(m);
                }
            }
            assertThatThrownBy(() -> oldProducer.send(null, new byte[1]).join())
                    .satisfiesAnyOf(
                            e -> assertThat(e).isInstanceOf(UnknownTopicException.class),
                            e -> assertThat(e).isInstanceOf(CompletionException.class)
                                    .hasCauseInstanceOf(UnknownTopicException.class));
            if (rnd.nextBoolean()) {
                // recreate at once: a new, empty topic with no groups
                MTopic n = createTopic(t.name);
                for (int p = 0; p < n.n(); p++) {
                    assertThat(n.handle.partition(p).endOffset()).isZero();
                }
                assertThat(k.groups(t.name)).isEmpty();
                assertThatThrownBy(() -> oldProducer.send(null, new byte[1]).join())
                        .as("a producer of the deleted topic must not write to the one created again")
                        .satisfiesAnyOf(
                                e -> assertThat(e).isInstanceOf(UnknownTopicException.class),
                                e -> assertThat(e).isInstanceOf(CompletionException.class)
                                        .hasCauseInstanceOf(UnknownTopicException.class));
                for (int p = 0; p < n.n(); p++) {
                    assertThat(n.handle.partition(p).endOffset()).isZero();
                }
                for (String g : GROUPS) {
                    assertThat(k.groupInfo(t.name, g).committed()).isEmpty();
                }
            }
        }

        void opIncreasePartitions() {
            MTopic t = anyTopic();
            if (t.n() >= 4) {
                return;
            }
            int nn = t.n() + 1 + rnd.nextInt(4 - t.n());
            log("increasePartitions " + t.name + " " + t.n() + " -> " + nn);
            t.handle.increasePartitions(nn);
            while (t.n() < nn) {
                t.addPartition();
            }
            assertThat(t.handle.partitionCount()).isEqualTo(nn);
            assertThat(t.producer.partitionCount()).isEqualTo(nn);
            assertThat(t.handle.partitions()).hasSize(nn);
        }

        // ---------------------------------------------------------------- lifecycle

        void opReopen() {
            log("reopen");
            reopens++;
            Kafko old = k;
            List<MCons> oldConsumers = new ArrayList<>(consumers);
            MTopic someTopic = topics.isEmpty() ? null : anyTopic();
            old.close();
            old.close(); // idempotent
            // everything fails with KafkoClosedException afterwards
            assertThatThrownBy(() -> old.createTopic("zz")).isInstanceOf(KafkoClosedException.class);
            if (someTopic != null) {
                assertThatThrownBy(() -> someTopic.producer.send(null, new byte[1]).join())
                        .satisfiesAnyOf(
                                e -> assertThat(e).isInstanceOf(KafkoClosedException.class),
                                e -> assertThat(e).hasCauseInstanceOf(KafkoClosedException.class));
            }
            for (MCons m : oldConsumers) {
                assertThatThrownBy(() -> m.c.poll(Duration.ZERO)).isInstanceOf(KafkoClosedException.class);
            }
            consumers.clear();
            k = Kafko.open(dir, options);
            assertThat(k.topics()).isEqualTo(topics.keySet());
            for (MTopic t : topics.values()) {
                t.members.clear();
                t.rr = 0;
                t.handle = k.topic(t.name).orElseThrow();
                t.producer = k.producer(t.name);
                assertThat(t.handle.partitionCount()).isEqualTo(t.n());
                assertThat(t.handle.config().compression()).isEqualTo(t.cfg.compression());
                assertThat(t.handle.config().segmentBytes()).isEqualTo(t.cfg.segmentBytes());
                assertThat(t.handle.config().retention()).isEqualTo(t.cfg.retention());
                assertThat(t.handle.config().retentionBytes()).isEqualTo(t.cfg.retentionBytes());
                // commits past the end are moved to the end at open
                for (Map<Integer, Long> cm : t.commits.values()) {
                    cm.replaceAll((p, c) -> Math.min(c, t.end(p)));
                }
                verifyTopic(t);
            }
        }

        void opAdvanceClock() {
            long d = rnd.nextInt(5) == 0 ? (1 + rnd.nextInt(30)) * 3_600_000L : rnd.nextInt(5000);
            log("advance clock " + d);
            clock.advance(Duration.ofMillis(d));
        }

        void opIntrospect() {
            MTopic t = anyTopic();
            log("introspect " + t.name);
            verifyTopic(t);
        }

        /** Every acknowledged record still in the log, log start/end and groups as the model says. */
        void verifyTopic(MTopic t) {
            List<PartitionInfo> infos = t.handle.partitions();
            assertThat(infos).hasSize(t.n());
            for (int p = 0; p < t.n(); p++) {
                PartitionInfo info = infos.get(p);
                assertThat(info.partition()).isEqualTo(p);
                assertThat(info.topic()).isEqualTo(t.name);
                assertThat(info.endOffset()).as("end offset %s-%d", t.name, p).isEqualTo(t.end(p));
                checkLogStart(t, p, info.logStartOffset());
                assertThat(info.state()).isEqualTo(dev.kafko.PartitionState.values()[0]);
                assertThat(info.segmentCount()).isGreaterThanOrEqualTo(1);
                if (info.endOffset() > info.logStartOffset()) {
                    assertThat(info.sizeBytes()).isPositive();
                }
                maxSegments = Math.max(maxSegments, info.segmentCount());
            }
            // liveness of age retention: a partition whose records all expired empties
            if (t.cfg.retention() != null) {
                for (int p = 0; p < t.n(); p++) {
                    if (t.end(p) > 0 && ageUpperBound(t, p) == t.end(p)) {
                        long deadline = System.nanoTime() + 10_000_000_000L;
                        while (refreshLs(t, p) < t.end(p) && System.nanoTime() < deadline) {
                            sleep(10);
                        }
                        assertThat(t.ls.get(p)).as("all records of %s-%d expired: log start reaches the end", t.name, p)
                                .isEqualTo(t.end(p));
                    }
                }
            }
            // read everything with a fresh anonymous consumer
            Consumer c = k.consumer(t.name, ConsumerOptions.DEFAULTS.withMaxPollRecords(1 + rnd.nextInt(500)));
            MCons m = new MCons(c, t, null, 0, "verifier[" + t.name + "]");
            m.pos.clear();
            try {
                syncAssignment(m);
                assertThat(m.owned).hasSize(t.n());
                MCons mm = new MCons(c, t, null, Integer.MAX_VALUE, m.id);
                mm.owned.addAll(m.owned);
                mm.pos.putAll(m.pos);
                int guard = 0;
                while (true) {
                    boolean done = true;
                    for (int p : mm.owned) {
                        if (mm.pos.get(p) < t.end(p)) {
                            done = false;
                        }
                    }
                    if (done) {
                        break;
                    }
                    assertThat(guard++).as("verifier did not reach the end; positions " + mm.pos).isLessThan(2000);
                    List<String> saved = new ArrayList<>(trace);
                    poll(mm, Duration.ofMillis(200));
                    trace.clear();
                    trace.addAll(saved);
                }
            } finally {
                c.close();
            }
            // groups
            Set<String> expGroups = new TreeSet<>();
            for (var e : t.commits.entrySet()) {
                if (!e.getValue().isEmpty()) {
                    expGroups.add(e.getKey());
                }
            }
            t.members.forEach((g, l) -> {
                if (!l.isEmpty()) {
                    expGroups.add(g);
                }
            });
            assertThat(k.groups(t.name)).as("groups of %s", t.name).isEqualTo(expGroups);
            for (String g : GROUPS) {
                Map<Integer, Long> cm = t.commits.getOrDefault(g, Map.of());
                Map<Integer, Long> lsBefore = new HashMap<>();
                for (int p = 0; p < t.n(); p++) {
                    lsBefore.put(p, refreshLs(t, p));
                }
                GroupInfo gi = k.groupInfo(t.name, g);
                assertThat(gi.committed()).as("committed of %s/%s", t.name, g).isEqualTo(cm);
                assertThat(gi.members()).as("members of %s/%s", t.name, g)
                        .isEqualTo(t.members.getOrDefault(g, List.of()).size());
                assertThat(gi.lag().keySet()).as("lag partitions of %s/%s", t.name, g)
                        .containsAll(cm.keySet());
                for (var e : gi.lag().entrySet()) {
                    int p = e.getKey();
                    long lsAfter = refreshLs(t, p);
                    Long c0 = cm.get(p);
                    long end = t.end(p);
                    long lagHi = end - Math.max(c0 == null ? 0 : c0, lsBefore.get(p));
                    long lagLo = end - Math.max(c0 == null ? 0 : c0, lsAfter);
                    if (c0 != null && c0 > end) {
                        assertThat(e.getValue()).as("lag %s/%s p%d (commit past end)", t.name, g, p).isIn(0L, end - c0);
                    } else {
                        assertThat(e.getValue()).as("lag %s/%s p%d (commit %s, end %d, ls %d..%d)", t.name, g, p, c0,
                                end, lsBefore.get(p), lsAfter).isBetween(lagLo, lagHi);
                    }
                }
            }
        }

        static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        // ---------------------------------------------------------------- bad inputs

        void opBadInput() {
            MTopic t = anyTopic();
            int kind = rnd.nextInt(16);
            log("bad input " + kind + " on " + t.name);
            switch (kind) {
                case 0 -> assertThatThrownBy(() -> k.createTopic(t.name)).isInstanceOf(TopicExistsException.class);
                case 1 -> {
                    String bad = List.of("", "a b", ".", "..", "x".repeat(250), "ä", "a/b").get(rnd.nextInt(7));
                    assertThatThrownBy(() -> k.createTopic(bad)).as("createTopic(%s)", bad)
                            .isInstanceOf(InvalidNameException.class);
                    assertThatThrownBy(() -> k.groupConsumer(t.name, bad)).as("groupConsumer(%s)", bad)
                            .isInstanceOf(InvalidNameException.class);
                }
                case 2 -> {
                    String twin = t.name.contains(".") ? t.name.replace('.', '_')
                            : t.name.contains("_") ? t.name.replace('_', '.') : null;
                    if (twin != null) {
                        assertThatThrownBy(() -> k.createTopic(twin)).isInstanceOf(InvalidNameException.class);
                    }
                }
                case 3 -> {
                    assertThatThrownBy(() -> k.producer("nope")).isInstanceOf(UnknownTopicException.class);
                    assertThatThrownBy(() -> k.consumer("nope")).isInstanceOf(UnknownTopicException.class);
                    assertThatThrownBy(() -> k.groupConsumer("nope", "g1")).isInstanceOf(UnknownTopicException.class);
                    assertThatThrownBy(() -> k.deleteTopic("nope")).isInstanceOf(UnknownTopicException.class);
                    assertThatThrownBy(() -> k.groupInfo("nope", "g1")).isInstanceOf(UnknownTopicException.class);
                    assertThatThrownBy(() -> k.groups("nope")).isInstanceOf(UnknownTopicException.class);
                }
                case 4 -> {
                    int p = rnd.nextBoolean() ? -1 : t.n() + rnd.nextInt(3);
                    assertThatThrownBy(() -> t.producer.sendTo(p, null, new byte[1]))
                            .isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> t.producer.sendBatchTo(p, List.of(OutgoingRecord.of(null, null))))
                            .isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> t.handle.partition(p)).isInstanceOf(InvalidPartitionException.class);
                }
                case 5 -> {
                    byte[] big = new byte[t.cfg.maxRecordBytes() + 1 + rnd.nextInt(50)];
                    assertThatThrownBy(() -> t.producer.send(null, big)).isInstanceOf(RecordTooLargeException.class);
                    // the engine routes before it checks the size (as Kafka's producer does): the
                    // refused keyless record took its turn of the round-robin counter
                    if (t.n() > 1) {
                        t.rr++;
                    }
                    assertThatThrownBy(() -> t.producer.sendTo(0, randKey(), big))
                            .isInstanceOf(RecordTooLargeException.class);
                }
                case 6 -> {
                    // a batch with one oversized record in the middle writes nothing
                    List<OutgoingRecord> recs = new ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        recs.add(OutgoingRecord.of(randKey(), new byte[5]));
                    }
                    recs.add(1, OutgoingRecord.of(null, new byte[t.cfg.maxRecordBytes() + 10]));
                    assertThatThrownBy(() -> t.producer.sendBatch(recs)).isInstanceOf(RecordTooLargeException.class);
                    // routed one by one up to the refused record (index 1), as above
                    for (int i = 0; i <= 1; i++) {
                        if (recs.get(i).key() == null && t.n() > 1) {
                            t.rr++;
                        }
                    }
                }
                case 7 -> {
                    MCons m = anyConsumer();
                    syncAssignment(m);
                    if (!m.owned.isEmpty()) {
                        int p = m.owned.iterator().next();
                        assertThatThrownBy(() -> m.c.seek(p, -1)).isInstanceOf(OffsetOutOfRangeException.class);
                    }
                    int np = m.t.n() + 3;
                    assertThatThrownBy(() -> m.c.seek(np, 0)).isInstanceOf(InvalidPartitionException.class);
                    assertThatThrownBy(() -> m.c.position(np)).isInstanceOf(InvalidPartitionException.class);
                    checkPositions(m);
                }
                case 8 -> {
                    MCons m = anyConsumer();
                    assertThatThrownBy(() -> m.c.poll(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
                    assertThatThrownBy(() -> m.c.seekToTimestamp(-5)).isInstanceOf(IllegalArgumentException.class);
                    checkPositions(m);
                }
                case 9 -> {
                    if (t.n() > 1) {
                        assertThatThrownBy(() -> t.handle.increasePartitions(t.n() - 1))
                                .isInstanceOf(InvalidPartitionException.class);
                    }
                    assertThatThrownBy(() -> t.handle.increasePartitions(TopicConfig.MAX_PARTITIONS + 1))
                            .isInstanceOf(InvalidPartitionException.class);
                    assertThat(t.handle.partitionCount()).isEqualTo(t.n());
                }
                case 10 -> {
                    List<MCons> gs = consumers.stream().filter(c -> c.group != null).toList();
                    if (gs.isEmpty()) {
                        return;
                    }
                    MCons m = gs.get(rnd.nextInt(gs.size()));
                    syncAssignment(m);
                    int notMine = -1;
                    for (int p = 0; p < m.t.n() + 1; p++) {
                        if (!m.owned.contains(p)) {
                            notMine = p;
                            break;
                        }
                    }
                    Map<Integer, Long> bad = new TreeMap<>();
                    for (int p : m.owned) {
                        bad.put(p, 0L);
                    }
                    bad.put(notMine, 0L);
                    assertThatThrownBy(() -> m.c.commit(bad)).isInstanceOf(InvalidPartitionException.class);
                    if (!m.owned.isEmpty()) {
                        Map<Integer, Long> neg = new TreeMap<>();
                        neg.put(m.owned.iterator().next(), -1L);
                        assertThatThrownBy(() -> m.c.commit(neg)).isInstanceOf(OffsetOutOfRangeException.class);
                    }
                    checkCommitted(m);
                }
                case 11 -> assertThatThrownBy(() -> Kafko.open(dir, options)).isInstanceOf(AlreadyOpenException.class);
                case 12 -> assertThatThrownBy(() -> OutgoingRecord.of(null, null, Headers.empty(), -2))
                        .isInstanceOf(IllegalArgumentException.class);
                case 13 -> {
                    assertThatThrownBy(() -> t.producer.send((OutgoingRecord) null)).isInstanceOf(NullPointerException.class);
                    assertThatThrownBy(() -> t.producer.sendBatch(Arrays.asList(OutgoingRecord.of(null, null), null)))
                            .isInstanceOf(NullPointerException.class);
                }
                case 14 -> {
                    List<MCons> anon = consumers.stream().filter(c -> c.group == null).toList();
                    if (!anon.isEmpty()) {
                        MCons m = anon.get(0);
                        m.c.commit();
                        assertThat(m.c.committed(0)).isEmpty();
                    }
                }
                case 15 -> {
                    assertThatThrownBy(() -> k.createTopic("t9", TopicConfig.builder().partitions(0).build()))
                            .isInstanceOf(dev.kafko.InvalidConfigException.class);
                    assertThat(k.topics()).isEqualTo(topics.keySet());
                }
                default -> throw new IllegalStateException();
            }
        }
    }
}
