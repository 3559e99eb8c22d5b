package dev.kafko.tryout;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Compression;
import dev.kafko.Headers;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durability contract's middle column: a JVM killed with {@code kill -9} in the middle of a load of keyed sends,
 * commits of a group member going on, loses nothing acknowledged; per key the records stay in send order, and the
 * group resumes from (at least) the last commit that returned.
 */
class KillNineTryoutTest {

    private static final int PARTITIONS = 4;
    private static final int WRITERS = 3;
    private static final int KEYS_PER_WRITER = 8;

    @TempDir
    Path dir;

    /**
     * The child: writers send keyed records asynchronously and print each acknowledgement, a member polls and
     * commits and prints its commits, an operator keeps switching the codec and the segment size.
     */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, UTF_8);
        Kafko k = Kafko.open(Path.of(args[0]));
        k.createTopic("inventory", TopicConfig.builder().partitions(PARTITIONS).segmentBytes(64 * 1024).build());
        Producer p = k.producer("inventory");
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Thread t = new Thread(() -> {
                Semaphore inFlight = new Semaphore(64);
                for (long seq = 0; ; seq++) {
                    String key = "sku-" + writer + "-" + (seq % KEYS_PER_WRITER);
                    long n = seq / KEYS_PER_WRITER;
                    inFlight.acquireUninterruptibly();
                    p.send(OutgoingRecord.of(key.getBytes(UTF_8), ("v" + n).getBytes(UTF_8), Headers.of("n", Long.toString(n).getBytes(UTF_8))))
                            .whenComplete((pos, e) -> {
                                inFlight.release();
                                if (e == null) {
                                    out.println("A " + key + " " + n + " " + pos.partition() + " " + pos.offset());
                                }
                            });
                }
            });
            t.start();
        }
        Thread admin = new Thread(() -> {
            Topic topic = k.topic("inventory").orElseThrow();
            Compression[] codecs = Compression.values();
            for (int i = 0; ; i++) {
                topic.alterConfig(topic.config().toBuilder().compression(codecs[i % codecs.length])
                        .segmentBytes(i % 2 == 0 ? 64 * 1024 : 32 * 1024).build());
            }
        });
        admin.start();
        Thread member = new Thread(() -> {
            try (Consumer c = k.groupConsumer("inventory", "projector")) {
                while (true) {
                    c.poll(Duration.ofMillis(10));
                    c.commit();
                    StringBuilder line = new StringBuilder("C");
                    for (int part : c.assignment()) {
                        line.append(' ').append(part).append('=').append(c.committed(part).orElse(0));
                    }
                    out.println(line);
                }
            }
        });
        member.start();
        member.join();
    }

    @Test
    void everyAcknowledgedRecordSurvivesKillNineInOrderPerKeyAndTheGroupResumesFromItsCommits() throws Exception {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), KillNineTryoutTest.class.getName(), dir.toString());
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Map<String, long[]> acked = new HashMap<>(); // "key n" -> {partition, offset}
        Map<Integer, Long> lastCommit = new HashMap<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8))) {
            String line;
            int commits = 0;
            while ((line = in.readLine()) != null) {
                String[] f = line.split(" ");
                if (f[0].equals("A") && f.length == 5) {
                    acked.put(f[1] + " " + f[2], new long[] {Long.parseLong(f[3]), Long.parseLong(f[4])});
                } else if (f[0].equals("C")) {
                    for (int i = 1; i < f.length; i++) {
                        String[] kv = f[i].split("=");
                        if (kv.length == 2) {
                            lastCommit.merge(Integer.parseInt(kv[0]), Long.parseLong(kv[1]), Math::max);
                        }
                    }
                    commits++;
                }
                if (acked.size() >= 20_000 && commits >= 20) {
                    break;
                }
            }
            child.destroyForcibly(); // SIGKILL on Linux
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            child.destroyForcibly();
        }
        assertThat(acked).as("acknowledgements before the kill").hasSizeGreaterThanOrEqualTo(20_000);
        assertThat(lastCommit).isNotEmpty();

        try (Kafko k = Kafko.open(dir)) {
            Map<String, List<Long>> nByKey = new HashMap<>();
            Map<String, long[]> found = new HashMap<>();
            long total = 0;
            for (int part = 0; part < PARTITIONS; part++) {
                total += k.topic("inventory").get().partition(part).endOffset();
            }
            try (Consumer all = k.consumer("inventory", ConsumerOptions.DEFAULTS.withMaxPollRecords(5000))) {
                List<KafkoRecord> records = InventoryTryoutTest.drain(all, (int) total);
                assertThat(records).hasSize((int) total);
                for (KafkoRecord r : records) {
                    String key = new String(r.key(), UTF_8);
                    long n = Long.parseLong(new String(r.headers().lastValue("n"), UTF_8));
                    assertThat(new String(r.value(), UTF_8)).isEqualTo("v" + n);
                    nByKey.computeIfAbsent(key, x -> new ArrayList<>()).add(n);
                    found.put(key + " " + n, new long[] {r.partition(), r.offset()});
                }
            }
            for (Map.Entry<String, long[]> a : acked.entrySet()) {
                assertThat(found.get(a.getKey())).as("acknowledged %s", a.getKey()).containsExactly(a.getValue());
            }
            for (Map.Entry<String, List<Long>> e : nByKey.entrySet()) {
                List<Long> ns = e.getValue();
                for (int i = 0; i < ns.size(); i++) {
                    assertThat(ns.get(i)).as("key %s, record %d", e.getKey(), i).isEqualTo((long) i);
                }
            }
            try (Consumer resumed = k.groupConsumer("inventory", "projector")) {
                for (Map.Entry<Integer, Long> c : lastCommit.entrySet()) {
                    assertThat(resumed.committed(c.getKey())).isPresent();
                    assertThat(resumed.committed(c.getKey()).getAsLong()).isGreaterThanOrEqualTo(c.getValue());
                    assertThat(resumed.position(c.getKey())).isEqualTo(resumed.committed(c.getKey()).getAsLong());
                }
            }
        }
    }
}
