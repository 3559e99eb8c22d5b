package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code EVERY_BATCH} a poll whose read reaches a frame appended and not yet fsynced hands out the records
 * before it only, and its position stops there (found by mutation testing, B116: the trim to the readable end could
 * be removed without any test noticing).
 */
class ReadableEndTrimTest {

    @TempDir
    Path dir;

    @Test
    void aPollThatReadsIntoARecordNotYetFsyncedStopsBeforeIt() throws Exception {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        KafkoObserver hold = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                // the partition's owner, after the append and before its fsync
                if (armed.get()) {
                    held.countDown();
                    try {
                        released.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(hold).build())) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = k.producer("t");
            try (Consumer c = k.consumer("t")) {
                for (int i = 0; i < 3; i++) {
                    p.send(null, bytes("r" + i)).join();
                }
                armed.set(true);
                CompletableFuture<RecordPosition> sent = CompletableFuture.supplyAsync(
                        () -> p.send(null, bytes("r3")).join());
                assertThat(held.await(10, TimeUnit.SECONDS)).as("an append is held").isTrue();
                try {
                    assertThat(k.topic("t").orElseThrow().partition(0).endOffset()).isEqualTo(4);
                    assertThat(c.poll(Duration.ZERO)).extracting(KafkoRecord::offset).containsExactly(0L, 1L, 2L);
                    assertThat(c.position(0)).isEqualTo(3);
                    assertThat(c.poll(Duration.ZERO)).isEmpty();
                    assertThat(c.position(0)).isEqualTo(3);
                } finally {
                    released.countDown(); // else the close waits for the held append
                }
                assertThat(sent.get().offset()).isEqualTo(3);
                assertThat(c.poll(Duration.ofSeconds(10))).extracting(KafkoRecord::offset).containsExactly(3L);
            }
        }
    }
}
