package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends that stream in linger to share a frame, and whoever needs one of them gets it written at
 * once. Most tests set a linger of an hour, so that only those triggers can write a lingering send
 * within the tests' timeouts.
 */
@Timeout(60)
class LingerTest {

    private static final Duration HOUR = Duration.ofHours(1);
    private static final byte[] VALUE = new byte[256];

    @TempDir
    Path dir;

    @Test
    void aStreamOfPipelinedSendsIsWrittenInFewFramesWithConsecutiveOffsets() throws Exception {
        AtomicInteger appends = new AtomicInteger();
        KafkoObserver counting = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                appends.incrementAndGet();
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).observer(counting).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                sent.add(p.send(null, VALUE));
            }
            assertThat(sent.get(sent.size() - 1).get(10, TimeUnit.SECONDS)).isEqualTo(new RecordPosition(0, 1_999));
            for (int i = 0; i < sent.size(); i++) {
                assertThat(sent.get(i)).isCompletedWithValue(new RecordPosition(0, i));
            }
            // 2,000 records of 256 bytes fill a 64 KiB frame about every 230; a pause of the test thread
            // longer than the stream gap writes a send alone, so allow many of those
            assertThat(appends.get()).isBetween(1, 200);
        }
    }

    @Test
    void coalescedSendsNeverMakeASegmentLargerThanItsSize() throws Exception {
        long segmentBytes = 16 * 1024;
        AtomicLong largestAppend = new AtomicLong();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                largestAppend.accumulateAndGet(bytes, Math::max);
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).observer(observer).build())) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(segmentBytes).build());
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> last = null;
            for (int i = 0; i < 2_000; i++) {
                last = p.send(null, VALUE);
            }
            last.get(10, TimeUnit.SECONDS);
            PartitionInfo info = k.topic("t").orElseThrow().partition(0);
            // 2,000 stored records of 265 bytes need at least 33 segments of 16 KiB
            assertThat(info.segmentCount()).isGreaterThanOrEqualTo(2_000 * 265 / (int) segmentBytes + 1);
        }
        assertThat(largestAppend.get()).isPositive().isLessThanOrEqualTo(segmentBytes);
        try (Stream<Path> files = Files.list(dir.resolve("t").resolve("0"))) {
            List<Long> sizes = files.filter(f -> f.toString().endsWith(".log")).map(LingerTest::size).toList();
            assertThat(sizes).hasSizeGreaterThan(30).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(segmentBytes));
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void blockingOnALingeringSendWritesItAtOnce() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> lingering = lingeringSend(p);
            assertThat(lingering.get(10, TimeUnit.SECONDS).offset())
                    .isEqualTo(k.topic("t").orElseThrow().partitions().get(0).endOffset() - 1);
        }
    }

    @Test
    void blockingOnAFutureDerivedFromALingeringSendWritesItAtOnce() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            CompletableFuture<Long> offset = lingeringSend(p).thenApply(RecordPosition::offset).thenApply(o -> o + 0);
            assertThat(offset.get(10, TimeUnit.SECONDS)).isNotNegative();
            CompletableFuture<String> handled = lingeringSend(p).handle((pos, e) -> e == null ? "ok" : "failed");
            assertThat(handled.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
        }
    }

    @Test
    void aWaitingConsumerGetsEveryRecordWithoutWaitingForTheLinger() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            int count = 5_000;
            AtomicInteger received = new AtomicInteger();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            CountDownLatch polling = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (Consumer c = k.consumer("t")) {
                    polling.countDown();
                    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                    while (received.get() < count && System.nanoTime() < deadline) {
                        received.addAndGet(c.poll(Duration.ofSeconds(5)).size());
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            reader.start();
            polling.await();
            for (int i = 0; i < count; i++) {
                p.send(null, VALUE); // never awaited: only the consumer's waiting can get these written
            }
            reader.join(30_000);
            assertThat(failed.get()).isNull();
            assertThat(received.get()).isEqualTo(count);
        }
    }

    @Test
    void aPollThatFindsOnlyLingeringSendsGetsThemWritten() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> lingering = lingeringSend(p);
            // the records written, and the one lingering (nothing else writes it within the hour)
            int total = (int) k.topic("t").orElseThrow().partitions().get(0).endOffset() + 1;
            try (Consumer c = k.consumer("t")) {
                List<KafkoRecord> got = Fixtures.pollUntil(c, total);
                assertThat(got).hasSize(total);
            }
            assertThat(lingering).isCompleted();
        }
    }

    /**
     * A flush returns only once every send made before it is complete, also while another thread is still
     * completing the futures of an earlier write, and also after a second flush (which waits for that write)
     * flipped the epoch the writes are counted in, so that this one flips it back.
     */
    @ParameterizedTest(name = "flushes waiting meanwhile: {0}")
    @ValueSource(booleans = {false, true})
    void flushReturnsOnlyOnceSendsCompletingOnAnotherThreadAreComplete(boolean anotherFlushWaits) throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            // two sends lingering in one chain (a pause longer than a stream's gap writes the chain: retry)
            CompletableFuture<RecordPosition> first = lingeringSend(p);
            CompletableFuture<RecordPosition> second = p.send(null, VALUE);
            for (int attempt = 0; second.isDone() && attempt < 100; attempt++) {
                first = lingeringSend(p);
                second = p.send(null, VALUE);
            }
            assertThat(second).as("lingers behind the first").isNotDone();
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            // the thread that completes the round is held inside it, between the two futures
            first.thenRun(() -> {
                holding.countDown();
                awaitQuietly(release);
            });
            Thread writer = new Thread(p::flush, "holds-the-round");
            writer.start();
            assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
            Thread other = new Thread(p::flush, "flushes-meanwhile");
            if (anotherFlushWaits) {
                // a second flush flips the epoch (and waits for the held round): this thread's flips it back
                other.start();
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!waitsOnTheBarrier(other) && System.nanoTime() < until) {
                    Thread.sleep(1);
                }
                assertThat(waitsOnTheBarrier(other)).as("the other flush waits for the held round").isTrue();
            }
            assertThat(second).isNotDone();

            Thread releaser = new Thread(() -> {
                sleepQuietly(200);
                release.countDown();
            });
            releaser.start();
            p.flush(); // this thread writes its own round while the writer is still completing the first
            assertThat(second).as("a send made before flush() is complete when it returns").isDone();
            releaser.join();
            writer.join(10_000);
            other.join(10_000);
        }
    }

    /** Whether {@code t} is parked in the completion barrier's wait (which wakes now and then to look around). */
    private static boolean waitsOnTheBarrier(Thread t) {
        Thread.State state = t.getState();
        if (state != Thread.State.WAITING && state != Thread.State.TIMED_WAITING) {
            return false;
        }
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().endsWith(".CompletionBarrier")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void flushCalledFromASendsCallbackDoesNotWaitForItsOwnRound() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            // the callback runs on the thread completing the round of the send: flush must not wait for it
            CompletableFuture<RecordPosition> inner = new CompletableFuture<>();
            CompletableFuture<Void> flushed = p.send(null, VALUE).thenRun(() -> {
                inner.complete(p.send(null, VALUE).join());
                p.flush();
            });
            flushed.get(10, TimeUnit.SECONDS);
            assertThat(inner).isCompletedWithValue(new RecordPosition(0, 1));
            CompletableFuture<RecordPosition> lingering = lingeringSend(p);
            lingering.thenRun(p::flush);
            p.flush();
            assertThat(lingering).isDone();
        }
    }

    @Test
    void callbacksFlushingOnTwoThreadsAtOnceDoNotWaitForEachOther() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            CountDownLatch inA = new CountDownLatch(1);
            CountDownLatch inB = new CountDownLatch(1);
            CompletableFuture<RecordPosition> a = lingeringSendTo(p, 0);
            CompletableFuture<RecordPosition> b = lingeringSendTo(p, 1);
            // each callback runs on the thread completing its partition's round, and flushes while the
            // other thread is still completing the other partition's round
            CompletableFuture<Void> flushedA = a.thenRun(() -> {
                inA.countDown();
                awaitQuietly(inB);
                p.flush();
            });
            CompletableFuture<Void> flushedB = b.thenRun(() -> {
                inB.countDown();
                awaitQuietly(inA);
                p.flush();
            });
            Thread ta = new Thread(a::join, "completes-partition-0");
            Thread tb = new Thread(b::join, "completes-partition-1");
            ta.start();
            tb.start();
            flushedA.get(10, TimeUnit.SECONDS);
            flushedB.get(10, TimeUnit.SECONDS);
            ta.join(10_000);
            tb.join(10_000);
        }
    }

    private static CompletableFuture<RecordPosition> lingeringSendTo(Producer p, int partition) {
        for (int i = 0; i < 10_000; i++) {
            CompletableFuture<RecordPosition> f = p.sendTo(partition, null, VALUE);
            if (!f.isDone()) {
                return f;
            }
        }
        throw new AssertionError("no send to partition " + partition + " lingered in 10,000 back-to-back sends");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void flushWritesTheSendsMadeBeforeItAndCompletesThem() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
            sent.add(lingeringSend(p));
            for (int i = 0; i < 30; i++) {
                sent.add(p.send(null, VALUE));
            }
            assertThat(sent.get(sent.size() - 1)).isNotDone();
            p.flush();
            assertThat(sent).allSatisfy(f -> assertThat(f).isCompleted());
            long last = sent.get(sent.size() - 1).join().offset();
            assertThat(k.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(last + 1);
            k.close();
            assertThatThrownBy(p::flush).isInstanceOf(KafkoClosedException.class);
        }
    }

    @Test
    void closeWritesLingeringSendsAndCompletesThem() {
        List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            sent.add(lingeringSend(p));
            for (int i = 0; i < 10; i++) {
                sent.add(p.send(null, VALUE));
            }
            assertThat(sent.get(sent.size() - 1)).isNotDone();
        }
        for (CompletableFuture<RecordPosition> f : sent) {
            assertThat(f).isCompletedWithValueMatching(pos -> pos.offset() >= 0);
        }
        long last = sent.get(sent.size() - 1).join().offset();
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topic("t").orElseThrow().partitions().get(0).endOffset()).isEqualTo(last + 1);
        }
    }

    @Test
    void aCallbackOnTheSchedulerThreadMayWaitForSendsItMakes() throws Exception {
        // the scheduler ends lingers; a callback it runs that waits for its own sends through
        // CompletableFuture.allOf (which never marks them awaited) must not wait for itself
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofMillis(20)).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            Thread test = Thread.currentThread();
            String ranOn = null;
            // a linger that ended before the callback was added runs it on this thread at once: again
            for (int attempt = 0; attempt < 100 && (ranOn == null || ranOn.equals(test.getName())); attempt++) {
                CompletableFuture<String> inner = new CompletableFuture<>();
                lingeringSend(p).thenRun(() -> {
                    if (Thread.currentThread() == test) {
                        inner.complete(test.getName());
                        return;
                    }
                    try {
                        List<CompletableFuture<RecordPosition>> sends = new ArrayList<>();
                        for (int i = 0; i < 50; i++) {
                            sends.add(p.send(null, VALUE));
                        }
                        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                        inner.complete(Thread.currentThread().getName());
                    } catch (Exception e) {
                        inner.completeExceptionally(e);
                    }
                });
                ranOn = inner.get(60, TimeUnit.SECONDS);
            }
            assertThat(ranOn).as("the callback ran on the thread that ends lingers").isEqualTo("kafko-scheduler");
        }
    }

    @Test
    void aSendObservedOnlyThroughCallbacksCompletesWhenTheLingerEnds() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofMillis(20)).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            CompletableFuture<RecordPosition> lingering = lingeringSend(p);
            CountDownLatch called = new CountDownLatch(1);
            lingering.thenAccept(pos -> called.countDown());
            assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void noSendLingersWithAZeroLingerOrUnderEveryBatch() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ZERO).build())) {
            k.createTopic("t");
            assertEverySendIsWrittenBeforeItReturns(k.producer("t"));
        }
        try (Kafko k = Kafko.open(dir.resolve("every-batch"), KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            assertEverySendIsWrittenBeforeItReturns(k.producer("t"));
        }
    }

    /**
     * The handshake under contention: with a linger of an hour, a blocked sender or a parked consumer
     * that the partition missed would wait for the hour, and this test would time out. Threads that
     * await every send, threads that pipeline and block on the last of each burst, and consumers that
     * park between polls all run at once on two partitions.
     */
    @RepeatedTest(5)
    void noBlockedSenderAndNoParkedConsumerIsMissedUnderContention(RepetitionInfo repetition) throws Exception {
        try (Kafko k = Kafko.open(dir.resolve("r" + repetition.getCurrentRepetition()),
                KafkoOptions.builder().linger(HOUR).build())) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Producer p = k.producer("t");
            int senders = 4;
            int perSender = 3_000;
            AtomicReference<Throwable> failed = new AtomicReference<>();
            AtomicInteger consumed = new AtomicInteger();
            List<Thread> threads = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                threads.add(new Thread(() -> {
                    try (Consumer consumer = k.consumer("t")) {
                        // two anonymous consumers: each reads every record of both partitions
                        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                        int mine = 0;
                        while (mine < senders * perSender && System.nanoTime() < deadline) {
                            mine += consumer.poll(Duration.ofMillis(200)).size();
                        }
                        consumed.addAndGet(mine);
                    } catch (Throwable t) {
                        failed.set(t);
                    }
                }, "reader-" + c));
            }
            for (int s = 0; s < senders; s++) {
                boolean awaitEach = s % 2 == 0;
                long seed = 31L * repetition.getCurrentRepetition() + s;
                threads.add(new Thread(() -> {
                    try {
                        java.util.Random random = new java.util.Random(seed);
                        for (int i = 0; i < perSender; ) {
                            int burst = awaitEach ? 1 : 1 + random.nextInt(50);
                            CompletableFuture<RecordPosition> last = null;
                            for (int b = 0; b < burst && i < perSender; b++, i++) {
                                last = p.send(bytes("k" + random.nextInt(16)), VALUE);
                            }
                            last.get(10, TimeUnit.SECONDS);
                        }
                    } catch (Throwable t) {
                        failed.set(t);
                    }
                }, "sender-" + s));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(60_000);
            }
            assertThat(failed.get()).isNull();
            assertThat(consumed.get()).isEqualTo(2 * senders * perSender);
        }
    }

    @Test
    void aNegativeLingerIsRefused() {
        assertThatThrownBy(() -> KafkoOptions.builder().linger(Duration.ofMillis(-1)).build())
                .isInstanceOf(InvalidConfigException.class).hasMessageContaining("linger");
    }

    /** An uncontended send that is written completes before it returns; one that lingers does not. */
    private static void assertEverySendIsWrittenBeforeItReturns(Producer p) {
        for (int i = 0; i < 300; i++) {
            assertThat(p.send(null, bytes("v" + i))).isCompleted();
        }
    }

    /** Sends until one lingers (a send less than 100 us after the previous one does); returns it. */
    private static CompletableFuture<RecordPosition> lingeringSend(Producer p) {
        return Fixtures.lingeringSend(p, VALUE);
    }
}
