package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.InterruptException;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Segments rolling every few records (so background seals run all the time) on an {@code EVERY_BATCH}, a
 * {@code NEVER} and an {@code interval} topic, under senders (single sends and batches), a thread calling
 * {@code flush()} in a loop and a committing group member, with interrupts and wake-ups at seeded moments;
 * {@code Kafko.close()} comes at a seeded moment from a third thread, or from a send's callback. Checked: every
 * call ends (no hang), the only failures are {@link KafkoClosedException} and the documented
 * {@link InterruptException}s (a flush or a poll, or a send that waited for room), every send future completes, no
 * kafko thread is left after close, and after a reopen every acknowledged record is at its offset, each partition's
 * offsets run from 0 without a gap, and each committed offset lies within its partition.
 */
class CloseUnderRollsAndFlushesTest {

    private static final String[] TOPICS = {"eb", "nv", "iv"};

    @TempDir
    Path tmp;

    final ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
    /** "topic/partition" → offset → value. */
    final Map<String, Map<Long, String>> acked = new ConcurrentHashMap<>();
    final ConcurrentLinkedQueue<CompletableFuture<?>> futures = new ConcurrentLinkedQueue<>();
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong acks = new AtomicLong();

    void unexpected(String who, Throwable t) {
        Workload.collectUnexpected(unexpected, who, t, KafkoClosedException.class, InterruptException.class);
    }

    @ParameterizedTest
    @CsvSource({"31, thread", "32, callback", "33, thread", "34, callback", "35, thread", "36, callback"})
    @Timeout(value = 40, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aCloseRacingRollsSealsFlushesAndEveryBatchSendersLosesNoAcknowledgedRecord(long seed, String from)
            throws Exception {
        Set<Thread> threadsBefore = Workload.kafkoThreadSet();
        SplittableRandom chaos = new SplittableRandom(seed);
        Path dir = tmp.resolve("data");
        Kafko k = Kafko.open(dir, KafkoOptions.builder().build());
        k.createTopic("eb", TopicConfig.builder().partitions(2).segmentBytes(2048).fsync(FsyncPolicy.EVERY_BATCH).build());
        k.createTopic("nv", TopicConfig.builder().partitions(2).segmentBytes(2048).build());
        k.createTopic("iv", TopicConfig.builder().partitions(2).segmentBytes(2048)
                .fsync(FsyncPolicy.interval(Duration.ofMillis(3))).build());
        long closeAtAck = 200 + chaos.nextInt(3000);
        CompletableFuture<Void> closedFromCallback = new CompletableFuture<>();
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < TOPICS.length; s++) {
            String topic = TOPICS[s];
            SplittableRandom random = new SplittableRandom(seed * 7 + s);
            threads.add(Workload.start("close-sender-" + topic, () -> send(k, topic, random,
                    from.equals("callback") ? closeAtAck : -1, closedFromCallback)));
        }
        threads.add(Workload.start("close-flusher", () -> {
            while (!stop.get()) {
                Thread.interrupted();
                try {
                    for (String t : TOPICS) {
                        k.producer(t).flush();
                    }
                } catch (Throwable t) {
                    unexpected("flush", t);
                    if (t instanceof KafkoClosedException) {
                        return;
                    }
                }
            }
        }));
        threads.add(Workload.start("close-member", () -> member(k)));
        long closeAfter = 30 + chaos.nextInt(500);
        long start = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(closeAfter)
                && !closedFromCallback.isDone()) {
            Thread.sleep(3);
            if (chaos.nextInt(4) == 0) {
                threads.get(chaos.nextInt(threads.size())).interrupt();
            }
        }
        if (from.equals("thread")) {
            Thread closer = Workload.start("close-third-thread", k::close);
            closer.join(20_000);
            assertThat(closer.isAlive()).as("close from a third thread returned").isFalse();
        } else {
            try {
                closedFromCallback.get(20, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                unexpected("close from a callback", e.getCause());
            } catch (java.util.concurrent.TimeoutException e) {
                // the senders did not reach the ack count: close here
            }
        }
        k.close(); // a second close waits for the first
        stop.set(true);
        for (Thread t : threads) {
            t.join(15_000);
            assertThat(t.isAlive()).as("%s ended after close", t.getName()).isFalse();
        }
        for (CompletableFuture<?> f : futures) {
            try {
                f.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                unexpected("send future", e.getCause());
            }
        }
        System.out.printf("seed %d close from %s after %d ms / ack %d: %d acknowledged%n", seed, from, closeAfter,
                closeAtAck, acks.get());
        assertThat(unexpected).as("unexpected").isEmpty();
        Workload.awaitKafkoThreadsEnded(threadsBefore);
        verifyAfterReopen(dir);
    }

    private void send(Kafko k, String topic, SplittableRandom random, long closeAtAck,
                      CompletableFuture<Void> closedFromCallback) {
        try {
            Producer p = k.producer(topic);
            for (long seq = 0; !stop.get(); seq++) {
                Thread.interrupted();
                if (random.nextInt(5) == 0) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    List<String> texts = new ArrayList<>();
                    for (int i = 0; i < 1 + random.nextInt(12); i++) {
                        String text = topic + "-b" + seq + "-" + i + "x".repeat(random.nextInt(200));
                        texts.add(text);
                        batch.add(OutgoingRecord.of(null, text.getBytes(StandardCharsets.UTF_8)));
                    }
                    CompletableFuture<List<RecordPosition>> f = p.sendBatch(batch);
                    futures.add(f.exceptionally(e -> {
                        unexpected("sendBatch " + topic, e);
                        return null;
                    }).thenAccept(positions -> {
                        if (positions != null) {
                            for (int i = 0; i < positions.size(); i++) {
                                ack(k, topic, positions.get(i), texts.get(i), closeAtAck, closedFromCallback);
                            }
                        }
                    }));
                    if (random.nextBoolean()) {
                        f.exceptionally(e -> null).join();
                    }
                } else {
                    String text = topic + "-s" + seq + "x".repeat(random.nextInt(200));
                    CompletableFuture<RecordPosition> f = p.send(null, text.getBytes(StandardCharsets.UTF_8));
                    futures.add(f.handle((pos, e) -> {
                        if (e != null) {
                            unexpected("send " + topic, e);
                        } else {
                            ack(k, topic, pos, text, closeAtAck, closedFromCallback);
                        }
                        return null;
                    }));
                    if (random.nextInt(8) == 0) {
                        f.exceptionally(e -> null).join();
                    }
                }
            }
        } catch (Throwable t) {
            unexpected("sender " + topic, t);
        }
    }

    private void ack(Kafko k, String topic, RecordPosition pos, String text, long closeAtAck,
                     CompletableFuture<Void> closedFromCallback) {
        acked.computeIfAbsent(topic + "/" + pos.partition(), x -> new ConcurrentHashMap<>()).put(pos.offset(), text);
        if (acks.incrementAndGet() == closeAtAck) {
            try {
                k.close(); // from a send's callback
                closedFromCallback.complete(null);
            } catch (Throwable t) {
                closedFromCallback.completeExceptionally(t);
            }
        }
    }

    private void member(Kafko k) {
        try (Consumer c = k.groupConsumer("eb", "g")) {
            while (!stop.get()) {
                Thread.interrupted();
                try {
                    List<KafkoRecord> records = c.poll(Duration.ofMillis(5));
                    if (!records.isEmpty()) {
                        c.commit();
                    }
                } catch (InterruptException e) {
                    // documented
                }
            }
        } catch (Throwable t) {
            unexpected("member", t);
        }
    }

    private void verifyAfterReopen(Path dir) {
        try (Kafko k = Kafko.open(dir)) {
            for (String topic : TOPICS) {
                Map<Integer, TreeMap<Long, String>> read = new TreeMap<>();
                long ends = k.topic(topic).orElseThrow().partitions().stream().mapToLong(p -> p.endOffset()).sum();
                long total = 0;
                try (Consumer c = k.consumer(topic)) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (total < ends && System.nanoTime() < deadline) {
                        for (KafkoRecord r : c.poll(Duration.ofMillis(50))) {
                            read.computeIfAbsent(r.partition(), x -> new TreeMap<>())
                                    .put(r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                            total++;
                        }
                    }
                }
                assertThat(total).as("%s: records read after reopen", topic).isEqualTo(ends);
                read.forEach((p, records) -> {
                    long expected = 0;
                    for (long offset : records.keySet()) {
                        assertThat(offset).as("%s-%d: offsets without a gap", topic, p).isEqualTo(expected++);
                    }
                });
                acked.forEach((key, records) -> {
                    if (key.startsWith(topic + "/")) {
                        int p = Integer.parseInt(key.substring(key.indexOf('/') + 1));
                        records.forEach((offset, value) -> assertThat(read.getOrDefault(p, new TreeMap<>()).get(offset))
                                .as("after reopen %s-%d offset %d", topic, p, offset).isEqualTo(value));
                    }
                });
            }
            var info = k.groupInfo("eb", "g");
            info.committed().forEach((p, offset) -> assertThat(offset).as("commit of eb-%d", p)
                    .isLessThanOrEqualTo(k.topic("eb").orElseThrow().partition(p).endOffset()));
        }
    }
}
