package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduler runs retention again while a run deleted 4 segments: a producer that fills 4 segments between two
 * runs keeps the loop going for as long as it writes, and the scheduler's other work (interval fsyncs of every
 * other topic, linger ends, other partitions' retention) waits all that time. Before b7ea4fa one run deleted all.
 */
class RetentionLoopUnderLoadTest {

    @TempDir
    Path dir;

    @Test
    void aBusyProducerUnderSizeRetentionDoesNotHoldBackOtherTopicsIntervalFsyncs() throws Exception {
        AtomicLong lastFsyncOfF = new AtomicLong();
        AtomicLong lastFsyncOfFTook = new AtomicLong();
        AtomicInteger runs = new AtomicInteger();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                if (topic.equals("f")) {
                    lastFsyncOfFTook.set(nanos); // set first: read once the time below is seen
                    lastFsyncOfF.set(System.nanoTime());
                }
            }

            @Override
            public void onRetention(String topic, int partition, int segments, long bytes) {
                runs.incrementAndGet();
            }
        };
        KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(50))
                .observer(observer).build();
        try (Kafko kafko = Kafko.open(dir, options)) {
            kafko.createTopic("f", TopicConfig.builder().fsync(FsyncPolicy.interval(Duration.ofMillis(20))).build());
            kafko.createTopic("r", TopicConfig.builder().segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                    .retentionBytes(4096).build());
            Producer r = kafko.producer("r");
            Producer f = kafko.producer("f");
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = new Thread(() -> {
                List<CompletableFuture<RecordPosition>> pending = new ArrayList<>();
                while (!stop.get()) {
                    pending.add(r.send(null, new byte[900]));
                    if (pending.size() >= 32) {
                        pending.forEach(CompletableFuture::join);
                        pending.clear();
                    }
                }
                pending.forEach(CompletableFuture::join);
            }, "tryout-writer");
            writer.start();
            try {
                Thread.sleep(500); // the loop gets going
                long worstGapMs = 0;
                long end = System.nanoTime() + 4_000_000_000L;
                while (System.nanoTime() < end) {
                    long sent = System.nanoTime();
                    f.send(null, new byte[] {1}).join();
                    while (lastFsyncOfF.get() < sent && System.nanoTime() - sent < 3_000_000_000L) {
                        Thread.sleep(1);
                    }
                    // the wait less the fsync's own time: what the scheduler held it back, not what a busy disk took
                    long heldBack = System.nanoTime() - sent - lastFsyncOfFTook.get();
                    worstGapMs = Math.max(worstGapMs, heldBack / 1_000_000);
                }
                assertThat(worstGapMs).as("longest wait for topic f's 20 ms interval fsync while r's retention ran "
                        + runs.get() + " runs; scheduler at " + RetentionLoopAfterDeleteTest.schedulerStack())
                        .isLessThan(1000);
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }
}
