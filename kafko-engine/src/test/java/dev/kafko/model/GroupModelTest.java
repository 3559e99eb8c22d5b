package dev.kafko.model;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.GroupInfo;
import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A randomized, model-based test of consumer groups with fixed seeds. A single-threaded driver runs random
 * operations (members joining with a rebalance listener, closing, polling, committing, seeking; keyed sends;
 * partitions added; the instance closed and reopened; the topic deleted and created again) against a real instance
 * and an in-memory model, and checks the group invariants after every step. A second variant gives every member a
 * thread of its own polling continuously while the driver changes the group, and checks that the group read every
 * record exactly once, in offset order per partition, with callbacks on the members' threads.
 */
class GroupModelTest {

    static final String T = "t";
    static final String[] GROUPS = {"g", "h"};
    static final int OPS = Integer.getInteger("ops", 300);

    static IntStream seeds() {
        String only = System.getProperty("seed");
        return only != null ? IntStream.of(Integer.parseInt(only)) : IntStream.rangeClosed(1, Integer.getInteger("seeds", 20));
    }

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void singleThreadedDriverKeepsEveryGroupInvariant(int seed) {
        new Run(seed, tmp.resolve("s" + seed)).go();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void memberPerThreadReadsEveryRecordOnceInOrder(int seed) throws Exception {
        new ThreadedRun(seed, tmp.resolve("m" + seed)).go();
    }

    static KafkoOptions options() {
        return KafkoOptions.builder().fsyncMetadata(false).build();
    }

    static TopicConfig config(int partitions) {
        return TopicConfig.builder().partitions(partitions).segmentBytes(4096).build();
    }

    // ------------------------------------------------------------------------------------------------------------
    // single-threaded driver

    /** One live group member as the model sees it. */
    static final class Member {
        final String id;
        final String group;
        final boolean commitOnRevoke;
        Consumer c;
        /** Partitions the member holds as far as the model knows, with where it reads next. */
        final Map<Integer, Long> pos = new TreeMap<>();
        /** Partitions the callbacks announced. */
        final Set<Integer> announced = new TreeSet<>();
        final List<String> events = new ArrayList<>();
        Thread expectedThread;
        /** Closes itself from the revoke callback of a poll (an application that shuts down when it loses work). */
        boolean closeInRevoke;
        boolean inPoll;
        boolean closedByCallback;

        Member(String id, String group, boolean commitOnRevoke) {
            this.id = id;
            this.group = group;
            this.commitOnRevoke = commitOnRevoke;
        }

        @Override
        public String toString() {
            return id;
        }
    }

    static final class Run {
        final long seed;
        final Random rnd;
        final Path dir;
        final List<String> history = new ArrayList<>();
        Kafko k;
        Producer producer;
        /** Per partition, the values at their offsets. */
        final List<List<String>> log = new ArrayList<>();
        final Map<String, Map<Integer, Long>> commits = new HashMap<>();
        final List<Member> members = new ArrayList<>();
        final Map<String, Integer> keyPartition = new HashMap<>();
        int memberSeq;
        int valueSeq;
        int settles;
        int revokes;
        int assigns;
        int polled;
        int reopens;
        int deletes;
        int increases;
        int selfCloses;

        Run(long seed, Path dir) {
            this.seed = seed;
            this.rnd = new Random(seed);
            this.dir = dir;
        }

        void log(String s) {
            history.add(s);
        }

        void go() {
            k = Kafko.open(dir, options());
            createTopic(1 + rnd.nextInt(4));
            try {
                for (int i = 0; i < OPS; i++) {
                    step(i);
                    checkAll();
                }
                settleAll();
                System.out.printf("seed %d: %d settles, %d revokes, %d assigns, %d records polled, %d reopens,"
                        + " %d deletes, %d increases, %d closed from their callback%n", seed, settles, revokes, assigns, polled,
                        reopens, deletes, increases, selfCloses);
            } catch (Throwable e) {
                int from = Math.max(0, history.size() - 60);
                throw new AssertionError("seed " + seed + " failed; last operations:\n  "
                        + String.join("\n  ", history.subList(from, history.size())), e);
            } finally {
                for (Member m : members) {
                    try {
                        m.c.close();
                    } catch (RuntimeException ignored) {
                        // reported above
                    }
                }
                k.close();
            }
        }

        void createTopic(int partitions) {
            k.createTopic(T, config(partitions));
            producer = k.producer(T);
            log.clear();
            for (int p = 0; p < partitions; p++) {
                log.add(new ArrayList<>());
            }
            commits.clear();
            keyPartition.clear();
            log("createTopic " + partitions);
        }

        int partitions() {
            return log.size();
        }

        long end(int p) {
            return log.get(p).size();
        }

        List<Member> group(String g) {
            return members.stream().filter(m -> m.group.equals(g)).toList();
        }

        void step(int i) {
            int r = rnd.nextInt(200);
            if (r < 30) {
                join();
            } else if (r < 44) {
                if (!members.isEmpty()) {
                    close(members.get(rnd.nextInt(members.size())));
                }
            } else if (r < 100) {
                if (!members.isEmpty()) {
                    poll(members.get(rnd.nextInt(members.size())));
                }
            } else if (r < 120) {
                if (!members.isEmpty()) {
                    commit(members.get(rnd.nextInt(members.size())));
                }
            } else if (r < 134) {
                if (!members.isEmpty()) {
                    seek(members.get(rnd.nextInt(members.size())));
                }
            } else if (r < 176) {
                send(1 + rnd.nextInt(8));
            } else if (r < 184) {
                increase();
            } else if (r < 190) {
                settleAll();
            } else if (r < 193) {
                reopen();
            } else if (r < 195) {
                deleteAndRecreate();
            } else {
                introspect();
            }
        }

        // ---- operations

        void join() {
            if (members.size() >= 6) {
                return;
            }
            String g = GROUPS[rnd.nextInt(GROUPS.length)];
            Member m = new Member("m" + (memberSeq++) + "/" + g, g, rnd.nextInt(4) != 0);
            ConsumerOptions o = ConsumerOptions.DEFAULTS.withMaxPollRecords(1 + rnd.nextInt(6))
                    .withRebalanceListener(listener(m));
            m.expectedThread = Thread.currentThread();
            m.closeInRevoke = rnd.nextInt(8) == 0;
            m.c = k.groupConsumer(T, g, o);
            members.add(m);
            log("join " + m + " commitOnRevoke=" + m.commitOnRevoke + " -> assignment " + m.c.assignment());
            learn(m, false);
        }

        ConsumerRebalanceListener listener(Member m) {
            return new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<Integer> partitions) {
                    m.events.add("revoked " + partitions);
                    revokes++;
                    log("  " + m + " revoked " + partitions);
                    assertThat(Thread.currentThread()).as("%s revoke callback thread", m).isSameAs(m.expectedThread);
                    assertThat(m.announced).as("%s revoked only announced partitions", m).containsAll(partitions);
                    for (int p : partitions) {
                        assertThat(m.c.position(p)).as("%s position of p%d in revoke", m, p).isEqualTo(m.pos.get(p));
                    }
                    if (m.commitOnRevoke) {
                        Map<Integer, Long> offs = new TreeMap<>();
                        for (int p : m.c.assignment()) {
                            offs.put(p, m.c.position(p));
                        }
                        m.c.commit();
                        commits.computeIfAbsent(m.group, x -> new TreeMap<>()).putAll(offs);
                        log("    committed " + offs);
                    }
                    m.announced.removeAll(partitions);
                    for (int p : partitions) {
                        m.pos.remove(p);
                    }
                    if (m.closeInRevoke && m.inPoll && !m.closedByCallback) {
                        m.closedByCallback = true;
                        selfCloses++;
                        log("    " + m + " closes itself in its revoke callback, holding " + m.pos.keySet());
                        m.c.close(); // revokes what it still holds, in a nested callback
                        assertThat(m.announced).as("%s closed in its callback", m).isEmpty();
                        m.pos.clear();
                    }
                }

                @Override
                public void onPartitionsAssigned(Collection<Integer> partitions) {
                    m.events.add("assigned " + partitions);
                    assigns++;
                    log("  " + m + " assigned " + partitions);
                    assertThat(Thread.currentThread()).as("%s assign callback thread", m).isSameAs(m.expectedThread);
                    for (int p : partitions) {
                        assertThat(m.announced.add(p)).as("%s assigned p%d twice", m, p).isTrue();
                        if (m.pos.containsKey(p)) {
                            // taken when it joined, announced now
                            assertThat(m.c.position(p)).as("%s position of p%d", m, p).isEqualTo(m.pos.get(p));
                        } else {
                            long start = startFor(m.group, p);
                            assertThat(m.c.position(p)).as("%s starts p%d at the group's commit", m, p).isEqualTo(start);
                            m.pos.put(p, start);
                        }
                    }
                    assertNoOverlap();
                }
            };
        }

        /** Where a member taking {@code p} starts: the group's commit (at most the end), else the log start. */
        long startFor(String g, int p) {
            Long c = commits.getOrDefault(g, Map.of()).get(p);
            if (c == null) {
                return 0;
            }
            return Math.min(c, end(p));
        }

        /**
         * Brings the model's holdings of {@code m} in line with its assignment: a partition the model does not know
         * was taken without a callback (when it joined); one the model holds and the member does not was given up
         * before it was announced.
         */
        void learn(Member m, boolean afterPoll) {
            Set<Integer> actual = m.c.assignment();
            for (int p : actual) {
                if (!m.pos.containsKey(p)) {
                    assertThat(afterPoll).as("%s holds p%d that no callback announced", m, p).isFalse();
                    long start = startFor(m.group, p);
                    assertThat(m.c.position(p)).as("%s starts p%d at the group's commit", m, p).isEqualTo(start);
                    m.pos.put(p, start);
                }
            }
            for (int p : new ArrayList<>(m.pos.keySet())) {
                if (!actual.contains(p)) {
                    assertThat(m.announced).as("%s lost announced p%d without a revoke", m, p).doesNotContain(p);
                    m.pos.remove(p);
                }
            }
            if (afterPoll) {
                assertThat(m.announced).as("%s: announced == assignment after a poll", m).isEqualTo(actual);
            }
            for (var e : m.pos.entrySet()) {
                assertThat(m.c.position(e.getKey())).as("%s position of p%d", m, e.getKey()).isEqualTo(e.getValue());
            }
        }

        void close(Member m) {
            log("close " + m + " holding " + m.pos.keySet());
            m.c.close();
            members.remove(m);
            assertThat(m.announced).as("%s was told it lost everything it held", m).isEmpty();
        }

        void poll(Member m) {
            List<KafkoRecord> got;
            m.inPoll = true;
            try {
                got = m.c.poll(Duration.ZERO);
            } catch (KafkoClosedException e) {
                assertThat(m.closedByCallback).as("%s poll: %s", m, e).isTrue();
                log("poll " + m + " -> closed by its callback");
                members.remove(m);
                return;
            } finally {
                m.inPoll = false;
            }
            assertThat(m.closedByCallback).as("%s poll returned %d records after its callback closed it", m,
                    got.size()).isFalse();
            Map<Integer, Integer> perPartition = new TreeMap<>();
            for (KafkoRecord r : got) {
                int p = r.partition();
                assertThat(r.topic()).isEqualTo(T);
                assertThat(m.pos).as("%s got a record of p%d it does not hold", m, p).containsKey(p);
                assertThat(r.offset()).as("%s p%d offset (no gap, no repeat)", m, p).isEqualTo(m.pos.get(p));
                assertThat(new String(r.value(), UTF_8)).as("%s p%d@%d", m, p, r.offset())
                        .isEqualTo(log.get(p).get((int) r.offset()));
                m.pos.put(p, r.offset() + 1);
                perPartition.merge(p, 1, Integer::sum);
                polled++;
            }
            log("poll " + m + " -> " + perPartition + " assignment " + m.c.assignment());
            learn(m, true);
        }

        void commit(Member m) {
            if (rnd.nextBoolean()) {
                Map<Integer, Long> offs = new TreeMap<>(m.pos);
                m.c.commit();
                commits.computeIfAbsent(m.group, x -> new TreeMap<>()).putAll(offs);
                log("commit " + m + " " + offs);
                return;
            }
            Map<Integer, Long> offs = new TreeMap<>();
            for (int p : m.pos.keySet()) {
                if (rnd.nextBoolean()) {
                    offs.put(p, (long) rnd.nextInt((int) end(p) + 3));
                }
            }
            if (rnd.nextInt(6) == 0) {
                int other = rnd.nextInt(partitions() + 1);
                if (!m.pos.containsKey(other)) {
                    offs.put(other, 0L);
                    log("commit(map) " + m + " " + offs + " (refused: p" + other + " not held)");
                    Map<Integer, Long> before = committedOf(m.group);
                    assertThatThrownBy(() -> m.c.commit(offs)).isInstanceOf(InvalidPartitionException.class);
                    assertThat(committedOf(m.group)).isEqualTo(before);
                    return;
                }
            }
            m.c.commit(offs);
            commits.computeIfAbsent(m.group, x -> new TreeMap<>()).putAll(offs);
            log("commit(map) " + m + " " + offs);
        }

        Map<Integer, Long> committedOf(String g) {
            return k.groupInfo(T, g).committed();
        }

        void seek(Member m) {
            if (m.pos.isEmpty()) {
                return;
            }
            List<Integer> held = new ArrayList<>(m.pos.keySet());
            int p = held.get(rnd.nextInt(held.size()));
            switch (rnd.nextInt(3)) {
                case 0 -> {
                    long to = rnd.nextInt((int) end(p) + 3);
                    m.c.seek(p, to);
                    m.pos.put(p, Math.min(to, end(p)));
                    log("seek " + m + " p" + p + " " + to);
                }
                case 1 -> {
                    m.c.seekToBeginning(p);
                    m.pos.put(p, 0L);
                    log("seekToBeginning " + m + " p" + p);
                }
                default -> {
                    m.c.seekToEnd(p);
                    m.pos.put(p, end(p));
                    log("seekToEnd " + m + " p" + p);
                }
            }
            assertThat(m.c.position(p)).isEqualTo(m.pos.get(p));
        }

        void send(int n) {
            int count = partitions();
            for (int i = 0; i < n; i++) {
                String key = "k" + rnd.nextInt(24);
                String value = "v" + (valueSeq++) + "-" + key;
                RecordPosition rp = producer.send(key.getBytes(UTF_8), value.getBytes(UTF_8)).join();
                assertThat(rp.partition()).isBetween(0, count - 1);
                Integer before = keyPartition.putIfAbsent(key, rp.partition());
                assertThat(before == null ? rp.partition() : before).as("key %s keeps its partition", key)
                        .isEqualTo(rp.partition());
                assertThat(rp.offset()).as("offset of %s", value).isEqualTo(end(rp.partition()));
                log.get(rp.partition()).add(value);
            }
            log("send " + n);
        }

        void increase() {
            if (partitions() >= 8) {
                return;
            }
            int to = partitions() + 1 + rnd.nextInt(2);
            k.topic(T).orElseThrow().increasePartitions(to);
            while (log.size() < to) {
                log.add(new ArrayList<>());
            }
            keyPartition.clear();
            increases++;
            log("increasePartitions " + to);
        }

        /** Polls every member of each group until nobody's assignment changes; then each group covers its topic. */
        void settleAll() {
            for (int round = 0; round < 4; round++) {
                for (Member m : new ArrayList<>(members)) {
                    poll(m);
                }
            }
            settles++;
            for (String g : GROUPS) {
                List<Member> ms = group(g);
                if (ms.isEmpty()) {
                    continue;
                }
                Set<Integer> union = new TreeSet<>();
                int n = partitions();
                for (int i = 0; i < ms.size(); i++) {
                    Member m = ms.get(i);
                    union.addAll(m.c.assignment());
                    // range assignment over the live members in join order
                    int per = n / ms.size();
                    int extra = n % ms.size();
                    int first = i * per + Math.min(i, extra);
                    int len = i >= n ? 0 : per + (i < extra ? 1 : 0);
                    Set<Integer> range = new TreeSet<>();
                    for (int p = first; p < first + len; p++) {
                        range.add(p);
                    }
                    assertThat(m.c.assignment()).as("settled assignment of %s (%d of %d)", m, i, ms.size())
                            .isEqualTo(range);
                }
                assertThat(union).as("group %s covers every partition once settled", g).hasSize(n);
            }
            log("settled");
        }

        void reopen() {
            for (Member m : new ArrayList<>(members)) {
                close(m);
            }
            log("reopen");
            reopens++;
            k.close();
            k = Kafko.open(dir, options());
            producer = k.producer(T);
            assertThat(k.topic(T).orElseThrow().partitionCount()).isEqualTo(partitions());
            for (var e : commits.entrySet()) {
                // a commit past the end is moved to it at open
                e.getValue().replaceAll((p, c) -> Math.min(c, end(p)));
            }
            introspect();
        }

        void deleteAndRecreate() {
            boolean membersFirst = rnd.nextBoolean();
            if (membersFirst) {
                for (Member m : new ArrayList<>(members)) {
                    close(m);
                }
            }
            log("deleteTopic (members live: " + members + ")");
            k.deleteTopic(T);
            deletes++;
            List<Member> old = new ArrayList<>(members);
            members.clear();
            boolean recreateFirst = rnd.nextBoolean();
            if (recreateFirst) {
                createTopic(1 + rnd.nextInt(4));
            }
            for (Member m : old) {
                // the old members read the deleted topic: every call says so, also once a topic of its name is back
                assertThatThrownBy(() -> m.c.poll(Duration.ZERO)).isInstanceOf(UnknownTopicException.class);
                assertThatThrownBy(m.c::commit).isInstanceOf(UnknownTopicException.class);
                m.events.add("close after delete");
                m.c.close(); // no callback: the topic is gone
            }
            if (!recreateFirst) {
                createTopic(1 + rnd.nextInt(4));
            }
            assertThat(k.groups(T)).as("groups of a recreated topic").isEmpty();
            for (String g : GROUPS) {
                assertThat(k.groupInfo(T, g).committed()).isEmpty();
            }
        }

        void introspect() {
            Set<String> expectedGroups = new TreeSet<>();
            for (String g : GROUPS) {
                GroupInfo info = k.groupInfo(T, g);
                Map<Integer, Long> model = commits.getOrDefault(g, Map.of());
                assertThat(info.committed()).as("committed of %s", g).isEqualTo(model);
                Map<Integer, Long> lag = new TreeMap<>();
                for (int p = 0; p < partitions(); p++) {
                    Long c = model.get(p);
                    lag.put(p, Math.max(0, end(p) - (c == null ? 0 : c)));
                }
                assertThat(new TreeMap<>(info.lag())).as("lag of %s", g).isEqualTo(lag);
                assertThat(info.members()).as("members of %s", g).isEqualTo(group(g).size());
                if (!model.isEmpty() || !group(g).isEmpty()) {
                    expectedGroups.add(g);
                }
                for (Member m : group(g)) {
                    for (int p = 0; p < partitions(); p++) {
                        Long c = model.get(p);
                        assertThat(m.c.committed(p)).isEqualTo(c == null ? OptionalLong.empty() : OptionalLong.of(c));
                    }
                }
            }
            assertThat(k.groups(T)).isEqualTo(expectedGroups);
        }

        // ---- invariants after every step

        void assertNoOverlap() {
            for (String g : GROUPS) {
                Map<Integer, Member> owner = new HashMap<>();
                for (Member m : group(g)) {
                    for (int p : m.c.assignment()) {
                        Member o = owner.put(p, m);
                        assertThat(o).as("p%d of group %s held by %s and %s", p, g, o, m).isNull();
                    }
                }
            }
        }

        void checkAll() {
            assertNoOverlap();
            for (Member m : members) {
                assertThat(m.c.assignment()).as("%s assignment as the model knows it", m).isEqualTo(m.pos.keySet());
            }
            if (rnd.nextInt(4) == 0) {
                introspect();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // a member per thread

    static final class ThreadedRun {
        final long seed;
        final Random rnd;
        final Path dir;
        final Queue errors = new Queue();
        /** partition -> the member thread whose callbacks said it holds it */
        final Map<Integer, String> owners = new ConcurrentHashMap<>();
        /** partition -> offsets delivered to the group, in delivery order */
        final Map<Integer, List<Long>> delivered = new ConcurrentHashMap<>();
        final List<Worker> workers = new ArrayList<>();
        Kafko k;
        int workerSeq;

        ThreadedRun(long seed, Path dir) {
            this.seed = seed;
            this.rnd = new Random(seed);
            this.dir = dir;
        }

        static final class Queue extends ConcurrentLinkedQueue<Throwable> { }

        final class Worker implements Runnable {
            final String name;
            final AtomicBoolean stop = new AtomicBoolean();
            final Thread thread;
            final int maxPoll;
            volatile Consumer c;
            final Map<Integer, Long> next = new HashMap<>();

            Worker(String name, int maxPoll) {
                this.name = name;
                this.maxPoll = maxPoll;
                this.thread = new Thread(this, name);
            }

            @Override
            public void run() {
                try {
                    ConsumerRebalanceListener l = new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsRevoked(Collection<Integer> partitions) {
                            check(Thread.currentThread() == thread, name + " revoke on " + Thread.currentThread());
                            c.commit();
                            for (int p : partitions) {
                                check(name.equals(owners.remove(p)), name + " revoked p" + p + " it did not own");
                                next.remove(p);
                            }
                        }

                        @Override
                        public void onPartitionsAssigned(Collection<Integer> partitions) {
                            check(Thread.currentThread() == thread, name + " assign on " + Thread.currentThread());
                            for (int p : partitions) {
                                String before = owners.putIfAbsent(p, name);
                                check(before == null, name + " assigned p" + p + " still held by " + before);
                                long start = c.position(p);
                                OptionalLong committed = c.committed(p);
                                check(start == committed.orElse(0), name + " starts p" + p + " at " + start
                                        + ", committed " + committed);
                                next.put(p, start);
                            }
                        }
                    };
                    c = k.groupConsumer(T, "g", ConsumerOptions.DEFAULTS.withMaxPollRecords(maxPoll)
                            .withRebalanceListener(l));
                    while (!stop.get()) {
                        List<KafkoRecord> got = c.poll(Duration.ofMillis(20));
                        for (KafkoRecord r : got) {
                            int p = r.partition();
                            Long expected = next.get(p);
                            check(name.equals(owners.get(p)), name + " read p" + p + " owned by " + owners.get(p));
                            check(expected != null && expected == r.offset(), name + " p" + p + " read " + r.offset()
                                    + ", expected " + expected);
                            next.put(p, r.offset() + 1);
                            delivered.computeIfAbsent(p, x -> java.util.Collections.synchronizedList(new ArrayList<>()))
                                    .add(r.offset());
                        }
                        if (!got.isEmpty()) {
                            c.commit();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                } finally {
                    if (c != null) {
                        try {
                            c.close(); // revoke callback on this thread, commits
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }
                }
            }

            void check(boolean ok, String what) {
                if (!ok) {
                    throw new AssertionError("seed " + seed + ": " + what);
                }
            }

            void stopAndJoin() throws InterruptedException {
                stop.set(true);
                Consumer cc = c;
                if (cc != null) {
                    cc.wakeup();
                }
                thread.join(10_000);
                if (thread.isAlive()) {
                    throw new AssertionError("seed " + seed + ": " + name + " did not stop");
                }
            }
        }

        void go() throws Exception {
            k = Kafko.open(dir, options());
            int partitions = 1 + rnd.nextInt(4);
            k.createTopic(T, config(partitions));
            Producer producer = k.producer(T);
            long sent = 0;
            Map<Integer, Long> ends = new TreeMap<>();
            try {
                for (int i = 0; i < 60; i++) {
                    int r = rnd.nextInt(10);
                    if (r < 2 && workers.size() < 5) {
                        Worker w = new Worker("member-" + seed + "-" + (workerSeq++), 1 + rnd.nextInt(20));
                        workers.add(w);
                        w.thread.start();
                    } else if (r < 3 && !workers.isEmpty()) {
                        workers.remove(rnd.nextInt(workers.size())).stopAndJoin();
                    } else if (r < 4 && partitions < 8) {
                        partitions += 1;
                        k.topic(T).orElseThrow().increasePartitions(partitions);
                    } else {
                        int n = 1 + rnd.nextInt(40);
                        for (int j = 0; j < n; j++) {
                            RecordPosition rp = producer.send(("k" + rnd.nextInt(50)).getBytes(UTF_8),
                                    ("v" + sent).getBytes(UTF_8)).join();
                            ends.merge(rp.partition(), 1L, Long::sum);
                            sent++;
                        }
                    }
                    if (rnd.nextBoolean()) {
                        Thread.sleep(rnd.nextInt(5));
                    }
                    if (!errors.isEmpty()) {
                        break;
                    }
                }
                if (workers.isEmpty()) {
                    Worker w = new Worker("member-" + seed + "-last", 7);
                    workers.add(w);
                    w.thread.start();
                }
                // the live members read the rest
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (errors.isEmpty() && System.nanoTime() < deadline) {
                    long got = 0;
                    for (List<Long> l : delivered.values()) {
                        got += l.size();
                    }
                    GroupInfo info = k.groupInfo(T, "g");
                    if (got >= sent && info.lag().values().stream().allMatch(x -> x == 0)) {
                        break;
                    }
                    Thread.sleep(10);
                }
            } finally {
                for (Worker w : workers) {
                    w.stopAndJoin();
                }
            }
            if (!errors.isEmpty()) {
                AssertionError e = new AssertionError("seed " + seed + ": " + errors.size() + " errors");
                errors.forEach(e::addSuppressed);
                throw e;
            }
            assertThat(owners).as("seed %d: every member gave up what it held", seed).isEmpty();
            GroupInfo info = k.groupInfo(T, "g");
            for (int p = 0; p < partitions; p++) {
                long end = ends.getOrDefault(p, 0L);
                List<Long> offsets = new ArrayList<>(delivered.getOrDefault(p, List.of()));
                List<Long> expected = new ArrayList<>();
                for (long o = 0; o < end; o++) {
                    expected.add(o);
                }
                assertThat(offsets).as("seed %d p%d: every record once, in order", seed, p).isEqualTo(expected);
                assertThat(info.committed().getOrDefault(p, 0L)).as("seed %d p%d committed", seed, p).isEqualTo(end);
                assertThat(info.lag().get(p)).isZero();
            }
            assertThat(info.members()).isZero();
            k.close();
            // commits survive the reopen
            try (Kafko again = Kafko.open(dir, options())) {
                assertThat(again.groupInfo(T, "g").committed()).isEqualTo(info.committed());
            }
        }
    }
}
