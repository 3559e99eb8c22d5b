package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.BufferExhaustedException;
import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.GroupInfo;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionFailedException;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Randomized I/O fault injection: while a workload of single, keyed, headed and batched sends, group
 * commits, topic creation/deletion/growth, rolls (small segments) and retention (small
 * retentionBytes) runs, a {@link RandomFaultIo} fails a random call with an IOException, a
 * RuntimeException, an Error, or shortens a write. Then: every future completes, failures are
 * typed, partition state agrees with what sends do, close returns, no thread or descriptor is left,
 * the lock is free, and after a reopen with the real file system every acknowledged record is
 * there, in order, and every acknowledged commit too.
 *
 * <p>Properties: {@code kafko.faults.kind} (IO, RUNTIME, ERROR, SHORT, or ALL), {@code kafko.faults.seeds}
 * (count), {@code kafko.faults.first} (first seed), {@code kafko.faults.ops} (operations per run).
 */
class RandomIoFaultTest {

    static final String MAIN = "events";
    static final String RET = "ret";
    static final List<String> violations = new CopyOnWriteArrayList<>();
    static final Map<String, Integer> outcomes = new ConcurrentHashMap<>();
    static final List<String> uncaught = new CopyOnWriteArrayList<>();
    static Thread.UncaughtExceptionHandler previous;

    @TempDir
    Path tmp;

    @BeforeAll
    static void handler() {
        previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            uncaught.add(t.getName() + ": " + e);
            System.out.println("UNCAUGHT on " + t.getName() + ": " + e);
            e.printStackTrace(System.out);
        });
    }

    @AfterAll
    static void restore() {
        Thread.setDefaultUncaughtExceptionHandler(previous);
    }

    /** One record sent, with what it should read back as. */
    static final class Sent {
        final String topic;
        final int thread;
        final byte[] key;
        final byte[] value;
        final Headers headers;
        volatile RecordPosition position;
        volatile Throwable failure;
        final CompletableFuture<?> future;

        Sent(String topic, int thread, byte[] key, byte[] value, Headers headers, CompletableFuture<?> future) {
            this.topic = topic;
            this.thread = thread;
            this.key = key;
            this.value = value;
            this.headers = headers;
            this.future = future;
        }
    }

    static final class RunState {
        final long seed;
        final RandomFaultIo.Kind kind;
        final List<Sent> sent = new CopyOnWriteArrayList<>();
        final Map<Integer, Long> commits = new ConcurrentHashMap<>();
        final Set<String> deletedTopics = ConcurrentHashMap.newKeySet();
        final List<String> problems = new CopyOnWriteArrayList<>();
        String policy;

        RunState(long seed, RandomFaultIo.Kind kind) {
            this.seed = seed;
            this.kind = kind;
        }

        void problem(String p) {
            String s = "seed " + seed + " " + kind + " " + policy + ": " + p;
            problems.add(s);
            violations.add(s);
            System.out.println("VIOLATION " + s);
        }

        /** Checks a failure that reached the caller is typed; counts it. */
        void typed(String where, Throwable t) {
            Throwable e = unwrap(t);
            outcomes.merge(where + " " + e.getClass().getSimpleName(), 1, Integer::sum);
            if (e instanceof RandomFaultIo.InjectedError) {
                return; // a JVM error reaches the caller as itself, as it should
            }
            if (!(e instanceof KafkoException)) {
                problem(where + " failed untyped: " + e + "\n" + stack(e));
            } else if (e.getClass() == KafkoException.class) {
                outcomes.merge("plain KafkoException at " + where + ": " + e.getMessage(), 1, Integer::sum);
            }
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static String stack(Throwable e) {
        java.io.StringWriter w = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(w));
        String s = w.toString();
        return s.length() > 4000 ? s.substring(0, 4000) : s;
    }

    static RandomFaultIo.Kind[] kinds() {
        String k = System.getProperty("kafko.faults.kind", "ALL");
        return k.equals("ALL") ? RandomFaultIo.Kind.values() : new RandomFaultIo.Kind[] {RandomFaultIo.Kind.valueOf(k)};
    }

    @Test
    void randomFaultsKeepTheContract() throws Exception {
        // a few seeds of each kind in the suite; -Dkafko.faults.seeds=50 (and .kind, .first) for a longer search
        int seeds = Integer.getInteger("kafko.faults.seeds", 6);
        long first = Long.getLong("kafko.faults.first", 1);
        long fdsBefore = -1;
        int runs = 0;
        for (RandomFaultIo.Kind kind : kinds()) {
            for (long seed = first; seed < first + seeds; seed++) {
                RunState st = new RunState(seed, kind);
                long t0 = System.nanoTime();
                try {
                    runOnce(st, tmp.resolve(kind + "-" + seed));
                } catch (Throwable e) {
                    st.problem("the run itself threw: " + e + "\n" + stack(e));
                }
                runs++;
                if (runs == 3) {
                    fdsBefore = Workload.openFileDescriptors();
                }
                System.out.printf("seed %d %s %s: %d sent, %d acked, %d commits, %d problems, %d ms%n", seed, kind,
                        st.policy, st.sent.size(), st.sent.stream().filter(s -> s.position != null).count(),
                        st.commits.size(), st.problems.size(), (System.nanoTime() - t0) / 1_000_000);
            }
        }
        long fdsAfter = Workload.openFileDescriptors();
        System.out.println("descriptors after 3 runs " + fdsBefore + ", at the end " + fdsAfter + " (" + runs + " runs)");
        new TreeMap<>(outcomes).forEach((k, v) -> System.out.println("  outcome " + k + " x" + v));
        if (fdsBefore >= 0 && fdsAfter > fdsBefore + 20) {
            violations.add("descriptor leak: " + fdsBefore + " -> " + fdsAfter + ": "
                    + Workload.openFileDescriptorTargets());
        }
        assertThat(uncaught).as("uncaught exceptions on kafko threads").isEmpty();
        assertThat(violations).as("violations").isEmpty();
    }

    static FsyncPolicy policy(int i) {
        return switch (i) {
            case 0 -> FsyncPolicy.NEVER;
            case 1 -> FsyncPolicy.EVERY_BATCH;
            default -> FsyncPolicy.interval(Duration.ofMillis(3));
        };
    }

    static void runOnce(RunState st, Path data) throws Exception {
        SplittableRandom rnd = new SplittableRandom(st.seed * 7919 + st.kind.ordinal());
        FsyncPolicy fsync = policy((int) (st.seed % 3));
        st.policy = fsync.toString();
        int[] gaps = {5, 40, 300, 2000};
        int maxGap = gaps[rnd.nextInt(gaps.length)];
        boolean lowSpace = rnd.nextBoolean();
        RandomFaultIo io = new RandomFaultIo(st.kind, rnd.nextLong(), maxGap, 1 + rnd.nextInt(3), lowSpace);
        boolean metadata = rnd.nextInt(4) != 0;
        KafkoOptions options = KafkoOptions.builder().fsyncMetadata(metadata)
                .retentionCheckInterval(Duration.ofMillis(15)).linger(rnd.nextBoolean() ? Duration.ZERO
                        : Duration.ofMillis(1)).maxBlock(Duration.ofSeconds(10)).build();
        boolean armAtOpen = rnd.nextInt(8) == 0;
        int ops = Integer.getInteger("kafko.faults.ops", 250);
        st.policy += (lowSpace ? " lowspace" : "") + (metadata ? "" : " nometa") + " gap" + maxGap
                + (armAtOpen ? " armAtOpen" : "");
        io.arm(armAtOpen);
        Kafko kafko;
        try {
            kafko = BrokerBridge.open(data, options, io);
        } catch (Throwable e) {
            st.typed("open", e);
            afterClose(st, data, io);
            return;
        }
        try {
            try {
                kafko.createTopic(MAIN, TopicConfig.builder().partitions(3).segmentBytes(2048 + rnd.nextInt(8192))
                        .fsync(fsync).build());
                kafko.createTopic(RET, TopicConfig.builder().partitions(2).segmentBytes(1024 + rnd.nextInt(2048))
                        .retentionBytes(2048 + rnd.nextInt(4096)).fsync(fsync).build());
            } catch (Throwable e) {
                st.typed("createTopic(setup)", e);
            }
            io.arm(true);
            if (kafko.topic(MAIN).isPresent() && kafko.topic(RET).isPresent()) {
                workload(st, kafko, rnd, ops);
            }
            boolean disarm = rnd.nextBoolean();
            if (disarm) {
                io.arm(false);
            }
            awaitAll(st, kafko);
            consistency(st, kafko, disarm);
            io.arm(rnd.nextInt(3) == 0);
        } finally {
            closeBounded(st, kafko);
            io.arm(false);
        }
        for (Sent s : st.sent) {
            if (!s.future.isDone()) {
                st.problem("a future is still pending after close: " + s.topic + " " + new String(s.key,
                        StandardCharsets.US_ASCII));
                break;
            }
        }
        if (!io.injected.isEmpty()) {
            System.out.println("  injected: " + io.injected);
        }
        afterClose(st, data, io);
    }

    /** Threads gone, descriptors closed, lock free, data and commits there. */
    static void afterClose(RunState st, Path data, RandomFaultIo io) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (Workload.kafkoThreads() > 0 && System.nanoTime() < deadline) {
            sleep(10);
        }
        if (Workload.kafkoThreads() > 0) {
            st.problem("kafko threads left after close: " + kafkoThreadDump());
        }
        List<String> open = Workload.openFileDescriptorTargets().stream()
                .filter(p -> p.startsWith(data.toString())).toList();
        if (!open.isEmpty()) {
            st.problem("descriptors left open in the data directory after close: " + open);
        }
        verify(st, data);
    }

    static void workload(RunState st, Kafko kafko, SplittableRandom rnd, int ops) throws Exception {
        Producer p = kafko.producer(MAIN);
        Producer r = kafko.producer(RET);
        SplittableRandom other = rnd.split();
        Thread t = Workload.start("sender-2", () -> {
            for (int i = 0; i < ops; i++) {
                try {
                    sendOne(st, 2, i, p, r, other);
                } catch (Throwable e) {
                    st.typed("send(thread 2)", e);
                }
                if (i % 50 == 49) {
                    sleep(1);
                }
            }
        });
        Consumer c = null;
        try {
            c = kafko.groupConsumer(MAIN, "g");
        } catch (Throwable e) {
            st.typed("groupConsumer", e);
        }
        int aux = 0;
        for (int i = 0; i < ops; i++) {
            int op = rnd.nextInt(100);
            try {
                if (op < 70) {
                    sendOne(st, 1, i, p, r, rnd);
                } else if (op < 80 && c != null) {
                    c.poll(Duration.ofMillis(rnd.nextInt(3)));
                    Map<Integer, Long> pos = new HashMap<>();
                    for (int part : c.assignment()) {
                        pos.put(part, c.position(part));
                    }
                    c.commit();
                    pos.forEach((k, v) -> st.commits.merge(k, v, Math::max));
                } else if (op < 85) {
                    p.flush();
                } else if (op < 90) {
                    String name = "aux-" + (aux++);
                    kafko.createTopic(name, TopicConfig.builder().partitions(1 + rnd.nextInt(2))
                            .segmentBytes(1024).build());
                    kafko.producer(name).send(null, new byte[50]);
                } else if (op < 94) {
                    Set<String> topics = kafko.topics();
                    String victim = topics.stream().filter(n -> n.startsWith("aux-")).findFirst().orElse(null);
                    if (victim != null) {
                        st.deletedTopics.add(victim);
                        kafko.deleteTopic(victim);
                    }
                } else if (op < 97) {
                    Topic topic = kafko.topic(MAIN).orElseThrow();
                    if (topic.partitionCount() < 6) {
                        topic.increasePartitions(topic.partitionCount() + 1);
                    }
                } else {
                    for (PartitionInfo info : kafko.topic(MAIN).orElseThrow().partitions()) {
                        checkInfo(st, info);
                    }
                }
            } catch (Throwable e) {
                st.typed("op" + (op < 70 ? "send" : op < 80 ? "commit" : op < 85 ? "flush" : op < 90 ? "create"
                        : op < 94 ? "delete" : op < 97 ? "grow" : "info"), e);
            }
        }
        t.join(60_000);
        if (t.isAlive()) {
            st.problem("sender thread hung: " + kafkoThreadDump() + dump(t));
        }
        if (c != null) {
            try {
                c.close();
            } catch (Throwable e) {
                st.typed("consumer.close", e);
            }
        }
    }

    static void checkInfo(RunState st, PartitionInfo info) {
        if (info.state() == PartitionState.FAILED && info.failure() == null) {
            st.problem("partition " + info.partition() + " FAILED without a cause");
        }
        if (info.state() == PartitionState.RUNNING && info.failure() != null) {
            st.problem("partition " + info.partition() + " RUNNING with a failure " + info.failure());
        }
    }

    static void sendOne(RunState st, int thread, int i, Producer p, Producer r, SplittableRandom rnd) {
        int kind = rnd.nextInt(10);
        byte[] key = ("t" + thread + "-" + i + "-" + rnd.nextInt(1000)).getBytes(StandardCharsets.US_ASCII);
        byte[] value = new byte[rnd.nextInt(10) == 0 ? 1500 + rnd.nextInt(3000) : rnd.nextInt(300)];
        rnd.nextBytes(value);
        Headers h = rnd.nextInt(3) == 0 ? Headers.of(new Header("h", key), new Header("n", null)) : Headers.empty();
        if (kind < 4) {
            CompletableFuture<RecordPosition> f = p.send(key, value, h);
            track(st, new Sent(MAIN, thread, key, value, h, f), f);
        } else if (kind < 5) {
            CompletableFuture<RecordPosition> f = p.sendTo(rnd.nextInt(3), key, value);
            track(st, new Sent(MAIN, thread, key, value, Headers.empty(), f), f);
        } else if (kind < 7) {
            int n = 1 + rnd.nextInt(5);
            List<OutgoingRecord> recs = new ArrayList<>();
            List<Sent> sents = new ArrayList<>();
            CompletableFuture<List<RecordPosition>> holder = new CompletableFuture<>();
            for (int j = 0; j < n; j++) {
                byte[] k = Arrays.copyOf(key, key.length + 1);
                k[key.length] = (byte) ('a' + j);
                byte[] v = new byte[rnd.nextInt(200)];
                rnd.nextBytes(v);
                recs.add(OutgoingRecord.of(k, v, h));
                sents.add(new Sent(MAIN, thread, k, v, h, holder));
            }
            st.sent.addAll(sents);
            CompletableFuture<List<RecordPosition>> f = p.sendBatch(recs);
            f.whenComplete((list, e) -> {
                if (e != null) {
                    sents.forEach(s -> s.failure = e);
                    holder.completeExceptionally(e);
                } else {
                    for (int j = 0; j < list.size(); j++) {
                        sents.get(j).position = list.get(j);
                    }
                    holder.complete(list);
                }
            });
        } else if (kind < 9) {
            CompletableFuture<RecordPosition> f = r.send(key, value, h);
            track(st, new Sent(RET, thread, key, value, h, f), f);
        } else {
            CompletableFuture<RecordPosition> f = p.send(null, value);
            track(st, new Sent(MAIN, thread, null, value, Headers.empty(), f), f);
        }
    }

    static void track(RunState st, Sent s, CompletableFuture<RecordPosition> f) {
        st.sent.add(s);
        f.whenComplete((pos, e) -> {
            if (e != null) {
                s.failure = e;
            } else {
                s.position = pos;
            }
        });
    }

    /** Every future completes (a flush writes lingering ones); failures are typed. */
    static void awaitAll(RunState st, Kafko kafko) {
        try {
            bounded(st, "flush", () -> {
                kafko.producer(MAIN).flush();
                kafko.producer(RET).flush();
                return null;
            }, 30);
        } catch (Throwable e) {
            st.typed("flush(end)", e);
        }
        for (Sent s : st.sent) {
            try {
                s.future.get(20, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                st.problem("a send future never completed (" + s.topic + " " + s.key + "): " + kafkoThreadDump());
                return;
            } catch (Throwable e) {
                Throwable c = unwrap(e);
                if (s.topic.startsWith("aux") && c instanceof UnknownTopicException) {
                    continue;
                }
                st.typed("future", c);
                if (c instanceof BufferExhaustedException) {
                    st.problem("BufferExhausted: a send waited 10 s for room " + c);
                }
            }
        }
    }

    /**
     * The partition either works or says FAILED (with a cause), and then a send fails fast with
     * PartitionFailedException carrying the cause. Only checked when the faults are off.
     */
    static void consistency(RunState st, Kafko kafko, boolean faultsOff) {
        for (String topicName : List.of(MAIN, RET)) {
            Topic topic;
            Producer p;
            try {
                topic = kafko.topic(topicName).orElse(null);
                if (topic == null) {
                    continue; // its creation failed under a fault: nothing of it to check
                }
                p = kafko.producer(topicName);
            } catch (Throwable e) {
                st.typed("topic", e);
                continue;
            }
            for (PartitionInfo info : topic.partitions()) {
                checkInfo(st, info);
                if (!faultsOff) {
                    continue;
                }
                byte[] key = ("check-" + info.partition()).getBytes(StandardCharsets.US_ASCII);
                byte[] value = new byte[20];
                CompletableFuture<RecordPosition> f;
                try {
                    f = p.sendTo(info.partition(), key, value);
                } catch (Throwable e) {
                    st.typed("check send", e);
                    continue;
                }
                Sent s = new Sent(topicName, 3, key, value, Headers.empty(), f);
                track(st, s, f);
                try {
                    f.get(20, TimeUnit.SECONDS);
                    PartitionInfo after = topic.partition(info.partition());
                    if (after.state() != PartitionState.RUNNING) {
                        st.problem(topicName + "-" + info.partition() + " accepted a send while " + after.state());
                    }
                } catch (TimeoutException e) {
                    st.problem("check send hung: " + kafkoThreadDump());
                } catch (Throwable e) {
                    Throwable c = unwrap(e);
                    PartitionInfo after = topic.partition(info.partition());
                    st.typed("check future", c);
                    if (after.state() != PartitionState.FAILED) {
                        st.problem(topicName + "-" + info.partition() + " is " + after.state()
                                + " (no fault armed) yet a send failed: " + c + "\n" + stack(c));
                    } else if (!(c instanceof PartitionFailedException) || c.getCause() == null) {
                        st.problem(topicName + "-" + info.partition() + " FAILED but a send failed with " + c);
                    }
                }
            }
        }
    }

    static void closeBounded(RunState st, Kafko kafko) {
        try {
            bounded(st, "close", () -> {
                kafko.close();
                return null;
            }, 30);
        } catch (Throwable e) {
            st.typed("close", e);
            // a second close must not hang either, and throws the same
            try {
                bounded(st, "second close", () -> {
                    kafko.close();
                    return null;
                }, 30);
            } catch (Throwable e2) {
                st.typed("close(2nd)", e2);
            }
        }
    }

    static <T> T bounded(RunState st, String what, Supplier<T> body, int seconds) throws Throwable {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(body.get());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "bounded-" + what);
        t.setDaemon(true);
        t.start();
        try {
            return f.get(seconds, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            st.problem(what + " did not return in " + seconds + " s:\n" + dump(t) + kafkoThreadDump());
            return null;
        } catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    static String dump(Thread t) {
        StringBuilder b = new StringBuilder("thread " + t.getName() + " " + t.getState() + "\n");
        for (StackTraceElement e : t.getStackTrace()) {
            b.append("    at ").append(e).append('\n');
        }
        return b.toString();
    }

    static String kafkoThreadDump() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, s) -> {
            if (t.getName().startsWith("kafko") || t.getName().startsWith("sender") || t.getName().startsWith("bounded")) {
                b.append(dump(t));
            }
        });
        return b.toString();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reopen with the real file system: acked records at their offsets, in order; acked commits kept. */
    static void verify(RunState st, Path data) {
        Kafko kafko;
        try {
            kafko = Kafko.open(data);
        } catch (Throwable e) {
            st.problem("reopen with the real file system failed: " + e + "\n" + stack(e));
            return;
        }
        try (kafko) {
            Map<String, Map<Integer, Map<Long, KafkoRecord>>> read = new HashMap<>();
            Map<String, Map<Integer, Long>> starts = new HashMap<>();
            for (String name : List.of(MAIN, RET)) {
                Topic topic = kafko.topic(name).orElse(null);
                if (topic == null) {
                    if (st.sent.stream().anyMatch(s -> s.topic.equals(name) && s.position != null)) {
                        st.problem("topic " + name + " is gone after reopen though records were acked");
                    }
                    continue;
                }
                Map<Integer, Map<Long, KafkoRecord>> byPart = new HashMap<>();
                Map<Integer, Long> start = new HashMap<>();
                long remaining = 0;
                for (PartitionInfo p : topic.partitions()) {
                    byPart.put(p.partition(), new HashMap<>());
                    start.put(p.partition(), p.logStartOffset());
                    remaining += p.endOffset() - p.logStartOffset();
                }
                try (Consumer c = kafko.consumer(name)) {
                    int idle = 0;
                    while (remaining > 0 && idle < 20) {
                        List<KafkoRecord> batch = c.poll(Duration.ofMillis(50));
                        idle = batch.isEmpty() ? idle + 1 : 0;
                        for (KafkoRecord rec : batch) {
                            byPart.get(rec.partition()).put(rec.offset(), rec);
                            remaining--;
                        }
                    }
                } catch (Throwable e) {
                    st.problem("reading " + name + " after reopen failed: " + e + "\n" + stack(e));
                }
                // the open runs retention at once: what it removed while this read ran is no loss
                long removed = 0;
                for (PartitionInfo p : topic.partitions()) {
                    long before = start.get(p.partition());
                    removed += Math.max(0, p.logStartOffset() - before);
                    start.put(p.partition(), Math.max(before, p.logStartOffset()));
                }
                if (remaining > removed) {
                    st.problem("reading " + name + " after reopen: " + remaining + " records not returned");
                }
                read.put(name, byPart);
                starts.put(name, start);
            }
            // acked records there, with their key, value and headers
            Map<String, Long> lastOffset = new HashMap<>();
            int checked = 0;
            for (Sent s : st.sent) {
                RecordPosition pos = s.position;
                if (pos == null || !read.containsKey(s.topic)) {
                    continue;
                }
                String order = s.topic + "/" + pos.partition() + "/" + s.thread;
                Long before = lastOffset.put(order, pos.offset());
                if (before != null && before >= pos.offset() && s.future != null && !(s.thread == 3)) {
                    st.problem("order: " + order + " acked offset " + pos.offset() + " after " + before);
                }
                Long start = starts.get(s.topic).get(pos.partition());
                if (start == null) {
                    st.problem("acked partition " + pos + " of " + s.topic + " missing after reopen");
                    continue;
                }
                if (pos.offset() < start) {
                    if (s.topic.equals(MAIN)) {
                        st.problem("log start of " + MAIN + "-" + pos.partition() + " moved to " + start);
                    }
                    continue;
                }
                KafkoRecord rec = read.get(s.topic).get(pos.partition()).get(pos.offset());
                if (rec == null) {
                    st.problem("acked record lost: " + s.topic + " " + pos + " key " + str(s.key));
                    continue;
                }
                if (!Arrays.equals(rec.key(), s.key) || !Arrays.equals(rec.value(), s.value)
                        || !Objects.equals(rec.headers(), s.headers)) {
                    st.problem("acked record differs at " + s.topic + " " + pos + ": key " + str(rec.key()) + " want "
                            + str(s.key) + ", value equal " + Arrays.equals(rec.value(), s.value) + ", headers "
                            + rec.headers() + " want " + s.headers);
                }
                checked++;
            }
            outcomes.merge("verified acked records", checked, Integer::sum);
            if (!st.commits.isEmpty() && kafko.topic(MAIN).isPresent()) {
                GroupInfo g = kafko.groupInfo(MAIN, "g");
                for (Map.Entry<Integer, Long> c : st.commits.entrySet()) {
                    Long got = g.committed().get(c.getKey());
                    if (got == null || got < c.getValue()) {
                        st.problem("acked commit lost: partition " + c.getKey() + " committed " + c.getValue()
                                + ", after reopen " + got);
                    }
                }
            }
            // the reopened instance works
            if (kafko.topic(MAIN).isPresent()) {
                kafko.producer(MAIN).send(null, new byte[3]).get(10, TimeUnit.SECONDS);
            }
        } catch (Throwable e) {
            st.problem("verification failed: " + e + "\n" + stack(e));
        }
    }

    static String str(byte[] b) {
        return b == null ? "null" : new String(b, StandardCharsets.US_ASCII);
    }
}
