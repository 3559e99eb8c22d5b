package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sends made from the completion callback of the previous send, thousands deep. A send to an idle
 * partition completes before {@code send} returns, so a callback added to its future runs at once,
 * inside the caller: the chain nests on one stack and runs out of it. That costs the chain the link that
 * ran out (a typed failure naming the cause), and the partition keeps running, unless the stack ran out
 * in the few calls that publish a frame: that fails the partition as an I/O error does, until a reopen
 * (one chain in some twenty runs of these 26). Every acknowledged link reads back in order, and later
 * sends succeed.
 */
class CallbackChainTest {

    private static final int LINKS = 20_000;

    @TempDir
    Path dir;

    enum Link {
        /** The next send from {@code whenComplete}. */
        CALLBACK,
        /** The next send from the callback, which then blocks on it before chaining. */
        CALLBACK_THAT_JOINS
    }

    @ParameterizedTest
    @EnumSource(Link.class)
    void aChainThatRunsOutOfStackFailsOnlyItsLastLinkAndThePartitionGoesOn(Link link) throws Exception {
        List<Throwable> ends = new ArrayList<>();
        List<Integer> acked = new ArrayList<>();
        AtomicInteger next = new AtomicInteger();
        // no linger: every link is written, and its callbacks run, on the chain's own thread, so a chain has
        // ended once its thread has
        KafkoOptions options = KafkoOptions.builder().linger(Duration.ZERO).build();
        int failedPartitions = 0;
        try (Kafko created = Kafko.open(dir, options)) {
            created.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.NEVER).build());
        }
        // stacks of several sizes, so that the overflow strikes at different calls of the append
        for (int kib = 128; kib <= 512; kib += 32) {
            try (Kafko k = Kafko.open(dir, options)) {
                Producer p = k.producer("t");
                CompletableFuture<Integer> done = new CompletableFuture<>();
                Thread chain = new Thread(null, () -> sendLink(p, next.get(), link, acked, next, done), "chain", kib * 1024L);
                chain.start();
                chain.join();
                // every link completes on the chain's thread: once it ended, so did the chain (a chain whose
                // own bookkeeping ran out of stack in a catch block ends without a word)
                ends.add(done.isDone() ? catchThrowable(done::join) : null);
                PartitionInfo info = k.topic("t").orElseThrow().partition(0);
                if (info.state() != PartitionState.RUNNING) {
                    // the one window left: out of stack while the log published a frame (a half-published frame
                    // would give its offsets twice); failed as on an I/O error, and whole again after a reopen
                    assertThat(info.failure()).hasRootCauseInstanceOf(StackOverflowError.class);
                    failedPartitions++;
                }
            }
        }
        assertThat(failedPartitions).as("chains that failed the partition").isLessThanOrEqualTo(2);
        try (Kafko k = Kafko.open(dir, options)) {
            Producer p = k.producer("t");
            int last = next.get();
            p.send(null, ByteBuffer.allocate(4).putInt(last).array()).join();
            acked.add(last);
            try (Consumer c = k.consumer("t")) {
                List<Integer> read = new ArrayList<>();
                for (List<KafkoRecord> b = c.poll(Duration.ZERO); !b.isEmpty(); b = c.poll(Duration.ZERO)) {
                    b.forEach(r -> read.add(ByteBuffer.wrap(r.value()).getInt()));
                }
                // in order, every acknowledged link, and nothing never sent; a link may be in the log without
                // being in acked when the chain ran out of stack between its completion and its bookkeeping
                assertThat(read).isSorted().doesNotHaveDuplicates().containsAll(acked);
                assertThat(read.get(read.size() - 1)).isEqualTo(last);
            }
        }
        // each chain ended by running out of stack: inside kafko's append (typed and named there) or in the
        // chain's own code (where the overflow strikes depends on what the JIT compiled by then)
        assertThat(ends).allSatisfy(e -> {
            if (e != null) {
                assertThat(e).isInstanceOf(CompletionException.class).hasRootCauseInstanceOf(StackOverflowError.class);
                assertThat(e.getCause()).isInstanceOfAny(StackOverflowError.class, KafkoException.class);
            }
        });
    }

    /** Sends link {@code i} (its value), then the next link from its callback. */
    private static void sendLink(Producer p, int i, Link link, List<Integer> acked, AtomicInteger next,
            CompletableFuture<Integer> done) {
        try {
            if (i == LINKS) {
                done.complete(i);
                return;
            }
            next.set(i + 1);
            p.send(null, ByteBuffer.allocate(4).putInt(i).array()).whenComplete((pos, e) -> {
                try {
                    if (e != null) {
                        done.completeExceptionally(e);
                        return;
                    }
                    acked.add(i);
                    if (link == Link.CALLBACK) {
                        sendLink(p, i + 1, link, acked, next, done);
                        return;
                    }
                    next.set(i + 2);
                    p.send(null, ByteBuffer.allocate(4).putInt(i + 1).array()).join();
                    acked.add(i + 1);
                    sendLink(p, i + 2, link, acked, next, done);
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                }
            });
        } catch (Throwable t) {
            done.completeExceptionally(t);
        }
    }
}
