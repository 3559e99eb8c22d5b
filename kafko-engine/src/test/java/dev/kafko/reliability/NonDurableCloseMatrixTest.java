package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.CapturedWarnings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code durableClose(false)} log opened again (not deleted): every record (key, value, header, timestamp, time
 * index) and commit is there for every codec, fsync policy and {@code fsyncMetadata}, over segments that roll, with
 * sends pending at the close, after a reopen that was itself closed non-durably and one closed durably, with no
 * warning; and the close is idempotent, concurrent, callable from a send callback or an observer, and leaves no thread.
 */
class NonDurableCloseMatrixTest {

    @TempDir
    Path tmp;

    record Mode(Compression compression, FsyncPolicy fsync, boolean fsyncMetadata) {
    }

    @Test
    void everyModeReopensWithEveryRecordAndCommitTwice() throws Exception {
        List<String> problems = new ArrayList<>();
        int n = 0;
        for (Compression c : Compression.values()) {
            for (FsyncPolicy f : List.of(FsyncPolicy.NEVER, FsyncPolicy.EVERY_BATCH,
                    FsyncPolicy.interval(Duration.ofMillis(20)))) {
                for (boolean meta : new boolean[] {true, false}) {
                    Mode m = new Mode(c, f, meta);
                    Path dir = tmp.resolve("m" + n++);
                    List<String> warnings = new ArrayList<>();
                    try (CapturedWarnings w = CapturedWarnings.ofLogLoader();
                         CapturedWarnings g = CapturedWarnings.of("dev.kafko.internal.broker.GroupOffsetsFile");
                         CapturedWarnings b = CapturedWarnings.of("dev.kafko.internal.broker.Broker")) {
                        roundTrip(m, dir, problems);
                        warnings.addAll(w.lines());
                        warnings.addAll(g.lines());
                        warnings.addAll(b.lines());
                    }
                    if (!warnings.isEmpty()) {
                        problems.add(m + " warnings: " + warnings);
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    private static final int PER_ROUND = 400;

    private void roundTrip(Mode m, Path dir, List<String> problems) throws Exception {
        KafkoOptions nonDurable = KafkoOptions.builder().durableClose(false).fsyncMetadata(m.fsyncMetadata()).build();
        TopicConfig config = TopicConfig.builder().partitions(3).compression(m.compression()).fsync(m.fsync())
                .segmentBytes(4096).build();
        Map<Integer, Long> committed = new HashMap<>();
        // round 1 creates, round 2 reopens and appends (active segments from a crash-recovered open), round 3 after a
        // durable close in between
        for (int round = 0; round < 3; round++) {
            Kafko kafko = Kafko.open(dir, round == 2 ? KafkoOptions.DEFAULTS : nonDurable);
            if (round == 0) {
                kafko.createTopic("t", config);
            }
            Producer p = kafko.producer("t");
            List<CompletableFuture<RecordPosition>> pending = new ArrayList<>();
            for (int i = 0; i < PER_ROUND; i++) {
                int id = round * PER_ROUND + i;
                pending.add(p.send(OutgoingRecord.of(bytes("k" + id), bytes("v" + id),
                        Headers.of(new Header("h", bytes("x" + id))), 1_000_000L + id)));
                if (i == PER_ROUND / 2) {
                    CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
                    try (Consumer group = kafko.groupConsumer("t", "g")) {
                        int want = round * PER_ROUND + i + 1;
                        int read = 0;
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (System.nanoTime() < deadline) {
                            read += group.poll(Duration.ofMillis(200)).size();
                            long total = 0;
                            for (int part = 0; part < 3; part++) {
                                total += kafko.topic("t").orElseThrow().partition(part).endOffset();
                            }
                            if (total >= want && group.poll(Duration.ZERO).isEmpty() && read > 0) {
                                break;
                            }
                        }
                        group.commit();
                        for (int part : group.assignment()) {
                            committed.put(part, group.committed(part).orElse(-1));
                        }
                    }
                }
            }
            kafko.close();
            for (CompletableFuture<RecordPosition> f : pending) {
                if (!f.isDone() || f.isCompletedExceptionally()) {
                    problems.add(m + " round " + round + ": a send not completed by close: " + f);
                    break;
                }
            }
            // check everything so far
            try (Kafko re = Kafko.open(dir, KafkoOptions.builder().durableClose(false).build())) {
                int expected = (round + 1) * PER_ROUND;
                Map<String, KafkoRecord> byValue = new HashMap<>();
                try (Consumer c = re.consumer("t")) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (byValue.size() < expected && System.nanoTime() < deadline) {
                        for (KafkoRecord r : c.poll(Duration.ofMillis(200))) {
                            byValue.put(new String(r.value(), StandardCharsets.UTF_8), r);
                        }
                    }
                }
                if (byValue.size() != expected) {
                    problems.add(m + " round " + round + ": " + byValue.size() + " records of " + expected);
                }
                for (int id = 0; id < expected; id++) {
                    KafkoRecord r = byValue.get("v" + id);
                    if (r == null) {
                        continue;
                    }
                    if (r.timestamp() != 1_000_000L + id || !new String(r.key(), StandardCharsets.UTF_8).equals("k" + id)
                            || !new String(r.headers().lastValue("h"), StandardCharsets.UTF_8).equals("x" + id)) {
                        problems.add(m + " round " + round + ": record v" + id + " changed: " + r);
                    }
                }
                try (Consumer c = re.consumer("t")) {
                    c.poll(Duration.ZERO);
                    c.seekToTimestamp(1_000_000L + expected - 3);
                    List<KafkoRecord> got = c.poll(Duration.ofSeconds(2));
                    Set<String> values = got.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8))
                            .collect(Collectors.toSet());
                    if (!values.contains("v" + (expected - 1))) {
                        problems.add(m + " round " + round + ": seekToTimestamp found " + values);
                    }
                }
                try (Consumer group = re.groupConsumer("t", "g")) {
                    group.poll(Duration.ZERO);
                    for (Map.Entry<Integer, Long> e : committed.entrySet()) {
                        long got = group.committed(e.getKey()).orElse(-1);
                        if (got != e.getValue()) {
                            problems.add(m + " round " + round + ": partition " + e.getKey() + " committed " + got
                                    + ", was " + e.getValue());
                        }
                    }
                }
            }
        }
    }

    /** Close twice, concurrently, from a send callback and an observer: no thread of kafko's outlives it. */
    @Test
    void closeIsIdempotentAndLeavesNoThread() throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        KafkoOptions nonDurable = KafkoOptions.builder().durableClose(false).build();
        // concurrent and repeated
        Kafko kafko = Kafko.open(tmp.resolve("a"), nonDurable);
        kafko.createTopic("t", TopicConfig.builder().partitions(200).build());
        for (int i = 0; i < 1000; i++) {
            kafko.producer("t").send(null, bytes("v" + i));
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> closers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                kafko.close();
            });
            t.start();
            closers.add(t);
        }
        go.countDown();
        for (Thread t : closers) {
            t.join(20_000);
        }
        kafko.close();
        // from a send's callback
        Kafko k2 = Kafko.open(tmp.resolve("b"), nonDurable);
        k2.createTopic("t");
        CompletableFuture<Void> closedInCallback = k2.producer("t").send(null, bytes("x"))
                .thenAccept(rp -> k2.close());
        closedInCallback.get(20, TimeUnit.SECONDS);
        k2.close();
        // from an observer
        CompletableFuture<Kafko> holder = new CompletableFuture<>();
        KafkoOptions observed = nonDurable.toBuilder().observer(new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                holder.join().close();
            }
        }).build();
        Kafko k3 = Kafko.open(tmp.resolve("c"), observed);
        holder.complete(k3);
        k3.createTopic("t");
        k3.producer("t").send(null, bytes("y")).get(20, TimeUnit.SECONDS);
        k3.close();
        Thread.sleep(200);
        List<String> left = Thread.getAllStackTraces().keySet().stream().filter(t -> !before.contains(t))
                .filter(Thread::isAlive).map(Thread::getName).filter(name -> name.startsWith("kafko")).toList();
        assertThat(left).isEmpty();
        for (String d : List.of("a", "b", "c")) {
            try (Kafko re = Kafko.open(tmp.resolve(d))) {
                long total = 0;
                for (var p : re.topic("t").orElseThrow().partitions()) {
                    total += p.endOffset();
                }
                assertThat(total).as(d).isEqualTo(d.equals("a") ? 1000 : 1);
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
