package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Application threads interrupted while they do kafko's file work: an uncontended send runs its
 * partition's writes and fsyncs on the sender's thread, a commit writes the group's offsets file on
 * the consumer's. A {@code FileChannel} closes itself when a thread blocked in it is interrupted
 * ({@code ExecutorService.shutdownNow()} does exactly that); that must neither fail the partition
 * or the group for everyone nor lose a record, and the thread keeps its interrupt.
 */
class InterruptedThreadsTest {

    private static final int SENDERS = 6;

    @TempDir
    Path dir;

    @Test
    void interruptedSendersUnderEveryBatchNeitherFailThePartitionNorLoseAnAckedRecord() throws Exception {
        Set<String> acked = ConcurrentHashMap.newKeySet();
        List<Throwable> failures = new ArrayList<>();
        AtomicInteger keptInterrupts = new AtomicInteger();
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = k.producer("t");
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> senders = new ArrayList<>();
            for (int s = 0; s < SENDERS; s++) {
                int sender = s;
                senders.add(new Thread(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        String value = sender + "-" + i;
                        try {
                            p.send(bytes(value), bytes(value)).join();
                            acked.add(value);
                        } catch (CompletionException e) {
                            synchronized (failures) {
                                failures.add(e.getCause());
                            }
                        }
                        if (Thread.interrupted()) {
                            keptInterrupts.incrementAndGet();
                        }
                    }
                }, "sender-" + s));
            }
            senders.forEach(Thread::start);
            // interrupts land inside fdatasyncs and writes, as shutdownNow() delivers them
            for (int round = 0; round < 300; round++) {
                senders.forEach(Thread::interrupt);
                Thread.sleep(1);
            }
            stop.set(true);
            for (Thread t : senders) {
                t.join();
            }
            assertThat(failures).isEmpty();
            assertThat(keptInterrupts.get()).as("interrupts the senders saw").isPositive();
            k.topic("t").orElseThrow().partitions().forEach(info -> assertThat(info.state()).isEqualTo(PartitionState.RUNNING));
            p.send(bytes("after"), bytes("after")).join();
            acked.add("after");
        }
        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
            Set<String> read = new HashSet<>();
            for (List<KafkoRecord> batch = c.poll(Duration.ZERO); !batch.isEmpty(); batch = c.poll(Duration.ZERO)) {
                batch.forEach(r -> read.add(new String(r.value(), StandardCharsets.UTF_8)));
            }
            Set<String> missing = new HashSet<>(acked); // a set difference: AssertJ's containsAll scans per element,
            missing.removeAll(read); // which took 5 minutes over 73,000 records
            assertThat(missing).as("acknowledged but not stored").isEmpty();
        }
    }

    @Test
    void aConsumerInterruptedWhileItCommitsKeepsCommitting() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 2_000; i++) {
                p.send(null, ("v" + i).getBytes(StandardCharsets.UTF_8));
            }
            p.send(null, "last".getBytes(StandardCharsets.UTF_8)).join();
            AtomicBoolean stop = new AtomicBoolean();
            List<Throwable> failures = new ArrayList<>();
            AtomicInteger keptInterrupts = new AtomicInteger();
            Thread committer = new Thread(() -> {
                try (Consumer c = k.groupConsumer("t", "g")) {
                    for (long offset = 1; !stop.get() && offset <= 2_001; offset++) {
                        try {
                            c.commit(Map.of(0, offset));
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                        if (Thread.interrupted()) {
                            keptInterrupts.incrementAndGet();
                        }
                    }
                }
            }, "committer");
            committer.start();
            while (committer.isAlive()) {
                committer.interrupt();
                Thread.sleep(0, 200_000);
            }
            assertThat(failures).isEmpty();
            assertThat(keptInterrupts.get()).isPositive();
        }
        try (Kafko k = Kafko.open(dir); Consumer c = k.groupConsumer("t", "g")) {
            assertThat(c.committed(0)).hasValue(2_001);
        }
    }

    /**
     * A thread interrupted over and over while it closes the instance (every 200 µs, as a pool's
     * {@code shutdownNow} racing an application's shutdown might): the close neither throws nor leaves the
     * partitions unclean nor its process's owner record in the lock file, which would keep every other
     * process out of the directory for as long as this JVM lives; the thread keeps its interrupt.
     */
    @Test
    void aCloseInterruptedOverAndOverFinishesCleanlyAndFreesTheDirectoryForOtherProcesses() throws Exception {
        int sent = 0;
        for (int round = 0; round < 12; round++) {
            Kafko k = Kafko.open(dir);
            if (round == 0) {
                k.createTopic("t", TopicConfig.builder().partitions(2).fsync(FsyncPolicy.NEVER).build());
            }
            Producer p = k.producer("t");
            for (int i = 0; i < 200; i++) {
                p.send(null, bytes(round + "-" + i));
            }
            sent += 200;
            List<Throwable> thrown = new ArrayList<>();
            AtomicBoolean interruptKept = new AtomicBoolean();
            Thread closer = new Thread(() -> {
                try {
                    k.close();
                } catch (Throwable t) {
                    thrown.add(t);
                }
                interruptKept.set(Thread.currentThread().isInterrupted());
            }, "closer");
            closer.start();
            while (closer.isAlive()) {
                closer.interrupt();
                java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            }
            assertThat(thrown).as("what close() threw in round %d", round).isEmpty();
            assertThat(interruptKept).isTrue();
            assertThat(java.nio.file.Files.readString(dir.resolve(".lock"))).as("owner record after close").isEmpty();
        }
        // another process opens it
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process probe = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                dev.kafko.LockProbe.class.getName(), dir.toString()).redirectErrorStream(true).start();
        assertThat(probe.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(probe.exitValue()).as(new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()
                    + k.topic("t").orElseThrow().partition(1).endOffset()).isEqualTo(sent);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
