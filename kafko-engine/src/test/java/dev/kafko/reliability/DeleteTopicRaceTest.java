package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.InterruptException;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.log.LogBridge;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code deleteTopic} and {@code createTopic} of the same name, from two admin threads, racing multi-partition
 * {@code sendBatch}, polls, commits, {@code seekToTimestamp} and the other seeks, {@code groupInfo}, {@code groups},
 * {@code committed}, and {@code increasePartitions} through a handle kept from before the deletion; with no room
 * in the mapping budget, so that sealed segments are read through channels opened at the read (as in a log beyond
 * the budget), and with interrupts and wake-ups of the callers at seeded moments. The only failures allowed: a
 * deleted topic's {@link UnknownTopicException}, a create refused with {@link TopicExistsException} because the
 * other admin thread created the name first, and a poll's {@link InterruptException}. No call may hang, and no
 * thread is left after close.
 */
class DeleteTopicRaceTest {

    private static final long RUN_MILLIS = 3_000;

    @TempDir
    Path tmp;

    final Map<String, String> unexpected = new ConcurrentHashMap<>();
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicInteger deletions = new AtomicInteger();

    @AfterEach
    void restoreTheMappingLimit() {
        LogBridge.setMappingLimit(-1);
    }

    void record(String who, Throwable t) {
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (c instanceof UnknownTopicException || c instanceof InterruptException
                || c instanceof InterruptedException) { // (the last: the test's own sleeps)
            return;
        }
        java.io.StringWriter sw = new java.io.StringWriter();
        c.printStackTrace(new java.io.PrintWriter(sw));
        unexpected.putIfAbsent(who + ": " + c.getClass().getName(), sw.toString());
    }

    static TopicConfig config() {
        return TopicConfig.builder().partitions(3).segmentBytes(1024).build();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyCallRacingDeleteAndRecreateFailsOnlyAsDocumented(long seed) throws Exception {
        Set<Thread> threadsBefore = Workload.kafkoThreadSet();
        LogBridge.setMappingLimit(0);
        Kafko k = Kafko.open(tmp.resolve("data"), KafkoOptions.builder().build());
        k.createTopic("t", config());
        List<Thread> workers = new ArrayList<>();
        workers.add(loop("batcher", seed, k, this::batches));
        workers.add(loop("anonymous", seed, k, this::anonymous));
        workers.add(loop("member", seed, k, this::member));
        workers.add(loop("inspector", seed, k, this::inspect));
        workers.add(loop("grower", seed, k, this::grow));
        List<Thread> admins = new ArrayList<>();
        for (int a = 0; a < 2; a++) {
            SplittableRandom random = new SplittableRandom(seed * 7 + a);
            admins.add(Workload.start("race-admin-" + a, () -> {
                while (!stop.get()) {
                    try {
                        Thread.sleep(5 + random.nextInt(30));
                        if (random.nextBoolean()) {
                            k.deleteTopic("t");
                            deletions.incrementAndGet();
                        } else {
                            k.createTopic("t", config());
                        }
                    } catch (UnknownTopicException | TopicExistsException e) {
                        // the other admin thread was first
                    } catch (InterruptedException e) {
                        return;
                    } catch (Throwable t) {
                        record("admin", t);
                    }
                }
            }));
        }
        SplittableRandom chaos = new SplittableRandom(seed);
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);
        while (System.nanoTime() < end) {
            Thread.sleep(20 + chaos.nextInt(40));
            workers.get(chaos.nextInt(workers.size())).interrupt();
        }
        stop.set(true);
        for (Thread t : admins) {
            t.join(10_000);
            assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
        }
        for (Thread t : workers) {
            t.join(10_000);
            assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
        }
        k.close();
        System.out.printf("seed %d: %d deletions%n", seed, deletions.get());
        unexpected.forEach((w, s) -> System.err.println(w + "\n" + s));
        assertThat(unexpected.keySet()).as("unexpected failures").isEmpty();
        Workload.awaitKafkoThreadsEnded(threadsBefore);
    }

    interface Step {
        void run(Kafko k, SplittableRandom random, Supplier<Boolean> stopped) throws Exception;
    }

    private Thread loop(String name, long seed, Kafko k, Step step) {
        SplittableRandom random = new SplittableRandom(seed ^ name.hashCode());
        return Workload.start("race-" + name, () -> {
            while (!stop.get()) {
                Thread.interrupted(); // each interrupt of the chaos is for the call it lands in
                try {
                    step.run(k, random, stop::get);
                } catch (Throwable t) {
                    record(name, t);
                }
            }
        });
    }

    private void batches(Kafko k, SplittableRandom random, Supplier<Boolean> stopped) {
        Producer p = k.producer("t");
        while (!stopped.get()) {
            List<OutgoingRecord> batch = new ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(20); i++) {
                batch.add(OutgoingRecord.of(("k" + random.nextInt(50)).getBytes(), new byte[60]));
            }
            try {
                p.sendBatch(batch).join();
            } catch (CompletionException e) {
                record("sendBatch future", e);
                if (e.getCause() instanceof UnknownTopicException) {
                    return;
                }
            }
            if (random.nextInt(8) == 0) {
                p.flush();
            }
        }
    }

    private void anonymous(Kafko k, SplittableRandom random, Supplier<Boolean> stopped) {
        try (Consumer c = k.consumer("t")) {
            while (!stopped.get()) {
                switch (random.nextInt(6)) {
                    case 0 -> c.seekToTimestamp(random.nextInt(2) == 0 ? 0 : System.currentTimeMillis() - 50);
                    case 1 -> c.seekToBeginning();
                    case 2 -> c.seekToEnd();
                    case 3 -> c.seekToTimestamp(0, 0);
                    default -> c.poll(Duration.ofMillis(random.nextInt(10)));
                }
            }
        }
    }

    private void member(Kafko k, SplittableRandom random, Supplier<Boolean> stopped) {
        try (Consumer c = k.groupConsumer("t", "g")) {
            while (!stopped.get()) {
                c.poll(Duration.ofMillis(random.nextInt(10)));
                switch (random.nextInt(4)) {
                    case 0 -> c.commit();
                    case 1 -> c.seekToTimestamp(0);
                    case 2 -> c.committed(0);
                    default -> c.assignment().forEach(c::position);
                }
            }
        }
    }

    private void inspect(Kafko k, SplittableRandom random, Supplier<Boolean> stopped) {
        while (!stopped.get()) {
            k.groupInfo("t", "g");
            k.groups("t");
            k.topic("t").ifPresent(Topic::partitions);
            k.producer("t").partitionFor(new byte[] {1});
        }
    }

    private void grow(Kafko k, SplittableRandom random, Supplier<Boolean> stopped) throws InterruptedException {
        Topic t = k.topic("t").orElse(null);
        if (t == null) {
            Thread.sleep(1);
            return;
        }
        while (!stopped.get()) {
            Thread.sleep(10 + random.nextInt(30));
            int n = t.partitionCount();
            if (n < 8) {
                t.increasePartitions(n + 1); // through the handle: UnknownTopicException once it was deleted
            }
        }
    }
}
