package dev.kafko.reliability;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.PartitionInfo;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Admin calls in a loop, each announced before it is made and reported once it returned, for
 * {@link AdminCrashTest}: creates (1 to 6 partitions, every codec and fsync policy), deletes, deletes
 * followed by a create of the same name, partition increases, commits of several groups, sends (each
 * joined), and closes followed by an open, while a topic of 1 KiB segments under a 200 ms retention
 * keeps retention deleting segments. One thread; the lines ({@code B seq op ... .} before a call,
 * {@code E seq .} after it returned, {@code F seq exception .} when it threw, {@code A topic partition
 * offset key checksum .} for a joined send) go to a sink. Run as a child JVM by the kill -9 test
 * (arguments: data directory, writer name, seed, fsyncMetadata, the file the lines are appended to), in-process
 * by the power-loss test.
 */
public final class AdminChurn {

    static final String KEEP = "keep";
    static final List<String> POOL = List.of("t0", "t1", "t2", "t3", "t4");
    static final List<String> GROUPS = List.of("g0", "g1", "g2");
    static final int MAX_PARTITIONS = 12;
    private static final Compression[] CODECS = {Compression.NONE, Compression.LZ4, Compression.ZSTD};
    private static final String[] FSYNCS = {"never", "every-batch", "interval:PT0.05S"};

    interface Sink {
        void line(String line);
    }

    private final Supplier<Kafko> opener;
    private final Sink sink;
    private final SplittableRandom random;
    private final String writer;
    private long seq;
    private long sendSeq;
    private Kafko kafko;

    AdminChurn(Supplier<Kafko> opener, Sink sink, long seed, String writer) {
        this.opener = opener;
        this.sink = sink;
        this.random = new SplittableRandom(seed);
        this.writer = writer;
    }

    static KafkoOptions options(boolean fsyncMetadata) {
        return KafkoOptions.builder().fsyncMetadata(fsyncMetadata).retentionCheckInterval(Duration.ofMillis(50))
                .build();
    }

    static TopicConfig keepConfig() {
        return TopicConfig.builder().partitions(2).segmentBytes(1024).retention(Duration.ofMillis(200))
                .fsync(FsyncPolicy.EVERY_BATCH).build();
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String writer = args[1];
        long seed = Long.parseLong(args[2]);
        boolean fsyncMetadata = Boolean.parseBoolean(args[3]);
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "US-ASCII");
        // the lines go to a file, one write each (the page cache keeps them through the kill): lines on a pipe to
        // the parent were lost now and then when the kill came (Process's pipe drained at the child's exit)
        java.io.FileOutputStream events = new java.io.FileOutputStream(args[4], true);
        AdminChurn churn = new AdminChurn(() -> Kafko.open(dir, options(fsyncMetadata)), line -> {
            synchronized (events) {
                try {
                    events.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }, seed, writer);
        churn.open();
        out.println("READY");
        churn.loop(() -> false);
    }

    void open() {
        kafko = opener.get();
    }

    Kafko kafko() {
        return kafko;
    }

    void loop(BooleanSupplier stop) {
        while (!stop.getAsBoolean()) {
            step();
        }
    }

    private interface Call {
        void run() throws Exception;
    }

    /** Announces {@code op}, runs it, reports how it ended; false when it threw. */
    private boolean call(String op, Call c) {
        long s = seq++;
        sink.line("B " + s + " " + op + " .");
        try {
            c.run();
        } catch (Exception | Error e) {
            String m = String.valueOf(e.getMessage()).replace('\n', ' ').replace('\r', ' ');
            sink.line("F " + s + " " + e.getClass().getSimpleName() + ": " + m + " .");
            return false;
        }
        sink.line("E " + s + " .");
        return true;
    }

    void step() {
        if (kafko.topic(KEEP).isEmpty()) {
            create(KEEP, keepConfig());
        }
        Set<String> existing = new TreeSet<>(kafko.topics());
        List<String> present = new ArrayList<>();
        List<String> absent = new ArrayList<>();
        for (String n : POOL) {
            (existing.contains(n) ? present : absent).add(n);
        }
        int dice = random.nextInt(100);
        if (dice < 28 && !absent.isEmpty()) {
            create(pick(absent), randomConfig());
        } else if (dice < 45 && !present.isEmpty()) {
            String n = pick(present);
            call("delete " + n, () -> kafko.deleteTopic(n));
        } else if (dice < 55 && !present.isEmpty()) {
            String n = pick(present);
            if (call("delete " + n, () -> kafko.deleteTopic(n))) {
                create(n, randomConfig());
            }
        } else if (dice < 70 && !present.isEmpty()) {
            String n = pick(present);
            Topic t = kafko.topic(n).orElseThrow();
            int to = Math.min(MAX_PARTITIONS, t.partitionCount() + 1 + random.nextInt(3));
            call("grow " + n + " " + to, () -> t.increasePartitions(to));
        } else if (dice < 92) {
            List<String> targets = new ArrayList<>(present);
            targets.add(KEEP);
            commit(pick(targets), GROUPS.get(random.nextInt(GROUPS.size())));
        } else if (dice < 95) {
            call("close", () -> kafko.close());
            call("open", this::open);
        }
        send(KEEP, 1 + random.nextInt(20));
        existing = new TreeSet<>(kafko.topics());
        existing.remove(KEEP);
        if (!existing.isEmpty()) {
            send(pick(new ArrayList<>(existing)), 1 + random.nextInt(10));
        }
    }

    private String pick(List<String> from) {
        return from.get(random.nextInt(from.size()));
    }

    private TopicConfig randomConfig() {
        TopicConfig.Builder b = TopicConfig.builder().partitions(1 + random.nextInt(6))
                .compression(CODECS[random.nextInt(CODECS.length)])
                .fsync(FsyncPolicy.parse(FSYNCS[random.nextInt(FSYNCS.length)]))
                .segmentBytes(random.nextBoolean() ? 1024 : 64 * 1024);
        if (random.nextInt(4) == 0) {
            b.retention(Duration.ofMillis(300));
        }
        return b.build();
    }

    private void create(String name, TopicConfig c) {
        call("create " + name + " " + describe(c), () -> kafko.createTopic(name, c));
    }

    /** partitions codec fsync segmentBytes retentionMillis (-1: none), as {@link AdminCrashTest} parses them. */
    static String describe(TopicConfig c) {
        return c.partitions() + " " + c.compression() + " " + c.fsync() + " " + c.segmentBytes() + " "
                + (c.retention() == null ? -1 : c.retention().toMillis());
    }

    private void commit(String topic, String group) {
        Topic t = kafko.topic(topic).orElseThrow();
        Map<Integer, Long> offsets = new TreeMap<>();
        for (PartitionInfo p : t.partitions()) {
            if (random.nextInt(3) > 0) {
                offsets.put(p.partition(), p.endOffset());
            }
        }
        if (offsets.isEmpty()) {
            offsets.put(0, t.partition(0).endOffset());
        }
        StringBuilder sb = new StringBuilder();
        offsets.forEach((p, o) -> sb.append(sb.length() == 0 ? "" : ",").append(p).append(':').append(o));
        call("commit " + topic + " " + group + " " + sb, () -> {
            try (Consumer c = kafko.groupConsumer(topic, group,
                    ConsumerOptions.DEFAULTS.withPartitions(offsets.keySet()))) {
                c.commit(offsets);
            }
        });
    }

    private void send(String topic, int records) {
        Topic t = kafko.topic(topic).orElse(null);
        if (t == null) {
            return;
        }
        var producer = kafko.producer(topic);
        for (int i = 0; i < records; i++) {
            byte[] key = Workload.key(writer, sendSeq++);
            byte[] value = Workload.value(key);
            RecordPosition pos = producer.send(key, value).join();
            sink.line("A " + topic + " " + pos.partition() + " " + pos.offset() + " "
                    + new String(key, StandardCharsets.US_ASCII) + " " + Workload.checksum(value) + " .");
        }
    }
}
