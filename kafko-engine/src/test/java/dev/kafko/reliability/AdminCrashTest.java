package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.GroupInfo;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.Topic;
import dev.kafko.internal.broker.BrokerBridge;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crashes in the middle of admin calls ({@link AdminChurn}: creates, deletes, deletes then creates of the same
 * name, partition increases, group commits, retention of 1 KiB segments, close and open): kill -9 of a child JVM
 * at seeded moments, and {@link PowerLossDisk} images of an in-process run. After each crash the directory must
 * open; every topic whose create returned is there with its config (under a power loss too, as the README's
 * "Topic metadata" point promises when {@code fsyncMetadata} is on), a topic whose delete returned is gone, a
 * partition increase is whole or absent, every record acknowledged (under a power loss: on an {@code EVERY_BATCH}
 * topic) is there unless retention deleted it, every acknowledged commit is there (under a power loss: on an
 * {@code EVERY_BATCH} topic), and a call that was in flight left the state before it or after it.
 */
class AdminCrashTest {

    private static final long SEED = Workload.seed("kafko.admincrash.seed", 0x5EED_00ADL);

    @TempDir
    Path tmp;

    @Test
    void killNineDuringAdminCallsLeavesEachCallWholeOrAbsent() throws Exception {
        kills(5, SEED, true);
    }

    @Test
    void powerLossDuringAdminCallsKeepsEveryReturnedCall() throws Exception {
        powerLosses(8, SEED + 10);
    }

    @Test
    @Tag("stress")
    void manyKillsDuringAdminCalls() throws Exception {
        kills(Integer.getInteger("kafko.admincrash.kills", 100), SEED + 1, true);
    }

    @Test
    @Tag("stress")
    void manyKillsDuringAdminCallsInAThrowawayDirectory() throws Exception {
        kills(Integer.getInteger("kafko.admincrash.throwawayKills", 30), SEED + 2, false);
    }

    @Test
    @Tag("stress")
    void manyPowerLossesDuringAdminCalls() throws Exception {
        powerLosses(Integer.getInteger("kafko.admincrash.powerLosses", 50), SEED + 3);
    }

    // ---------------------------------------------------------------- the model

    /** What one topic name should be: absent, or a topic with its config, acknowledged records and commits. */
    static final class TState {
        boolean exists;
        String config = "";
        int partitions;
        String fsync = "";
        final List<Ack> acks = new ArrayList<>();
        final Map<String, Map<Integer, Long>> commits = new TreeMap<>();

        TState copy() {
            TState c = new TState();
            c.exists = exists;
            c.config = config;
            c.partitions = partitions;
            c.fsync = fsync;
            c.acks.addAll(acks);
            commits.forEach((g, m) -> c.commits.put(g, new TreeMap<>(m)));
            return c;
        }

        @Override
        public String toString() {
            return exists ? "[" + config + ", " + acks.size() + " acks, commits " + commits + "]" : "[absent]";
        }
    }

    /** An operation as announced: {@code B seq op args .}. */
    record Op(long seq, String[] f) {
        String kind() {
            return f[2];
        }

        @Nullable String topic() {
            return f.length > 3 && !kind().equals("close") && !kind().equals("open") ? f[3] : null;
        }

        @Override
        public String toString() {
            return String.join(" ", java.util.Arrays.copyOfRange(f, 2, f.length - 1));
        }
    }

    static final class Model {
        final Map<String, TState> topics = new LinkedHashMap<>();
        final Map<Long, Op> pending = new LinkedHashMap<>();
        final List<String> failures = new ArrayList<>();
        long ops;
        long acks;
        final Map<String, Long> opCounts = new TreeMap<>();

        Model() {
            for (String n : names()) {
                topics.put(n, new TState());
            }
        }

        static List<String> names() {
            List<String> n = new ArrayList<>(AdminChurn.POOL);
            n.add(AdminChurn.KEEP);
            return n;
        }

        /** Applies a line that certainly happened (its call returned, or its ack was printed). */
        void line(String line) {
            String[] f = line.split(" ");
            if (f.length < 2 || !f[f.length - 1].equals(".")) {
                return; // cut by the kill, or READY
            }
            switch (f[0]) {
                case "B" -> pending.put(Long.parseLong(f[1]), new Op(Long.parseLong(f[1]), f));
                case "E" -> {
                    Op op = pending.remove(Long.parseLong(f[1]));
                    ops++;
                    opCounts.merge(op.kind(), 1L, Long::sum);
                    if (op.topic() != null) {
                        topics.put(op.topic(), apply(topics.get(op.topic()), op));
                    }
                }
                case "F" -> {
                    Op op = pending.remove(Long.parseLong(f[1]));
                    failures.add(op + " threw " + line);
                }
                case "A" -> {
                    TState t = topics.get(f[1]);
                    t.acks.add(new Ack(Integer.parseInt(f[2]), Long.parseLong(f[3]), f[4], Long.parseLong(f[5])));
                    acks++;
                }
                default -> {
                }
            }
        }

        /** Marks an op begun after the crash instant, or whose end came after it, as in flight. */
        void uncertain(String line) {
            String[] f = line.split(" ");
            if (f.length >= 2 && f[0].equals("B") && f[f.length - 1].equals(".")) {
                pending.put(Long.parseLong(f[1]), new Op(Long.parseLong(f[1]), f));
            }
        }

        /** Per name, the states a crash may leave: the certain one, then one more per call in flight on it. */
        Map<String, List<TState>> candidates() {
            Map<String, List<TState>> out = new LinkedHashMap<>();
            topics.forEach((n, s) -> out.put(n, new ArrayList<>(List.of(s))));
            for (Op op : pending.values()) {
                if (op.topic() != null) {
                    List<TState> chain = out.get(op.topic());
                    chain.add(apply(chain.get(chain.size() - 1), op));
                }
            }
            return out;
        }

        static TState apply(TState s, Op op) {
            TState t = s.copy();
            String[] f = op.f();
            switch (op.kind()) {
                case "create" -> {
                    t = new TState();
                    t.exists = true;
                    t.partitions = Integer.parseInt(f[4]);
                    t.fsync = f[6];
                    t.config = String.join(" ", f[4], f[5], f[6], f[7], f[8]);
                }
                case "delete" -> t = new TState();
                case "grow" -> {
                    t.partitions = Integer.parseInt(f[4]);
                    String[] c = t.config.split(" ");
                    c[0] = f[4];
                    t.config = String.join(" ", c);
                }
                case "commit" -> {
                    Map<Integer, Long> m = t.commits.computeIfAbsent(f[4], g -> new TreeMap<>());
                    for (String po : f[5].split(",")) {
                        String[] x = po.split(":");
                        m.put(Integer.parseInt(x[0]), Long.parseLong(x[1]));
                    }
                }
                default -> throw new IllegalStateException(op.toString());
            }
            return t;
        }
    }

    // ---------------------------------------------------------------- the check

    /** What an open found of one name. */
    record Actual(boolean exists, String config, long[] starts, long[] ends,
                  Map<Integer, Map<Long, KafkoRecord>> records, Map<String, Map<Integer, Long>> committed) {
    }

    static Map<String, Actual> read(Kafko kafko) {
        Map<String, Actual> out = new LinkedHashMap<>();
        for (String n : Model.names()) {
            Topic t = kafko.topic(n).orElse(null);
            if (t == null) {
                out.put(n, new Actual(false, "", new long[0], new long[0], Map.of(), Map.of()));
                continue;
            }
            int parts = t.partitionCount();
            long[] ends = new long[parts];
            for (PartitionInfo p : t.partitions()) {
                ends[p.partition()] = p.endOffset();
            }
            Map<Integer, Map<Long, KafkoRecord>> records = new HashMap<>();
            for (int p = 0; p < parts; p++) {
                records.put(p, new HashMap<>());
            }
            try (Consumer c = kafko.consumer(n)) {
                int idle = 0;
                while (idle < 5 && !caughtUp(c, ends)) {
                    List<KafkoRecord> batch = c.poll(Duration.ofMillis(50));
                    idle = batch.isEmpty() ? idle + 1 : 0;
                    for (KafkoRecord r : batch) {
                        records.get(r.partition()).put(r.offset(), r);
                    }
                }
            }
            // retention runs at open: what lies at or above the start read after the reads was there throughout
            long[] starts = new long[parts];
            for (PartitionInfo p : t.partitions()) {
                starts[p.partition()] = p.logStartOffset();
            }
            Map<String, Map<Integer, Long>> committed = new TreeMap<>();
            for (String g : AdminChurn.GROUPS) {
                GroupInfo gi = kafko.groupInfo(n, g);
                if (!gi.committed().isEmpty()) {
                    committed.put(g, new TreeMap<>(gi.committed()));
                }
            }
            out.put(n, new Actual(true, AdminChurn.describe(t.config()), starts, ends, records, committed));
        }
        return out;
    }

    private static boolean caughtUp(Consumer c, long[] ends) {
        for (int p = 0; p < ends.length; p++) {
            if (c.position(p) < ends[p]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Why {@code a} is not the state {@code s}, or {@code null} when it is. {@code strict}: acknowledged records and
     * commits of every policy count (kill -9), else only those of {@code EVERY_BATCH} topics (power loss).
     */
    static @Nullable String mismatch(TState s, Actual a, boolean strict) {
        if (s.exists != a.exists()) {
            return s.exists ? "topic missing" : "topic present (" + a.config() + ")";
        }
        if (!s.exists) {
            return null;
        }
        if (!s.config.equals(a.config())) {
            return "config " + a.config() + ", expected " + s.config;
        }
        boolean checkData = strict || s.fsync.equals("every-batch");
        if (!checkData) {
            return null;
        }
        for (Ack ack : s.acks) {
            if (ack.partition() >= a.ends().length) {
                return "acknowledged " + ack + " on a partition the topic lacks";
            }
            if (ack.offset() < a.starts()[ack.partition()]) {
                continue; // retention deleted it
            }
            KafkoRecord r = a.records().get(ack.partition()).get(ack.offset());
            if (r == null) {
                return "acknowledged " + ack + " missing (partition start " + a.starts()[ack.partition()] + ", end "
                        + a.ends()[ack.partition()] + ")";
            }
            if (!new String(r.key(), StandardCharsets.US_ASCII).equals(ack.key())
                    || Workload.checksum(r.value()) != ack.checksum()) {
                return "acknowledged " + ack + " holds another record";
            }
        }
        for (Map.Entry<String, Map<Integer, Long>> g : s.commits.entrySet()) {
            Map<Integer, Long> got = a.committed().getOrDefault(g.getKey(), Map.of());
            for (Map.Entry<Integer, Long> c : g.getValue().entrySet()) {
                if (!c.getValue().equals(got.get(c.getKey()))) {
                    return "group " + g.getKey() + " partition " + c.getKey() + " committed " + got.get(c.getKey())
                            + ", acknowledged " + c.getValue();
                }
            }
        }
        return null;
    }

    /** Opens {@code dir} and checks it against {@code model}; returns the state each name matched, for a resync. */
    static Map<String, TState> verify(Path dir, Model model, boolean strict, String what, List<String> defects) {
        Map<String, List<TState>> candidates = model.candidates();
        Map<String, Actual> actual;
        try (Kafko kafko = Kafko.open(dir, AdminChurn.options(true))) {
            actual = read(kafko);
        } catch (RuntimeException e) {
            defects.add(what + ": the open failed: " + e);
            e.printStackTrace(System.out);
            return null;
        }
        Map<String, TState> matched = new LinkedHashMap<>();
        for (String n : Model.names()) {
            Actual a = actual.get(n);
            TState hit = null;
            List<String> why = new ArrayList<>();
            for (TState s : candidates.get(n)) {
                String m = mismatch(s, a, strict);
                if (m == null) {
                    hit = s;
                    break;
                }
                why.add(s + ": " + m);
            }
            if (hit == null) {
                defects.add(what + ": topic " + n + " matches no state a crash may leave: " + why
                        + " (in flight: " + model.pending.values() + ")");
                hit = fromActual(a);
            }
            matched.put(n, hit);
        }
        return matched;
    }

    private static TState fromActual(Actual a) {
        TState s = new TState();
        s.exists = a.exists();
        if (a.exists()) {
            s.config = a.config();
            String[] c = a.config().split(" ");
            s.partitions = Integer.parseInt(c[0]);
            s.fsync = c[2];
            a.committed().forEach((g, m) -> s.commits.put(g, new TreeMap<>(m)));
        }
        return s;
    }

    // ---------------------------------------------------------------- kill -9

    private void kills(int kills, long seed, boolean fsyncMetadata) throws Exception {
        Path dir = tmp.resolve("kill");
        SplittableRandom random = new SplittableRandom(seed);
        Model model = new Model();
        List<String> defects = new ArrayList<>();
        long inFlightAtKill = 0;
        Map<String, Long> inFlightKinds = new TreeMap<>();
        long started = System.nanoTime();
        for (int round = 0; round < kills; round++) {
            long delayMillis = 30 + random.nextLong(1500);
            List<String> lines = killOnce(dir, "w" + round, seed + "-" + round, random.nextLong(), fsyncMetadata,
                    delayMillis);
            for (String l : lines) {
                model.line(l);
            }
            if (!model.pending.isEmpty()) {
                inFlightAtKill++;
                model.pending.values().forEach(op -> inFlightKinds.merge(op.kind(), 1L, Long::sum));
            }
            int before = defects.size();
            Map<String, TState> matched = verify(dir, model, true, "kill " + round, defects);
            defects.addAll(model.failures);
            model.failures.clear();
            System.out.printf("admin kill-9 seed=%d round=%d delay=%dms lines=%d in-flight=%s defects=%d%n", seed,
                    round, delayMillis, lines.size(), model.pending.values(), defects.size() - before);
            for (int i = before; i < defects.size(); i++) {
                System.out.println("  DEFECT " + defects.get(i));
            }
            if (defects.size() > before) {
                copyForEvidence(dir, "kill-" + seed + "-" + round);
            }
            if (matched == null) {
                break;
            }
            model.topics.putAll(matched);
            model.pending.clear();
        }
        System.out.printf("admin kill-9 seed=%d fsyncMetadata=%s: %d kills (%d inside a call: %s), %d calls returned %s,"
                + " %d acks, %d defects, %.1f s%n", seed, fsyncMetadata, kills, inFlightAtKill, inFlightKinds,
                model.ops, model.opCounts, model.acks, defects.size(), (System.nanoTime() - started) / 1e9);
        assertThat(defects).isEmpty();
        assertThat(model.ops).isPositive();
    }

    private List<String> killOnce(Path dir, String writer, String run, long seed, boolean fsyncMetadata,
            long delayMillis) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path logs = Path.of(System.getProperty("kafko.admincrash.logs", tmp.toString()));
        Files.createDirectories(logs);
        Path err = logs.resolve("child-" + run + ".err");
        Path eventsFile = logs.resolve("child-" + run + ".events");
        Files.deleteIfExists(eventsFile);
        Process child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                AdminChurn.class.getName(), dir.toString(), writer, Long.toString(seed),
                Boolean.toString(fsyncMetadata), eventsFile.toString()).redirectError(err.toFile()).start();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.US_ASCII))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.equals("READY")) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IllegalStateException("child ended before READY"));
        }, "admin-kill-reader");
        reader.start();
        ChildKill.afterReady(child, ready, delayMillis, reader);
        assertThat(child.exitValue()).as("killed by SIGKILL (128 + 9); stderr: %s", Files.readString(err))
                .isEqualTo(137);
        // a last line the kill cut lacks its final " ." and is left out by the model
        return Files.readAllLines(eventsFile, StandardCharsets.US_ASCII);
    }

    // ---------------------------------------------------------------- power loss

    private void powerLosses(int crashes, long seed) throws Exception {
        Path live = tmp.resolve("live");
        PowerLossDisk disk = new PowerLossDisk(live);
        HookedFileIo io = new HookedFileIo(disk);
        SplittableRandom random = new SplittableRandom(seed);
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Model model = new Model();
        List<String> defects = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AdminChurn churn = new AdminChurn(() -> BrokerBridge.open(live, AdminChurn.options(true), io), events::add,
                seed, "p");
        churn.open();
        List<Throwable> loopFailure = new ArrayList<>();
        Thread loop = Workload.start("admin-churn", () -> {
            try {
                churn.loop(stop::get);
            } catch (Throwable e) {
                loopFailure.add(e);
            }
        });
        int cursor = 0;
        long inFlightAtCrash = 0;
        Map<String, Long> inFlightKinds = new TreeMap<>();
        long started = System.nanoTime();
        try {
            for (int c = 0; c < crashes && loopFailure.isEmpty(); c++) {
                Thread.sleep(20 + random.nextInt(400));
                int n1 = events.size();
                Path crashed = tmp.resolve("crash-" + c);
                disk.crashInto(crashed);
                int n2 = events.size();
                List<String> snapshot;
                synchronized (events) {
                    snapshot = new ArrayList<>(events.subList(0, n2));
                }
                for (; cursor < n1; cursor++) {
                    model.line(snapshot.get(cursor));
                }
                defects.addAll(model.failures);
                model.failures.clear();
                Model atCrash = new Model();
                model.topics.forEach((n, s) -> atCrash.topics.put(n, s.copy()));
                atCrash.pending.putAll(model.pending);
                for (int i = n1; i < n2; i++) {
                    atCrash.uncertain(snapshot.get(i));
                }
                if (!atCrash.pending.isEmpty()) {
                    inFlightAtCrash++;
                    atCrash.pending.values().forEach(op -> inFlightKinds.merge(op.kind(), 1L, Long::sum));
                }
                int before = defects.size();
                Map<String, TState> matched = verify(crashed, atCrash, false, "power loss " + c, defects);
                System.out.printf("admin power loss seed=%d crash=%d events=%d in-flight=%s defects=%d%n", seed, c, n1,
                        atCrash.pending.values(), defects.size() - before);
                for (int i = before; i < defects.size(); i++) {
                    System.out.println("  DEFECT " + defects.get(i));
                }
                if (defects.size() > before) {
                    copyForEvidence(crashed, "powerloss-" + seed + "-" + c);
                } else {
                    deleteTree(crashed);
                }
                if (matched == null) {
                    break;
                }
            }
        } finally {
            stop.set(true);
            loop.join(60_000);
            churn.kafko().close();
        }
        for (; cursor < events.size(); cursor++) {
            model.line(events.get(cursor));
        }
        defects.addAll(model.failures);
        System.out.printf("admin power loss seed=%d: %d images (%d inside a call: %s), %d calls returned %s, %d acks,"
                + " %s, %d defects, %.1f s%n", seed, crashes, inFlightAtCrash, inFlightKinds, model.ops,
                model.opCounts, model.acks, disk.figures(), defects.size(), (System.nanoTime() - started) / 1e9);
        assertThat(loopFailure).isEmpty();
        assertThat(defects).isEmpty();
    }

    private static void copyForEvidence(Path dir, String name) {
        Path to = Path.of(System.getProperty("kafko.admincrash.evidence", System.getProperty("java.io.tmpdir")),
                "admincrash-" + name);
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path t = to.resolve(dir.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            System.out.println("  copied to " + to);
        } catch (IOException e) {
            System.out.println("  could not copy " + dir + ": " + e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
