package dev.kafko.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.kafko.AlreadyOpenException;
import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.CorruptLogException;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionFailedException;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;

/**
 * Fuzzes a whole {@link Kafko#open} of a damaged data directory. A real directory is written once (a topic of 2
 * partitions in 1 KiB segments, an LZ4 topic, keys, headers, tombstones, a group with commits) and closed; each
 * input copies it and applies 1 to 4 damages the fuzzer chooses (cut, flip, zero or overwrite a byte range,
 * append garbage, delete, empty, replace by a directory, a stray file or directory of a name kafko knows) to
 * files the fuzzer chooses. Then:
 * <ul>
 * <li>the open succeeds or throws a {@link KafkoException}, within {@link #OPEN_TIMEOUT}; a failed open leaves
 * no lock and no thread behind;</li>
 * <li>every record a consumer reads is one that was sent, at the offset it was sent to, with its key, value,
 * headers and timestamp; a read starts exactly at the position asked for; a read fails only with
 * {@link CorruptLogException} (the consumer then seeks one further);</li>
 * <li>the group resumes inside the log;</li>
 * <li>a new send to each partition succeeds at the partition's end, unless the partition reports
 * {@link PartitionState#FAILED}; after a clean reopen it reads back, and what the first open read still
 * reads the same;</li>
 * <li>damage only to cache files (the index files, the clean marker) loses nothing: every record reads,
 * every end offset and commit is what it was;</li>
 * <li>no {@code kafko-} thread outlives a close.</li>
 * </ul>
 */
class DirectoryOpenFuzzTest {

    private static final Path SCRATCH = FuzzFiles.newDirectory("kafko-fuzz-open");
    private static final Duration OPEN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration RUN_TIMEOUT = Duration.ofSeconds(120);
    private static final String PLAIN = "plain";
    private static final String PACKED = "packed";
    private static final String GROUP = "g";
    private static final long T0 = 1_700_000_000_000L;
    /** Keeps the kafko logger (and its level) alive: recovery warns about every damage. */
    private static final Logger KAFKO_LOG = Logger.getLogger("dev.kafko");
    private static final AtomicInteger RUNS = new AtomicInteger();
    /** {@code -Dkafko.fuzz.describe=true} prints each input's damages (to pick corpus inputs). */
    private static final boolean DESCRIBE = Boolean.getBoolean("kafko.fuzz.describe");
    private static final ExecutorService WORKER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fuzz-open-worker");
        t.setDaemon(true);
        return t;
    });

    private static Template template;

    /** The directory written once, what was acknowledged in it and the group's commits. */
    private record Template(Path dir, Path runningCopy, Map<String, Sent> sent, Map<String, Long> ends, Map<String, Long> commits,
                            Map<String, Integer> partitions) {
    }

    private record Sent(byte[] key, byte[] value, Headers headers, long timestamp) {
    }

    private enum Kind {
        TRUNCATE, FLIP, ZERO, OVERWRITE, APPEND, DELETE, EMPTY, TO_DIRECTORY, STRAY_FILE, STRAY_DIRECTORY
    }

    @AfterAll
    static void cleanUp() throws IOException {
        FuzzFiles.delete(SCRATCH);
    }

    @FuzzTest(maxDuration = "30s")
    void damagedDirectoryOpensOrFailsAsDocumentedAndNeverAltersARecord(FuzzedDataProvider in) throws Exception {
        Level level = KAFKO_LOG.getLevel();
        KAFKO_LOG.setLevel(Level.OFF);
        Template t = template();
        Path dir = SCRATCH.resolve("run-" + RUNS.incrementAndGet());
        // an odd first byte picks the copy taken while the instance ran (recovered like a crash)
        byte[] pick = in.consumeBytes(1);
        boolean running = pick.length == 1 && (pick[0] & 1) == 1;
        copy(running ? t.runningCopy() : t.dir(), dir);
        try {
            List<String> damages = new ArrayList<>();
            if (running) {
                damages.add("(in a copy taken while it ran)");
            }
            boolean cacheOnly = damage(in, dir, damages);
            if (DESCRIBE) {
                System.out.println("damages" + (cacheOnly ? " (caches only): " : ": ") + damages);
            }
            Future<?> run = WORKER.submit(() -> {
                check(t, dir, damages, cacheOnly);
                return null;
            });
            try {
                run.get(RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("hung (" + RUN_TIMEOUT + ") after " + damages + "\n" + threadDump());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof AssertionError a) {
                    throw new AssertionError(a.getMessage() + "\n  damages: " + damages, a);
                }
                throw new AssertionError("unexpected " + e.getCause() + " after " + damages, e.getCause());
            }
        } finally {
            KAFKO_LOG.setLevel(level);
            FuzzFiles.delete(dir);
        }
    }

    // ------------------------------------------------------------------------------------------------ the checks

    private static void check(Template t, Path dir, List<String> damages, boolean cacheOnly) throws Exception {
        Kafko k;
        try {
            k = openWithin(dir);
        } catch (KafkoException e) {
            assertNoKafkoThreads("after a failed open");
            if (cacheOnly) {
                throw new AssertionError("damage to caches only failed the open: " + e, e);
            }
            try {
                openWithin(dir).close();
            } catch (AlreadyOpenException stillLocked) {
                throw new AssertionError("a failed open (" + e + ") left the directory locked", stillLocked);
            } catch (KafkoException again) {
                // fails the same way
            }
            assertNoKafkoThreads("after a second failed open");
            return;
        }
        Map<String, KafkoRecord> readFirst = new HashMap<>();
        Map<String, RecordPosition> added = new HashMap<>();
        Map<String, Long> endsFirst = new HashMap<>();
        try {
            for (String name : t.partitions().keySet()) {
                Optional<Topic> topic = k.topic(name);
                if (topic.isEmpty()) {
                    assertThat(cacheOnly).as("topic %s lost after damage to caches only", name).isFalse();
                    continue;
                }
                assertThat(topic.get().partitionCount()).as("partitions of %s", name)
                        .isEqualTo(t.partitions().get(name));
                for (int p = 0; p < topic.get().partitionCount(); p++) {
                    PartitionInfo info = topic.get().partition(p);
                    endsFirst.put(name + "/" + p, info.endOffset());
                    readAll(k, t, topic.get(), p, Map.of(), readFirst, cacheOnly);
                    if (cacheOnly) {
                        assertThat(info.state()).as("state of %s/%d", name, p).isEqualTo(PartitionState.RUNNING);
                        assertThat(info.logStartOffset()).as("log start of %s/%d", name, p).isZero();
                        assertThat(info.endOffset()).as("end of %s/%d", name, p)
                                .isEqualTo(t.ends().get(name + "/" + p));
                    }
                }
                checkGroup(k, t, topic.get(), damages, cacheOnly);
                sendOneEach(k, topic.get(), added);
            }
        } finally {
            closeWithin(k);
        }
        assertNoKafkoThreads("after the first close");

        // a clean reopen: the new sends read back, and so does every record the first open read
        Kafko again;
        try {
            again = openWithin(dir);
        } catch (KafkoException e) {
            throw new AssertionError("the reopen after a successful open and a clean close failed: " + e, e);
        }
        try {
            for (String name : t.partitions().keySet()) {
                Optional<Topic> topic = again.topic(name);
                if (topic.isEmpty()) {
                    assertThat(endsFirst.keySet().stream().noneMatch(x -> x.startsWith(name + "/")))
                            .as("topic %s opened the first time, gone after a clean reopen", name).isTrue();
                    continue;
                }
                Map<String, KafkoRecord> readAgain = new HashMap<>();
                for (int p = 0; p < topic.get().partitionCount(); p++) {
                    PartitionInfo info = topic.get().partition(p);
                    RecordPosition pos = added.get(name + "/" + p);
                    long expectedEnd = endsFirst.get(name + "/" + p) + (pos == null ? 0 : 1);
                    assertThat(info.endOffset()).as("end of %s/%d after the clean reopen", name, p)
                            .isEqualTo(expectedEnd);
                    readAll(again, t, topic.get(), p, added, readAgain, false);
                }
                for (Map.Entry<String, KafkoRecord> e : readFirst.entrySet()) {
                    if (e.getKey().startsWith(name + "/")) {
                        assertThat(readAgain).as("record %s read by the first open, after a clean reopen",
                                e.getKey()).containsKey(e.getKey());
                    }
                }
                for (Map.Entry<String, RecordPosition> e : added.entrySet()) {
                    if (e.getKey().startsWith(name + "/")) {
                        String at = name + "/" + e.getValue().partition() + "/" + e.getValue().offset();
                        KafkoRecord r = readAgain.get(at);
                        assertThat(r).as("the new send %s after a clean reopen", at).isNotNull();
                        assertThat(r.value()).isEqualTo(newValue(name, e.getValue().partition()));
                    }
                }
            }
        } finally {
            closeWithin(again);
        }
        assertNoKafkoThreads("after the second close");
    }

    /**
     * Reads a partition from its start to its end; every record must be the one sent at its offset (or the one
     * this run added, checked by the caller); a read fails only with {@link CorruptLogException}.
     */
    private static void readAll(Kafko k, Template t, Topic topic, int p, Map<String, RecordPosition> added,
                                Map<String, KafkoRecord> read, boolean cacheOnly) {
        String name = topic.name();
        long end = topic.partition(p).endOffset();
        if (topic.partition(p).state() == PartitionState.FAILED) {
            return;
        }
        try (Consumer c = k.consumer(name, ConsumerOptions.DEFAULTS.withPartitions(Set.of(p)))) {
            int empty = 0;
            long start = topic.partition(p).logStartOffset();
            assertThat(start).as("log start of %s/%d", name, p).isBetween(0L, end);
            c.seek(p, start); // an anonymous consumer starts at 0, which a lost first segment moved
            long pos = c.position(p);
            assertThat(pos).as("position of %s/%d after a seek to its start", name, p).isEqualTo(start);
            while (pos < end) {
                List<KafkoRecord> got;
                try {
                    got = c.poll(Duration.ofMillis(100));
                } catch (CorruptLogException e) {
                    assertThat(cacheOnly).as("read of %s/%d at %d failed after damage to caches only: %s", name, p,
                            pos, e).isFalse();
                    long at = c.position(p);
                    assertThat(at).as("position after a failed read of %s/%d", name, p).isEqualTo(pos);
                    c.seek(p, pos + 1);
                    pos = c.position(p);
                    continue;
                } catch (PartitionFailedException e) {
                    assertThat(topic.partition(p).state()).as("poll of %s/%d: %s", name, p, e)
                            .isEqualTo(PartitionState.FAILED);
                    return;
                }
                if (got.isEmpty()) {
                    assertThat(++empty).as("polls of %s/%d at %d (end %d) returning nothing", name, p, pos, end)
                            .isLessThan(20);
                    pos = c.position(p);
                    continue;
                }
                empty = 0;
                long expected = pos;
                for (KafkoRecord r : got) {
                    assertThat(r.topic()).isEqualTo(name);
                    assertThat(r.partition()).isEqualTo(p);
                    if (expected == pos) {
                        // the first record of a poll starts exactly at the position (a read never skips ahead)
                        assertThat(r.offset()).as("first offset of a poll of %s/%d at %d", name, p, pos)
                                .isEqualTo(pos);
                    }
                    assertThat(r.offset()).as("offsets of %s/%d in sequence", name, p).isEqualTo(expected);
                    expected++;
                    String at = name + "/" + p + "/" + r.offset();
                    Sent s = t.sent().get(at);
                    RecordPosition mine = added.get(name + "/" + p);
                    if (mine != null && mine.offset() == r.offset()) {
                        assertThat(r.value()).as("the record this run added at %s", at).isEqualTo(newValue(name, p));
                    } else if (s == null) {
                        throw new AssertionError("a record read at " + at + ", where none was sent: key "
                                + Arrays.toString(r.key()) + " value " + Arrays.toString(r.value()));
                    } else {
                        assertThat(r.key()).as("key at %s", at).isEqualTo(s.key());
                        assertThat(r.value()).as("value at %s", at).isEqualTo(s.value());
                        assertThat(r.headers()).as("headers at %s", at).isEqualTo(s.headers());
                        assertThat(r.timestamp()).as("timestamp at %s", at).isEqualTo(s.timestamp());
                    }
                    read.put(at, r);
                }
                pos = c.position(p);
                assertThat(pos).as("position of %s/%d after a poll", name, p).isEqualTo(expected);
            }
            assertThat(pos).as("position of %s/%d after reading to the end", name, p).isEqualTo(end);
        }
        if (cacheOnly) {
            long sentEnd = t.ends().get(name + "/" + p);
            for (long o = 0; o < sentEnd; o++) {
                assertThat(read).as("record %s/%d/%d after damage to caches only", name, p, o)
                        .containsKey(name + "/" + p + "/" + o);
            }
        }
    }

    private static void checkGroup(Kafko k, Template t, Topic topic, List<String> damages, boolean cacheOnly) {
        String name = topic.name();
        if (!t.commits().keySet().stream().anyMatch(x -> x.startsWith(name + "/"))) {
            return;
        }
        if (cacheOnly) {
            Map<Integer, Long> committed = k.groupInfo(name, GROUP).committed();
            for (int p = 0; p < topic.partitionCount(); p++) {
                assertThat(committed.get(p)).as("commit of %s/%d after damage to caches only", name, p)
                        .isEqualTo(t.commits().get(name + "/" + p));
            }
        }
        Consumer member;
        try {
            member = k.groupConsumer(name, GROUP);
        } catch (KafkoException e) {
            // the group's files were damaged so that they cannot be read (an offsets file that is a directory): open
            // leaves the group alone, and its first use fails naming the file
            assertThat(damages.stream().anyMatch(d -> d.contains(name + "/groups")))
                    .as("groupConsumer of %s failed (%s) with its groups undamaged", name, e).isTrue();
            return;
        }
        try (Consumer c = member) {
            for (int p : c.assignment()) {
                PartitionInfo info = topic.partition(p);
                // before a poll, a commit below the log start is reported as it is (as Kafka's position does)
                assertThat(c.position(p)).as("resume position of %s/%d (log %d to %d)", name, p,
                        info.logStartOffset(), info.endOffset()).isBetween(0L, info.endOffset());
            }
            // a poll applies the reset policy to a commit below the log start: it resumes inside the log
            List<KafkoRecord> got = List.of();
            try {
                got = c.poll(Duration.ofMillis(50));
            } catch (CorruptLogException e) {
                assertThat(cacheOnly).as("the group's first poll of %s failed after damage to caches only: %s",
                        name, e).isFalse();
            }
            for (KafkoRecord r : got) {
                Sent s = t.sent().get(name + "/" + r.partition() + "/" + r.offset());
                assertThat(s).as("record the group read at %s/%d/%d", name, r.partition(), r.offset()).isNotNull();
                assertThat(r.value()).as("value the group read at %s/%d/%d", name, r.partition(), r.offset())
                        .isEqualTo(s.value());
            }
            for (int p : c.assignment()) {
                PartitionInfo info = topic.partition(p);
                assertThat(c.position(p)).as("position of %s/%d after the group's first poll (log %d to %d)", name,
                        p, info.logStartOffset(), info.endOffset())
                        .isBetween(info.logStartOffset(), info.endOffset());
            }
        }
    }

    private static void sendOneEach(Kafko k, Topic topic, Map<String, RecordPosition> added) throws Exception {
        Producer producer = k.producer(topic.name());
        for (int p = 0; p < topic.partitionCount(); p++) {
            PartitionInfo before = topic.partition(p);
            RecordPosition pos;
            try {
                pos = producer.sendTo(p, OutgoingRecord.of(null, newValue(topic.name(), p)))
                        .get(OPEN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("a send to " + topic.name() + "/" + p + " hung\n" + threadDump());
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                assertThat(cause).as("a failed send to %s/%d", topic.name(), p).isInstanceOf(KafkoException.class);
                assertThat(topic.partition(p).state()).as("state of %s/%d whose send failed with %s", topic.name(), p,
                        cause).isEqualTo(PartitionState.FAILED);
                continue;
            }
            assertThat(before.state()).as("a send to %s/%d, FAILED", topic.name(), p)
                    .isNotEqualTo(PartitionState.FAILED);
            assertThat(pos.offset()).as("offset of a new send to %s/%d", topic.name(), p).isEqualTo(before.endOffset());
            added.put(topic.name() + "/" + p, pos);
        }
    }

    private static byte[] newValue(String topic, int p) {
        return ("after-damage-" + topic + "-" + p).getBytes();
    }

    // ---------------------------------------------------------------------------------------------- the damages

    /** Applies 1 to 4 damages; true when they all hit cache files only (index files, the clean marker). */
    private static boolean damage(FuzzedDataProvider in, Path dir, List<String> done) throws IOException {
        int n = in.consumeInt(1, 4);
        boolean cacheOnly = true;
        for (int i = 0; i < n; i++) {
            Kind kind = in.pickValue(Kind.values());
            boolean strayKind = kind == Kind.STRAY_FILE || kind == Kind.STRAY_DIRECTORY;
            List<Path> candidates = strayKind ? directories(dir)
                    : kind == Kind.DELETE ? entries(dir) : files(dir);
            if (candidates.isEmpty()) {
                continue;
            }
            Path target = candidates.get(in.consumeInt(0, candidates.size() - 1));
            String rel = dir.relativize(target).toString();
            if (rel.isEmpty()) {
                rel = ".";
            }
            switch (kind) {
                case TRUNCATE -> {
                    long size = Files.size(target);
                    long at = in.consumeLong(0, Math.max(0, size - 1));
                    try (FileChannel ch = FileChannel.open(target, StandardOpenOption.WRITE)) {
                        ch.truncate(at);
                    }
                    done.add(kind + " " + rel + " at " + at + " of " + size);
                }
                case FLIP, ZERO, OVERWRITE -> {
                    byte[] b = Files.readAllBytes(target);
                    if (b.length == 0) {
                        done.add(kind + " " + rel + " (empty: nothing)");
                        continue;
                    }
                    int from = in.consumeInt(0, b.length - 1);
                    int len = in.consumeInt(1, Math.min(32, b.length - from));
                    byte mask = (byte) in.consumeInt(1, 255);
                    for (int j = from; j < from + len; j++) {
                        b[j] = switch (kind) {
                            case FLIP -> (byte) (b[j] ^ mask);
                            case ZERO -> 0;
                            default -> (byte) in.consumeInt(0, 255);
                        };
                    }
                    Files.write(target, b);
                    done.add(kind + " " + rel + " [" + from + ", " + (from + len) + ")" + (kind == Kind.FLIP
                            ? " ^ 0x" + Integer.toHexString(mask & 0xff) : ""));
                }
                case APPEND -> {
                    byte[] garbage = in.consumeBytes(in.consumeInt(1, 64));
                    Files.write(target, garbage, StandardOpenOption.APPEND);
                    done.add(kind + " " + rel + " " + garbage.length + " bytes " + hex(garbage));
                }
                case DELETE -> {
                    FuzzFiles.delete(target);
                    done.add(kind + " " + rel);
                }
                case EMPTY -> {
                    Files.write(target, new byte[0]);
                    done.add(kind + " " + rel);
                }
                case TO_DIRECTORY -> {
                    Files.delete(target);
                    Files.createDirectory(target);
                    done.add(kind + " " + rel);
                }
                case STRAY_FILE, STRAY_DIRECTORY -> {
                    String name = strayName(in, target);
                    Path stray = target.resolve(name);
                    String srel = dir.relativize(stray).toString();
                    if (Files.isDirectory(stray)) {
                        done.add(kind + " " + srel + " (a directory already: nothing)");
                        continue;
                    }
                    boolean existed = Files.exists(stray);
                    if (kind == Kind.STRAY_DIRECTORY) {
                        if (existed) {
                            Files.delete(stray);
                        }
                        Files.createDirectory(stray);
                        done.add(kind + " " + srel + (existed ? " replacing the file" : ""));
                    } else {
                        byte[] content = strayContent(in, name);
                        Files.write(stray, content);
                        done.add(kind + " " + srel + (existed ? " over the file" : "") + " " + content.length
                                + " bytes " + hex(content));
                        if (isCache(name)) {
                            continue;
                        }
                    }
                }
                default -> throw new IllegalStateException();
            }
            if (strayKind || kind == Kind.TO_DIRECTORY || !isCache(target.getFileName().toString())) {
                cacheOnly = false;
            }
        }
        return cacheOnly && !done.isEmpty();
    }

    private static boolean isCache(String name) {
        return name.endsWith(".index") || name.endsWith(".timeindex") || name.equals(".clean");
    }

    private static String strayName(FuzzedDataProvider in, Path parent) {
        int kind = in.consumeInt(0, 9);
        return switch (kind) {
            case 0 -> String.format("%020d.log", in.consumeLong(0, 400));
            case 1 -> String.format("%020d.index", in.consumeLong(0, 400));
            case 2 -> String.format("%020d.timeindex", in.consumeLong(0, 400));
            case 3 -> ".clean";
            case 4 -> String.format("%020d.log.tmp", in.consumeLong(0, 400));
            case 5 -> "topic.conf";
            case 6 -> "offsets";
            case 7 -> Integer.toString(in.consumeInt(0, 3));
            case 8 -> "groups";
            default -> {
                String s = in.consumeString(12).replaceAll("[^A-Za-z0-9._-]", "");
                yield s.isEmpty() || s.equals(".") || s.equals("..") ? "x" : s;
            }
        };
    }

    /** Bytes of a stray file; a segment may start with a valid header for the offset of its name. */
    private static byte[] strayContent(FuzzedDataProvider in, String name) {
        boolean header = name.matches("[0-9]{20}\\.log") && in.consumeBoolean();
        byte[] body = in.consumeBytes(in.consumeInt(0, 64));
        if (!header) {
            return body;
        }
        long base = Long.parseLong(name.substring(0, 20));
        return ByteBuffer.allocate(16 + body.length).order(ByteOrder.LITTLE_ENDIAN).putInt(0x4B464B53)
                .putShort((short) 1).putShort((short) 0).putLong(base).put(body).array();
    }

    // ------------------------------------------------------------------------------------------ the template

    private static synchronized Template template() throws IOException {
        if (template != null) {
            return template;
        }
        Path dir = SCRATCH.resolve("template");
        Path running = SCRATCH.resolve("template-running");
        Map<String, Sent> sent = new HashMap<>();
        Map<String, Long> ends = new TreeMap<>();
        Map<String, Long> commits = new TreeMap<>();
        Map<String, Integer> partitions = new TreeMap<>();
        try (Kafko k = Kafko.open(dir)) {
            TopicConfig plain = TopicConfig.builder().partitions(2).segmentBytes(1024).indexIntervalBytes(128)
                    .retention(null).build();
            TopicConfig packed = TopicConfig.builder().partitions(1).compression(Compression.LZ4).segmentBytes(1024)
                    .indexIntervalBytes(128).retention(null).build();
            k.createTopic(PLAIN, plain);
            k.createTopic(PACKED, packed);
            partitions.put(PLAIN, 2);
            partitions.put(PACKED, 1);
            long ts = T0;
            Producer p = k.producer(PLAIN);
            for (int i = 0; i < 90; i++) {
                int partition = i % 2;
                if (i % 7 == 3) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int j = 0; j < 3; j++) {
                        batch.add(record(i * 10 + j, ts++));
                    }
                    remember(PLAIN, partition, batch, p.sendBatchTo(partition, batch).join(), sent);
                } else {
                    OutgoingRecord r = record(i * 10, ts++);
                    remember(PLAIN, partition, List.of(r), List.of(p.sendTo(partition, r).join()), sent);
                }
            }
            Producer q = k.producer(PACKED);
            for (int i = 0; i < 24; i++) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int j = 0; j < 6; j++) {
                    batch.add(record(5000 + i * 10 + j, ts++));
                }
                remember(PACKED, 0, batch, q.sendBatchTo(0, batch).join(), sent);
            }
            commit(k, PLAIN, Map.of(0, 23L, 1, 41L), commits);
            commit(k, PACKED, Map.of(0, 77L), commits);
            for (String name : partitions.keySet()) {
                for (PartitionInfo info : k.topic(name).orElseThrow().partitions()) {
                    ends.put(name + "/" + info.partition(), info.endOffset());
                    assertThat(info.segmentCount()).as("segments of %s/%d", name, info.partition())
                            .isGreaterThan(3);
                }
            }
            copyWhileRunning(dir, running);
        }
        template = new Template(dir, running, Map.copyOf(sent), Map.copyOf(ends), Map.copyOf(commits), Map.copyOf(partitions));
        return template;
    }

    /**
     * A copy of the open directory, as a backup taken while the instance runs: no clean marker, the active
     * segments with zeros allocated ahead (cut to 4 KiB of them, not the 16 MiB window, to keep each input cheap).
     */
    private static void copyWhileRunning(Path from, Path to) throws IOException {
        copy(from, to);
        for (Path f : files(to)) {
            String n = f.getFileName().toString();
            if (!n.endsWith(".log")) {
                continue;
            }
            byte[] b = Files.readAllBytes(f);
            int last = b.length;
            while (last > 0 && b[last - 1] == 0) {
                last--;
            }
            if (b.length > last + 4096) {
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    ch.truncate(last + 4096);
                }
            }
        }
    }

    private static OutgoingRecord record(int i, long timestamp) {
        byte[] key = i % 5 == 0 ? null : ("key-" + i).getBytes();
        byte[] value = i % 11 == 4 ? null : ("value-" + i + "-" + "abcdefgh".repeat(1 + i % 4)).getBytes();
        Headers headers = i % 3 == 0 ? Headers.of("h", ("x" + i).getBytes()).with("n", null) : Headers.empty();
        return OutgoingRecord.of(key, value, headers, timestamp);
    }

    private static void remember(String topic, int partition, List<OutgoingRecord> records, List<RecordPosition> at,
                                 Map<String, Sent> sent) {
        for (int i = 0; i < records.size(); i++) {
            OutgoingRecord r = records.get(i);
            assertThat(at.get(i).partition()).isEqualTo(partition);
            sent.put(topic + "/" + partition + "/" + at.get(i).offset(),
                    new Sent(r.key(), r.value(), r.headers(), r.timestamp()));
        }
    }

    private static void commit(Kafko k, String topic, Map<Integer, Long> offsets, Map<String, Long> commits) {
        try (Consumer c = k.groupConsumer(topic, GROUP)) {
            assertThat(c.assignment()).containsExactlyInAnyOrderElementsOf(offsets.keySet());
            offsets.forEach((p, o) -> {
                c.seek(p, o);
                commits.put(topic + "/" + p, o);
            });
            c.commit();
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static Kafko openWithin(Path dir) throws Exception {
        Future<Kafko> open = WORKER.submit(() -> Kafko.open(dir));
        try {
            return open.get(OPEN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("Kafko.open hung (" + OPEN_TIMEOUT + ")\n" + threadDump());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KafkoException ke) {
                throw ke;
            }
            throw new AssertionError("Kafko.open threw " + e.getCause() + ", not a KafkoException", e.getCause());
        }
    }

    private static void closeWithin(Kafko k) throws Exception {
        Future<?> close = WORKER.submit(k::close);
        try {
            close.get(OPEN_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("close hung (" + OPEN_TIMEOUT + ")\n" + threadDump());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof KafkoException)) {
                throw new AssertionError("close threw " + e.getCause() + ", not a KafkoException", e.getCause());
            }
        }
    }

    private static void assertNoKafkoThreads(String when) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        Set<String> left;
        do {
            left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith("kafko-") && !n.equals("kafko-shutdown-probe"))
                    .collect(Collectors.toSet());
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(10);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("kafko threads left " + when + ": " + left + "\n" + threadDump());
    }

    private static String threadDump() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, st) -> {
            b.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement e : st) {
                b.append("    at ").append(e).append('\n');
            }
        });
        return b.toString();
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s.sorted()::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    try {
                        Files.copy(p, target);
                    } catch (NoSuchFileException e) {
                        // renamed or deleted by the running instance since the listing (a seal's .tmp file): a
                        // backup taken while it runs misses it too
                    }
                }
            }
        }
    }

    private static List<Path> files(Path dir) throws IOException {
        return walk(dir).stream().filter(Files::isRegularFile).toList();
    }

    private static List<Path> directories(Path dir) throws IOException {
        return walk(dir).stream().filter(Files::isDirectory).toList();
    }

    private static List<Path> entries(Path dir) throws IOException {
        return walk(dir).stream().filter(p -> !p.equals(dir)).toList();
    }

    private static List<Path> walk(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.sorted().toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, 24); i++) {
            s.append(String.format("%02x", b[i]));
        }
        return b.length > 24 ? s + "…" : s.toString();
    }
}
