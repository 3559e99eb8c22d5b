package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FileNames;
import dev.kafko.internal.log.LogBridge;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code seekToTimestamp} whose search is inside a partition's sealed segment (it opens the file to map it) while
 * another thread deletes the topic, or closes the instance: the seek must fail as every other call of a deleted
 * topic's handle does ({@link UnknownTopicException}), or of a closed instance's ({@link KafkoClosedException}),
 * not with an {@link dev.kafko.OffsetOutOfRangeException} that the reset policy {@code EARLIEST} never throws, nor
 * with a {@link KafkoClosedException} for a topic that was deleted. The consumer thread is held, deterministically,
 * in the open of a sealed segment (before it, or after it) while the deletion or the close runs to its end: with
 * no room in the mapping budget a sealed segment is read through a channel opened at its first read, outside any
 * lock, as happens to any segment beyond the budget in a large log.
 */
class SeekToTimestampDeleteRaceTest {

    @TempDir
    Path dir;

    /** Holds the thread named {@code seeker} in the open of a sealed segment of partition 0 once armed. */
    static final class Gate implements HookedFileIo.Hooks {
        volatile boolean armed;
        volatile boolean afterTheOpen;
        volatile Path sealed;
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        private void maybeHold(Path path, boolean after) {
            if (armed && after == afterTheOpen && path.equals(sealed) && Thread.currentThread().getName().equals("seeker")) {
                armed = false;
                held.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void beforeOpen(Path path, boolean existed) {
            maybeHold(path, false);
        }

        @Override
        public void afterOpen(Path path, boolean existed) {
            maybeHold(path, true);
        }
    }

    @Test
    @Timeout(30)
    void aSeekToTimestampRacingDeleteTopicBeforeTheSegmentOpensFailsAsUnknownTopic() throws Exception {
        assertThat(seekRacing(false, true)).isInstanceOf(UnknownTopicException.class);
    }

    @Test
    @Timeout(30)
    void aSeekToTimestampRacingDeleteTopicAfterTheSegmentOpenedFailsAsUnknownTopic() throws Exception {
        assertThat(seekRacing(true, true)).isInstanceOf(UnknownTopicException.class);
    }

    @Test
    @Timeout(30)
    void aSeekToTimestampRacingCloseFailsAsKafkoClosed() throws Exception {
        assertThat(seekRacing(false, false)).isInstanceOf(KafkoClosedException.class);
    }

    /** What the seek threw (or null) when the topic is deleted ({@code delete}) or the instance closed meanwhile. */
    private Throwable seekRacing(boolean afterTheOpen, boolean delete) throws Exception {
        Gate gate = new Gate();
        gate.afterTheOpen = afterTheOpen;
        try (Kafko first = Kafko.open(dir)) {
            first.createTopic("t", TopicConfig.builder().partitions(2).segmentBytes(1024).build());
            Producer p = first.producer("t");
            // more sealed segments than the 64 channels kept open for positional reads: the first ones are opened again
            for (int i = 0; i < 600; i++) {
                for (int partition = 0; partition < 2; partition++) {
                    p.sendTo(partition, null, new byte[100]);
                }
            }
            p.flush();
        }
        // reopened with no room for mappings: a sealed segment is read through a channel opened at its first read,
        // outside any lock a close or a deletion takes
        LogBridge.setMappingLimit(0);
        Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().build(), new HookedFileIo(gate));
        try {
            gate.sealed = FileNames.segmentFile(FileNames.partitionDir(dir.toRealPath().resolve("t"), 0), 0);
            Consumer c = k.consumer("t");
            gate.armed = true;
            CompletableFuture<Throwable> seek = new CompletableFuture<>();
            Thread seeker = new Thread(() -> {
                try {
                    c.seekToTimestamp(0);
                    seek.complete(null);
                } catch (Throwable t) {
                    seek.complete(t);
                }
            }, "seeker");
            seeker.start();
            assertThat(gate.held.await(10, TimeUnit.SECONDS)).as("the seek opened the sealed segment").isTrue();
            if (delete) {
                k.deleteTopic("t");
            } else {
                k.close();
            }
            gate.release.countDown();
            Throwable thrown = seek.get(10, TimeUnit.SECONDS);
            if (thrown != null) {
                System.err.println("seekToTimestamp threw " + thrown);
            }
            return thrown;
        } finally {
            gate.release.countDown();
            k.close();
            LogBridge.setMappingLimit(-1);
        }
    }
}
