package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.log.CompactionPlan;
import dev.kafko.internal.log.MutableClock;
import dev.kafko.internal.log.PartitionLog;
import dev.kafko.internal.log.ReadResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The layouts kafko itself leaves in a partition directory, open again: workloads of rolls (by size and by age, of
 * frames larger than a segment), background seals that run late, clean closes and reopens, retention by size and by
 * time (the oldest segments, every sealed one, every record), compactions and merges of compacted segments, driven
 * on one thread with fixed seeds. At file-system steps of a workload that the seed picks (an open, a write, an
 * fsync, a truncation, a rename, a deletion, a directory fsync) and between its calls, three crash images are taken:
 * the directory as a kill -9 leaves it (every stored byte), as a power loss leaves it ({@link PowerLossDisk}: only
 * what was fsynced), and as a power loss leaves it on a file system that committed every change of the directory
 * but wrote back only some of the pages not fsynced (the others zeros). Each opens, holds every record it must
 * (every completed append after a kill -9, every flushed one after a power loss, from where retention let the log
 * start), each at its offset with its value, nothing that was never written, and takes a new append at its end
 * offset, which a reopen reads back. Some images are worked on again and crashed a second time, so that the layouts
 * an open's own repairs leave are opened too.
 */
class OpenAfterCrashLayoutsTest {

    private static final long SEED = Workload.seed("kafko.open-layouts.seed", 0x0BE_2026L);

    @TempDir
    Path tmp;

    /** The storage's logger, kept quiet during a run: what it reports is counted by kind instead. */
    private final Logger storageLog = Logger.getLogger("dev.kafko.internal.log");
    private final Map<String, Integer> reported = new TreeMap<>();
    private final Handler counter = new Handler() {
        @Override
        public void publish(LogRecord r) {
            String m = r.getMessage();
            String kind = m.replaceAll("\\{\\d\\}", "_");
            synchronized (reported) {
                reported.merge(kind.length() > 90 ? kind.substring(0, 90) : kind, 1, Integer::sum);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void countTheStoragesReports() {
        storageLog.setUseParentHandlers(false);
        storageLog.addHandler(counter);
    }

    @AfterEach
    void printTheStoragesReports() {
        storageLog.removeHandler(counter);
        storageLog.setUseParentHandlers(true);
        reported.forEach((k, n) -> System.out.printf("%6d x %s%n", n, k));
    }

    /** The workloads: each a topic config and the calls it mixes. */
    enum Kind {
        SIZE_ROLLS, AGE_ROLLS, RETENTION_BY_SIZE, RETENTION_BY_TIME, COMPACTION, LARGE_FRAMES
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void everyCrashImageOfTheWorkloadOpensWithItsRecords(Kind kind) throws Exception {
        Figures f = new Figures();
        long started = System.nanoTime();
        run(kind, SEED + kind.ordinal(), kind == Kind.SIZE_ROLLS ? 75 : kind == Kind.LARGE_FRAMES ? 90 : 130, 2, f);
        System.out.printf("open after crash layouts %s: %s, %.1f s%n", kind, f, (System.nanoTime() - started) / 1e9);
        assertThat(f.opened).isGreaterThan(100);
    }

    @Test
    @Tag("stress")
    void manySeedsOfEveryWorkload() throws Exception {
        Figures f = new Figures();
        // two seeds of each workload: four took 13 minutes of the stress run here
        for (int s = 1; s <= 2; s++) {
            for (Kind kind : Kind.values()) {
                run(kind, SEED * 31 + s * 7919L + kind.ordinal(), 300, 2, f);
            }
        }
        System.out.printf("open after crash layouts, stress: %s%n", f);
    }

    /** What was checked. */
    static final class Figures {
        long images;
        long opened;
        long records;
        long secondGeneration;
        /** Images of a log that retention had emptied (its start at its end, past 0). */
        long emptied;
        final List<String> failures = new ArrayList<>();

        @Override
        public String toString() {
            return images + " images opened (" + secondGeneration + " of a second generation; " + emptied
                    + " of a log retention emptied), " + records + " records checked";
        }
    }

    private static TopicConfig config(Kind kind) {
        TopicConfig.Builder b = TopicConfig.builder().segmentBytes(1024).indexIntervalBytes(128).retention(null);
        return switch (kind) {
            case SIZE_ROLLS -> b.build();
            case AGE_ROLLS -> b.segmentBytes(1 << 20).segmentAge(Duration.ofMillis(50)).build();
            case RETENTION_BY_SIZE -> b.retentionBytes(3000).build();
            case RETENTION_BY_TIME -> b.retention(Duration.ofMillis(400)).segmentAge(Duration.ofMillis(150)).build();
            case COMPACTION -> b.compact().minCompactionLag(Duration.ZERO).build();
            case LARGE_FRAMES -> b.segmentBytes(48 * 1024).maxRecordBytes(1 << 20).build();
        };
    }

    /** The background executor of the log's seals and zero steps, run by hand, on the test's thread. */
    private static final class ManualExecutor implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.addLast(task);
        }

        void runSome(int n) {
            for (int i = 0; i < n && !tasks.isEmpty(); i++) {
                tasks.pollFirst().run();
            }
        }
    }

    /** One crash image, and what must be in it. */
    private record Image(Path dir, boolean powerLoss, long mustEnd, long[] floor, String moment) {
    }

    /** What one workload wrote, by offset (the value of every record is unique to it), and its durable progress. */
    private static final class Model {
        final List<byte[]> values = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        long flushedEnd;
        long appendedEnd;
        /** Where the log started when the workload began. */
        long start;
    }

    /** Takes the images at each step of the file system while armed. */
    private final class Crashes implements HookedFileIo.Hooks {
        final PowerLossDisk disk;
        final Path live;
        final SplittableRandom random;
        final Model model;
        final List<Image> images = new ArrayList<>();
        final Path into;
        boolean armed;
        /** One step in this many gets its images. */
        int stepOdds = 12;
        /** Set while a retention runs: its images get the log start after it as their floor. */
        long @Nullable [] pendingFloor;
        @Nullable PartitionLog log;
        String moment = "";

        Crashes(Path live, Path into, SplittableRandom random, Model model) {
            this.disk = new PowerLossDisk(live);
            this.live = live;
            this.into = into;
            this.random = random;
            this.model = model;
        }

        void take(String what) throws IOException {
            if (!armed) {
                return;
            }
            boolean wasArmed = armed;
            armed = false;
            try {
                long[] floor = pendingFloor != null ? pendingFloor
                        : new long[] {log == null ? model.start : log.logStartOffset()};
                Path kill = into.resolve("i" + images.size());
                copyDir(live, kill);
                images.add(new Image(kill, false, model.appendedEnd, floor, moment + " / " + what + " (kill -9)"));
                Path power = into.resolve("i" + images.size());
                disk.crashInto(power);
                images.add(new Image(power, true, model.flushedEnd, floor, moment + " / " + what + " (power loss)"));
                Path writeback = into.resolve("i" + images.size());
                writeBackInto(writeback);
                images.add(new Image(writeback, true, model.flushedEnd, floor,
                        moment + " / " + what + " (power loss, pages written back at random)"));
            } finally {
                armed = wasArmed;
            }
        }

        /**
         * A power loss on a file system that had committed every change of the directory but only some of the pages
         * written since each file's last fsync: past what the file and its last fsync agree on, each page of 4 KiB
         * holds what was written, or zeros (a page never written back), at random.
         */
        private void writeBackInto(Path target) throws IOException {
            Files.createDirectories(target);
            try (Stream<Path> files = Files.list(live)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    if (!Files.isRegularFile(p)) {
                        continue;
                    }
                    byte[] now = Files.readAllBytes(p);
                    byte[] forced = disk.forced(p);
                    int durable = 0;
                    while (forced != null && durable < Math.min(forced.length, now.length)
                            && forced[durable] == now[durable]) {
                        durable++;
                    }
                    for (int page = durable / 4096 * 4096; page < now.length; page += 4096) {
                        if (random.nextBoolean()) {
                            Arrays.fill(now, Math.max(page, durable), Math.min(page + 4096, now.length),
                                    (byte) 0);
                        }
                    }
                    Files.write(target.resolve(p.getFileName()), now);
                }
            }
        }

        private void maybe(String what, Path path) throws IOException {
            if (armed && random.nextInt(stepOdds) == 0) {
                take(what + " " + path.getFileName());
            }
        }

        @Override
        public void afterOpen(Path path, boolean existed) throws IOException {
            disk.afterOpen(path, existed);
            maybe("open", path);
        }

        @Override
        public void beforeWrite(Path path, long bytes) throws IOException {
            maybe("write", path);
        }

        @Override
        public void beforeTruncate(Path path, long size) throws IOException {
            maybe("truncate", path);
        }

        @Override
        public void beforeForce(Path path) throws IOException {
            maybe("before force", path);
        }

        @Override
        public void afterForce(Path path) throws IOException {
            disk.afterForce(path);
            maybe("after force", path);
        }

        @Override
        public void beforeMove(Path source, Path target) throws IOException {
            maybe("move " + source.getFileName() + " to", target);
        }

        @Override
        public void beforeDelete(Path path) throws IOException {
            maybe("delete", path);
        }

        @Override
        public void afterFsyncDirectory(Path dir) throws IOException {
            disk.afterFsyncDirectory(dir);
            maybe("fsync directory", dir);
        }
    }

    private void run(Kind kind, long seed, int steps, int generations, Figures figures) throws Exception {
        Path root = tmp.resolve(kind + "-" + Long.toHexString(seed));
        Model model = new Model();
        workAndCheck(kind, seed, root.resolve("g0"), null, model, steps, 0, generations, figures);
        figures.failures.stream().limit(15).forEach(System.out::println);
        assertThat(figures.failures.size()).as("images that failed their checks (the first printed)").isZero();
    }

    /**
     * Runs a workload of {@code steps} calls on the log in {@code work/live} (a copy of {@code from} when given, which
     * holds the records of {@code model}), taking crash images as it goes, then opens and checks each.
     */
    private void workAndCheck(Kind kind, long seed, Path work, @Nullable Path from, Model model, int steps,
            int generation, int generations, Figures figures) throws Exception {
        TopicConfig config = config(kind);
        SplittableRandom random = new SplittableRandom(seed);
        Path live = work.resolve("live");
        Files.createDirectories(work);
        if (from != null) {
            copyDir(from, live);
        }
        Crashes crashes = new Crashes(live, work.resolve("images"), random.split(), model);
        crashes.stepOdds = kind == Kind.SIZE_ROLLS || kind == Kind.LARGE_FRAMES ? 30 : kind == Kind.COMPACTION ? 20 : 12;
        if (from != null) {
            // what the image held is on the disk for good
            Files.createDirectories(live);
            try (Stream<Path> files = Files.list(live)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    crashes.disk.afterForce(p);
                }
            }
            crashes.disk.afterFsyncDirectory(live);
        }
        MutableClock clock = new MutableClock(1_700_000_000_000L + seed % 1000);
        ManualExecutor background = new ManualExecutor();
        HookedFileIo io = new HookedFileIo(crashes, new FaultyFileIo().syncs(false));
        crashes.armed = true;
        crashes.moment = "open";
        PartitionLog log = PartitionLog.open("t", 0, live, config, clock, io, background);
        crashes.log = log;
        try {
            for (int step = 0; step < steps; step++) {
                int op = random.nextInt(100);
                crashes.moment = "step " + step + " op " + op;
                if (op < 55) {
                    append(kind, log, model, random, clock);
                    if (kind == Kind.COMPACTION) {
                        log.flush(); // as every-batch: compaction never removes a record for one not yet durable
                        model.flushedEnd = model.appendedEnd;
                    }
                } else if (op < 65) {
                    log.flush();
                    model.flushedEnd = model.appendedEnd;
                } else if (op < 77) {
                    background.runSome(1 + random.nextInt(3));
                } else if (op < 85) {
                    clock.advance(Duration.ofMillis(random.nextInt(kind == Kind.RETENTION_BY_TIME ? 300 : 60)));
                } else if (op < 92) {
                    if (kind == Kind.COMPACTION) {
                        compact(log, config, clock);
                    } else {
                        long[] floor = new long[1];
                        crashes.pendingFloor = floor;
                        // every sealed segment, and the rest too when the clock is far ahead
                        if (kind == Kind.RETENTION_BY_TIME && random.nextInt(5) == 0) {
                            clock.advance(Duration.ofSeconds(5));
                        }
                        log.applyRetention();
                        floor[0] = log.logStartOffset();
                        crashes.pendingFloor = null;
                    }
                } else if (op < 96) {
                    // a clean close, and an open of what it left
                    background.runSome(Integer.MAX_VALUE);
                    log.close();
                    model.flushedEnd = model.appendedEnd;
                    crashes.take("closed cleanly");
                    log = PartitionLog.open("t", 0, live, config, clock, io, background);
                    crashes.log = log;
                } else {
                    crashes.take("between calls");
                }
                if (random.nextInt(4) == 0) {
                    crashes.take("after the call");
                }
            }
            background.runSome(Integer.MAX_VALUE);
        } finally {
            crashes.armed = false;
            log.close();
        }
        figures.images += crashes.images.size();
        // three of the images are worked on again
        int secondEvery = Math.max(3, crashes.images.size() / 3);
        for (int i = 0; i < crashes.images.size(); i++) {
            Image image = crashes.images.get(i);
            Model recovered;
            try {
                recovered = check(kind, config, image, model, figures);
            } catch (AssertionError | RuntimeException e) {
                String failure = kind + " seed " + seed + " generation " + generation + ": " + image.moment() + ": " + e;
                System.out.println("FAILED " + failure);
                figures.failures.add(failure);
                continue;
            }
            if (generation + 1 < generations && i % secondEvery == 1) {
                figures.secondGeneration++;
                workAndCheck(kind, seed * 131 + i, work.resolveSibling(work.getFileName() + "g" + i), image.dir(),
                        recovered, steps / 4, generation + 1, generations, figures);
            }
        }
        deleteTree(work);
    }

    private static void append(Kind kind, PartitionLog log, Model model, SplittableRandom random, MutableClock clock) {
        int count = 1 + random.nextInt(3);
        List<OutgoingRecord> batch = new ArrayList<>(count);
        long base = log.endOffset();
        assertThat(base).as("the end before an append").isEqualTo(model.appendedEnd);
        for (int i = 0; i < count; i++) {
            long offset = base + i;
            int size = kind == Kind.LARGE_FRAMES && random.nextInt(4) == 0 ? 20_000 + random.nextInt(60_000)
                    : 10 + random.nextInt(kind == Kind.SIZE_ROLLS ? 700 : 200);
            String key = kind == Kind.COMPACTION ? "k" + random.nextInt(7) : "k" + offset;
            byte[] value = value(offset, model.values.size(), size);
            batch.add(OutgoingRecord.of(key.getBytes(StandardCharsets.UTF_8), value));
        }
        long at = log.append(batch);
        assertThat(at).isEqualTo(base);
        for (OutgoingRecord r : batch) {
            model.values.add(r.value());
            model.keys.add(new String(r.key(), StandardCharsets.UTF_8));
        }
        model.appendedEnd = base + count;
        clock.advance(Duration.ofMillis(random.nextInt(3)));
    }

    /** A value that names its offset and where in the workload it was written (offsets are taken again after a cut). */
    private static byte[] value(long offset, long serial, int size) {
        byte[] v = new byte[size];
        byte[] tag = ("v" + offset + "@" + serial + ";").getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < size; i++) {
            v[i] = i < tag.length ? tag[i] : (byte) ('a' + (offset * 31 + serial + i) % 23);
        }
        return v;
    }

    private static void compact(PartitionLog log, TopicConfig config, MutableClock clock) {
        do {
            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            if (plan.isEmpty()) {
                if (plan.cleanableEnd() >= 0) {
                    log.compaction().noteCompacted(plan, true);
                }
            } else {
                log.applyCompaction(plan, true);
            }
        } while (log.compaction().passesLeft());
    }

    /** Opens {@code image} and checks it; returns the model of what it holds, for a second generation. */
    private Model check(Kind kind, TopicConfig config, Image image, Model model, Figures figures) throws IOException {
        String what = image.moment() + " in " + image.dir();
        Path dir = image.dir();
        Files.createDirectories(dir);
        Map<Long, KafkoRecord> read = new TreeMap<>();
        long start;
        long end;
        MutableClock clock = new MutableClock(1_800_000_000_000L);
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, new FaultyFileIo().syncs(false))) {
            figures.opened++;
            start = log.logStartOffset();
            end = log.endOffset();
            long next = start;
            while (next < end) {
                ReadResult r = log.read(next, 1000, 1 << 20);
                for (KafkoRecord rec : r.records()) {
                    read.put(rec.offset(), rec);
                }
                assertThat(r.nextOffset()).as(what + ": a read from %d moves on", next).isGreaterThan(next);
                next = r.nextOffset();
            }
            assertThat(end).as(what + ": the end offset, at most what was written").isLessThanOrEqualTo(model.appendedEnd);
            assertThat(end).as(what + ": the end offset, at least what must be there").isGreaterThanOrEqualTo(image.mustEnd());
            assertThat(start).as(what + ": the log start, at most where retention let it be")
                    .isLessThanOrEqualTo(image.floor()[0]);
            for (KafkoRecord r : read.values()) {
                int o = (int) r.offset();
                assertThat(o).as(what + ": a record's offset").isLessThan(model.values.size());
                if (!Arrays.equals(r.value(), model.values.get(o))) {
                    fail(what + ": offset " + o + " holds " + new String(r.value(), 0, Math.min(24, r.value().length),
                            StandardCharsets.US_ASCII) + "…, which was never written there");
                }
            }
            long floor = Math.max(start, image.floor()[0]);
            if (kind == Kind.COMPACTION) {
                Map<String, Long> latest = new HashMap<>();
                for (long o = 0; o < image.mustEnd(); o++) {
                    latest.put(model.keys.get((int) o), o);
                }
                for (Map.Entry<String, Long> e : latest.entrySet()) {
                    assertThat(read).as(what + ": the latest record of " + e.getKey()).containsKey(e.getValue());
                }
            } else {
                for (long o = floor; o < image.mustEnd(); o++) {
                    assertThat(read).as(what + ": a record that must survive").containsKey(o);
                }
            }
            figures.records += read.size();
            if (start == end && end > 0) {
                figures.emptied++;
            }
            // new appends continue at the end
            long at = log.append(OutgoingRecord.of("after".getBytes(StandardCharsets.UTF_8),
                    value(end, -1, 50)));
            assertThat(at).as(what + ": the offset of an append after the open").isEqualTo(end);
        }
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, clock, new FaultyFileIo().syncs(false))) {
            assertThat(log.endOffset()).as(what + ": the end after a reopen").isEqualTo(end + 1);
            ReadResult r = log.read(end, 1, 1 << 20);
            assertThat(r.records()).as(what + ": the record appended after the open").hasSize(1);
            assertThat(r.records().get(0).value()).isEqualTo(value(end, -1, 50));
        }
        // the model of what this image holds now, for a second generation
        Model recovered = new Model();
        for (long o = 0; o < end; o++) {
            KafkoRecord r = read.get(o);
            recovered.values.add(r == null ? model.values.get((int) o) : r.value());
            recovered.keys.add(model.keys.get((int) o));
        }
        recovered.values.add(value(end, -1, 50));
        recovered.keys.add("after");
        recovered.appendedEnd = end + 1;
        recovered.flushedEnd = end + 1;
        recovered.start = start;
        return recovered;
    }

    private static void copyDir(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        if (!Files.exists(from)) {
            return;
        }
        try (Stream<Path> files = Files.list(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                if (Files.isRegularFile(p)) {
                    Files.copy(p, to.resolve(p.getFileName()));
                }
            }
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(q);
            }
        }
    }
}
