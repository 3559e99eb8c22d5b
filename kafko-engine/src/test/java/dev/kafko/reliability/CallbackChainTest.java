package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sends made from the completion callback of the previous send, tens of thousands deep, on a small stack.
 * A send to an idle partition completes before {@code send} returns, so a callback added to its future runs
 * at once, inside the call that adds it: each link nests one level deeper. A few levels deep kafko stops
 * writing such sends inside the call and leaves them to the outermost call of the chain, so the chain runs
 * as a loop and never runs out of stack (before, it ran out some 800 links deep, failed that link, and in
 * some runs left the partition failed or a flush waiting for good). Every link is acknowledged and reads
 * back in order, and a flush afterwards returns. A link that blocks on something besides a kafko future (a
 * latch, a plain {@code CompletableFuture}) still gets its record written.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CallbackChainTest {

    private static final int LINKS = 30_000;
    /** Far less than a default thread stack, which a chain of this length nested on it would overrun many times over. */
    private static final long STACK_BYTES = 192 * 1024;

    @TempDir
    Path dir;

    enum Link {
        /** The next send from {@code whenComplete}. */
        CALLBACK,
        /** The next send from {@code whenComplete}, with the default linger: the chain goes on on kafko's scheduler. */
        CALLBACK_DEFAULT_LINGER,
        /** The next send from the callback, which then blocks on it before chaining. */
        CALLBACK_THAT_JOINS,
        /** The next send from the callback, to the other of two partitions. */
        OTHER_PARTITION,
        /** The next link as a batch of one, from {@code thenAccept}. */
        BATCH,
        /** The next link from {@code thenCompose}, as sequential sends are written with futures. */
        COMPOSED,
        /** The next link from {@code thenCombine} with a future already complete. */
        THEN_COMBINE,
        /** The next link from {@code applyToEither} with a future never complete. */
        APPLY_TO_EITHER,
        /** The next link from {@code whenCompleteAsync} on an executor that runs it at once. */
        WHEN_COMPLETE_ASYNC_DIRECT
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aChainOfSendsFromCallbacksRunsToItsEndOnASmallStack(Link link) throws Exception {
        KafkoOptions options = link == Link.CALLBACK_DEFAULT_LINGER ? KafkoOptions.builder().build()
                : KafkoOptions.builder().linger(Duration.ZERO).build();
        try (Kafko k = Kafko.open(dir, options)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).fsync(FsyncPolicy.NEVER).build());
            Producer p = k.producer("t");
            List<Integer> acked = new ArrayList<>();
            CompletableFuture<Integer> done = new CompletableFuture<>();
            Thread chain = new Thread(null, () -> {
                if (link == Link.COMPOSED) {
                    composeFrom(p, 0, acked).whenComplete((last, e) -> {
                        if (e != null) {
                            done.completeExceptionally(e);
                        } else {
                            done.complete(last);
                        }
                    });
                } else {
                    sendLink(p, 0, link, acked, done);
                }
            }, "chain", STACK_BYTES);
            chain.start();
            assertThat(done.get(60, TimeUnit.SECONDS)).isEqualTo(LINKS);
            chain.join();
            CompletableFuture.runAsync(p::flush).get(30, TimeUnit.SECONDS);

            for (int partition = 0; partition < 2; partition++) {
                assertThat(k.topic("t").orElseThrow().partition(partition).state()).isEqualTo(PartitionState.RUNNING);
            }
            assertThat(acked).hasSize(LINKS).isSorted();
            try (Consumer c = k.consumer("t")) {
                List<Integer> read = new ArrayList<>();
                for (List<KafkoRecord> b = c.poll(Duration.ZERO); !b.isEmpty(); b = c.poll(Duration.ZERO)) {
                    b.forEach(r -> read.add(ByteBuffer.wrap(r.value()).getInt()));
                }
                // one partition for most kinds, two interleaved for OTHER_PARTITION: each partition reads in
                // offset order, and each link went out after the one before was acknowledged
                assertThat(read).hasSize(LINKS).containsExactlyInAnyOrderElementsOf(acked);
                if (link != Link.OTHER_PARTITION) {
                    assertThat(read).isSorted();
                }
            }
        }
    }

    /** Sends link {@code i} (its value), then the next link from its callback. */
    private static void sendLink(Producer p, int i, Link link, List<Integer> acked, CompletableFuture<Integer> done) {
        try {
            if (i == LINKS) {
                done.complete(i);
                return;
            }
            byte[] value = ByteBuffer.allocate(4).putInt(i).array();
            if (link == Link.BATCH) {
                p.sendBatchTo(0, List.of(OutgoingRecord.of(null, value))).thenAccept(positions -> {
                    acked.add(i);
                    sendLink(p, i + 1, link, acked, done);
                }).exceptionally(e -> {
                    done.completeExceptionally(e);
                    return null;
                });
                return;
            }
            CompletableFuture<RecordPosition> sent = link == Link.OTHER_PARTITION ? p.sendTo(i % 2, null, value)
                    : p.sendTo(0, null, value);
            if (link == Link.THEN_COMBINE || link == Link.APPLY_TO_EITHER || link == Link.WHEN_COMPLETE_ASYNC_DIRECT) {
                Runnable next = () -> {
                    acked.add(i);
                    sendLink(p, i + 1, link, acked, done);
                };
                CompletableFuture<?> linked = switch (link) {
                    case THEN_COMBINE -> sent.thenCombine(CompletableFuture.completedFuture(0), (a, b) -> {
                        next.run();
                        return null;
                    });
                    case APPLY_TO_EITHER -> sent.applyToEither(new CompletableFuture<>(), x -> {
                        next.run();
                        return null;
                    });
                    default -> sent.whenCompleteAsync((x, e) -> next.run(), Runnable::run);
                };
                linked.whenComplete((x, e) -> {
                    if (e != null) {
                        done.completeExceptionally(e);
                    }
                });
                return;
            }
            sent.whenComplete((pos, e) -> {
                try {
                    if (e != null) {
                        done.completeExceptionally(e);
                        return;
                    }
                    acked.add(i);
                    if (link != Link.CALLBACK_THAT_JOINS || i + 1 == LINKS) {
                        sendLink(p, i + 1, link, acked, done);
                        return;
                    }
                    p.sendTo(0, null, ByteBuffer.allocate(4).putInt(i + 1).array()).join();
                    acked.add(i + 1);
                    sendLink(p, i + 2, link, acked, done);
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                }
            });
        } catch (Throwable t) {
            done.completeExceptionally(t);
        }
    }

    /** Link {@code i} and those after it, as one future of the last link's number. */
    private static CompletableFuture<Integer> composeFrom(Producer p, int i, List<Integer> acked) {
        if (i == LINKS) {
            return CompletableFuture.completedFuture(i);
        }
        return p.sendTo(0, null, ByteBuffer.allocate(4).putInt(i).array()).thenCompose(pos -> {
            acked.add(i);
            return composeFrom(p, i + 1, acked);
        });
    }

    /**
     * A chain that goes on on {@code kafko-scheduler} (callbacks of sends whose linger it ended), whose links from
     * the sixteenth on send two records and wait for both through a plain {@code allOf}, as the README allows
     * on that thread: the deferred sends are written by another thread while the scheduler waits.
     */
    @Test
    void aChainOnTheSchedulerWhoseDeepLinksWaitForTheirSendsThroughAllOfGoesOn() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofMillis(20)).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
            Producer p = k.producer("t");
            CompletableFuture<String> outcome = new CompletableFuture<>();
            boolean started = false;
            // one chain only, and no sends from this thread once it runs: they would drain the partition here and
            // run the chain's callbacks on this thread instead
            for (int attempt = 0; attempt < 50 && !started; attempt++) {
                CompletableFuture<RecordPosition> last = null;
                for (int i = 0; i < 200; i++) {
                    last = p.sendTo(0, null, ByteBuffer.allocate(4).putInt(i).array());
                }
                if (last.isDone()) {
                    continue; // nothing lingered: no chain on the scheduler this time
                }
                CompletableFuture<Boolean> onScheduler = new CompletableFuture<>();
                last.whenComplete((pos, e) -> {
                    boolean there = Thread.currentThread().getName().equals("kafko-scheduler");
                    onScheduler.complete(there);
                    if (there) {
                        waitingLink(p, 0, outcome);
                    }
                });
                started = onScheduler.get(10, TimeUnit.SECONDS);
            }
            assertThat(started).as("a chain began on kafko-scheduler").isTrue();
            assertThat(outcome.get(90, TimeUnit.SECONDS)).isEqualTo("every wait returned");
        }
    }

    private static void waitingLink(Producer p, int i, CompletableFuture<String> outcome) {
        p.sendTo(0, null, ByteBuffer.allocate(4).putInt(i).array()).whenComplete((pos, e) -> {
            try {
                if (i >= 16) {
                    CompletableFuture<RecordPosition> a = p.sendTo(0, null, ByteBuffer.allocate(4).putInt(100_000 + i).array());
                    CompletableFuture<RecordPosition> b = p.sendTo(0, null, ByteBuffer.allocate(4).putInt(200_000 + i).array());
                    try {
                        CompletableFuture.allOf(a, b).get(10, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.TimeoutException t) {
                        outcome.complete("link " + i + " on " + Thread.currentThread().getName()
                                + ": its two sends were not written after 10 s");
                        return;
                    }
                }
                if (i + 1 == 40) {
                    outcome.complete("every wait returned");
                    return;
                }
                waitingLink(p, i + 1, outcome);
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        });
    }

    /**
     * Deep in a chain, callbacks send and then wait for a consumer on another thread to read that record, or
     * wait on a plain {@code CompletableFuture} of two sends: neither waits on a kafko future, so nothing tells
     * kafko the deferred sends are awaited; they are written anyway. Sixteen links in a row do it, so one of
     * them does it as deep as sends are deferred.
     */
    @Test
    void linksDeepInAChainThatWaitForTheirRecordsOtherwiseThanOnTheirFuturesGetThemWritten() throws Exception {
        KafkoOptions options = KafkoOptions.builder().linger(Duration.ZERO).build();
        try (Kafko k = Kafko.open(dir, options)) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
            Producer p = k.producer("t");
            AtomicInteger lastMarkerRead = new AtomicInteger(-1);
            Thread reader = new Thread(() -> {
                try (Consumer c = k.consumer("t")) {
                    while (lastMarkerRead.get() < WAITING_LINKS_END - 1) {
                        for (KafkoRecord r : c.poll(Duration.ofMillis(100))) {
                            int v = ByteBuffer.wrap(r.value()).getInt();
                            if (v < 0) {
                                lastMarkerRead.set(-v - 1);
                            }
                        }
                    }
                }
            }, "reader");
            reader.start();
            CompletableFuture<String> outcome = new CompletableFuture<>();
            chainThenWait(p, 0, lastMarkerRead, outcome);
            assertThat(outcome.get(60, TimeUnit.SECONDS)).isEqualTo("every marker read, every pair written");
            reader.join(10_000);
        }
    }

    private static final int WAITING_LINKS_START = 40;
    private static final int WAITING_LINKS_END = WAITING_LINKS_START + 16;

    /**
     * Link {@code i}; from {@link #WAITING_LINKS_START} on, each link's callback first sends a marker and waits
     * for the reader to see it, then sends two records and waits for both through {@code allOf}.
     */
    private static void chainThenWait(Producer p, int i, AtomicInteger lastMarkerRead, CompletableFuture<String> outcome) {
        p.send(null, ByteBuffer.allocate(4).putInt(i).array()).whenComplete((pos, e) -> {
            try {
                if (i >= WAITING_LINKS_START) {
                    p.send(null, ByteBuffer.allocate(4).putInt(-i - 1).array());
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    while (lastMarkerRead.get() < i) {
                        if (System.nanoTime() > deadline) {
                            outcome.complete("the marker of link " + i + " was never written");
                            return;
                        }
                        Thread.sleep(1);
                    }
                    CompletableFuture<RecordPosition> a = p.send(null, ByteBuffer.allocate(4).putInt(100_000 + i).array());
                    CompletableFuture<RecordPosition> b = p.send(null, ByteBuffer.allocate(4).putInt(200_000 + i).array());
                    CompletableFuture.allOf(a, b).get(20, TimeUnit.SECONDS);
                }
                if (i + 1 == WAITING_LINKS_END) {
                    outcome.complete("every marker read, every pair written");
                    return;
                }
                chainThenWait(p, i + 1, lastMarkerRead, outcome);
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        });
    }

    /**
     * The sends left to the outermost call are its own to write: once the first send's {@code whenComplete} returns
     * on the sender's thread, every link is written and acknowledged, none waits for the scheduler's fallback look.
     */
    @Test
    void theOutermostCallOfAChainReturnsWithEveryLinkWritten() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ZERO).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
            Producer p = k.producer("t");
            List<Integer> acked = new ArrayList<>();
            CompletableFuture<Integer> done = new CompletableFuture<>();
            int links = 1_000; // far deeper than the depth at which sends are left to the outermost call

            chainOf(p, 0, links, acked, done); // on this thread: the outermost call is this one

            assertThat(done).isCompletedWithValue(links);
            assertThat(acked).hasSize(links).isSorted();
            assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(links);
        }
    }

    /** Sends link {@code i}, then the next from its callback, until {@code links}. */
    private static void chainOf(Producer p, int i, int links, List<Integer> acked, CompletableFuture<Integer> done) {
        if (i == links) {
            done.complete(i);
            return;
        }
        p.send(null, ByteBuffer.allocate(4).putInt(i).array()).whenComplete((pos, e) -> {
            if (e != null) {
                done.completeExceptionally(e);
                return;
            }
            acked.add(i);
            chainOf(p, i + 1, links, acked, done);
        });
    }
}
