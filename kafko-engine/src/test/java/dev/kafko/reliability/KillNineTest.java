package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILLs a producing, committing child JVM ({@link CrashingProducer}) at seeded random moments,
 * reopens the directory after each kill and checks it with {@link LogVerifier}. One directory
 * accumulates every round, so later rounds also recover what earlier kills left.
 */
class KillNineTest {

    private static final long SEED = Workload.seed("kafko.kill.seed", 0x5EED_0009L);

    @TempDir
    Path dir;

    @Test
    void killNineNeverLosesAnAcknowledgedRecordOrCommit() throws Exception {
        run("never", 5, SEED);
    }

    @Test
    void killNineUnderEveryBatchFsyncNeverLosesAnAcknowledgedRecordOrCommit() throws Exception {
        run("every-batch", 5, SEED + 1);
    }

    @Test
    void killNineInAThrowawayDirectoryNeverLosesAnAcknowledgedRecordOrCommit() throws Exception {
        // fsyncMetadata(false): rolled segments are sealed without an fsync, the page cache keeps them
        run("never-throwaway", 5, SEED + 4);
    }

    @Test
    @Tag("stress")
    void fiftyKillsNeverLoseAnAcknowledgedRecordOrCommit() throws Exception {
        run("never", 50, SEED + 2);
    }

    @Test
    @Tag("stress")
    void fiftyKillsUnderEveryBatchFsyncNeverLoseAnAcknowledgedRecordOrCommit() throws Exception {
        run("every-batch", 50, SEED + 3);
    }

    @Test
    @Tag("stress")
    void fiftyKillsInAThrowawayDirectoryNeverLoseAnAcknowledgedRecordOrCommit() throws Exception {
        run("never-throwaway", 50, SEED + 5);
    }

    private void run(String fsync, int kills, long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        List<Ack> acked = new ArrayList<>();
        Map<Integer, Long> commits = new HashMap<>();
        long started = System.nanoTime();
        LogVerifier.Figures last = null;
        for (int round = 0; round < kills; round++) {
            long delayMillis = 50 + random.nextLong(1200);
            Round r = killOnce("w" + round, fsync, delayMillis);
            acked.addAll(r.acked());
            r.commits().forEach((p, o) -> commits.merge(p, o, Math::max));
            last = LogVerifier.verify(dir, acked, commits, CrashingProducer.GROUP);
            System.out.printf("kill-9 %s seed=%d round=%d delay=%dms acked=%d (total %d) records=%d commits=%s%n",
                    fsync, seed, round, delayMillis, r.acked().size(), acked.size(), last.records(), commits);
        }
        System.out.printf("kill-9 %s: %d kills, %d acknowledged records checked, %d records on disk, %.1f s%n",
                fsync, kills, acked.size(), last.records(), (System.nanoTime() - started) / 1e9);
        assertThat(acked).as("the children acknowledged records").isNotEmpty();
    }

    private record Round(List<Ack> acked, Map<Integer, Long> commits) {
    }

    private Round killOnce(String writer, String fsync, long delayMillis) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                CrashingProducer.class.getName(), dir.toString(), writer, fsync)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<Ack> acked = new ArrayList<>();
        Map<Integer, Long> commits = new HashMap<>();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> readLines(child, acked, commits, ready), "kill-9-reader");
        reader.start();
        ChildKill.afterReady(child, ready, delayMillis, reader);
        assertThat(child.exitValue()).as("killed by SIGKILL (128 + 9)").isEqualTo(137);
        synchronized (acked) {
            return new Round(List.copyOf(acked), Map.copyOf(commits));
        }
    }

    private static void readLines(Process child, List<Ack> acked, Map<Integer, Long> commits,
            CompletableFuture<Void> ready) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.US_ASCII))) {
            for (String line; (line = in.readLine()) != null; ) {
                synchronized (acked) {
                    Ack a = Ack.parse(line);
                    if (a != null) {
                        acked.add(a);
                    } else if (line.equals("READY")) {
                        ready.complete(null);
                    } else if (line.startsWith("COMMIT ") && line.endsWith(" .")) {
                        String[] f = line.split(" ");
                        commits.merge(Integer.parseInt(f[1]), Long.parseLong(f[2]), Math::max);
                    }
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        ready.completeExceptionally(new IllegalStateException("child ended before READY"));
    }
}
