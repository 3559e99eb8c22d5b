package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
/**
 * Around a full send queue, through the public API: owners sending from observers must never wait
 * for each other, and any {@code maxBlock} must be a wait, not an overflow. The wake-up races of a
 * waiting sender are in {@code MailboxTest}.
 */
class SendQueueBoundRaceTest {

    private static final byte[] VALUE = QueueFiller.VALUE;
    private static final long LIMIT = 3_300;

    @TempDir
    Path dir;

    /**
     * Two owners that send to each other's full partition from onAppend must not wait for each
     * other, holding their own partition, until maxBlock.
     */
    @Test
    void ownersSendingToEachOthersFullPartitionDoNotWaitForEachOther() throws Exception {
        CountDownLatch bothInAppend = new CountDownLatch(2);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicReferenceArray<CompletableFuture<RecordPosition>> cross = new AtomicReferenceArray<>(2);
        CountDownLatch crossReturned = new CountDownLatch(2);
        AtomicReference<Producer> producer = new AtomicReference<>();
        boolean[] first = {true, true};
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (!first[partition]) { // owner-confined per partition
                    return;
                }
                first[partition] = false;
                bothInAppend.countDown();
                try {
                    gate.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                cross.set(partition, producer.get().sendTo(1 - partition, null, VALUE));
                crossReturned.countDown();
            }
        };
        Duration maxBlock = Duration.ofSeconds(15);
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).linger(Duration.ZERO)
                .maxQueuedBytes(LIMIT).maxBlock(maxBlock).build())) {
            try {
                k.createTopic("t", TopicConfig.builder().partitions(2).build());
                Producer p = k.producer("t");
                producer.set(p);
                Fixtures.onNewThread(() -> p.sendTo(0, null, VALUE)); // owns p0
                Fixtures.onNewThread(() -> p.sendTo(1, null, VALUE)); // owns p1
                assertThat(bothInAppend.await(10, TimeUnit.SECONDS)).isTrue();
                QueueFiller f0 = new QueueFiller(p, 0, 1000);
                QueueFiller f1 = new QueueFiller(p, 1, 1000);
                f0.start();
                f1.start();
                f0.awaitBlocked(0);
                f1.awaitBlocked(0);
                gate.countDown();
                assertThat(crossReturned.await(5, TimeUnit.SECONDS))
                        .as("owner sends to each other's full partition returned within 5 s").isTrue();
                gate.countDown();
                for (int partition = 0; partition < 2; partition++) {
                    assertThat(cross.get(partition).get(10, TimeUnit.SECONDS).partition()).isEqualTo(1 - partition);
                }
            } finally {
                gate.countDown();
            }
        }
    }

    /** A maxBlock too long for a long in nanoseconds (MAX_DURATION) waits like any other. */
    @Test
    void aVeryLongMaxBlockWaitsInsteadOfThrowing() throws Exception {
        AppendHold hold = new AppendHold();
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(hold).linger(Duration.ZERO)
                .maxQueuedBytes(LIMIT).maxBlock(TopicConfig.MAX_DURATION).build());
             AutoCloseable unblock = hold::release) {
            k.createTopic("t");
            Producer p = k.producer("t");
            Fixtures.onNewThread(() -> p.send(null, VALUE));
            hold.awaitHeld();
            QueueFiller filler = new QueueFiller(p, 0, 100);
            filler.start();
            filler.awaitBlocked(0);
            assertThat(filler.thrown.get()).as("a send on a full queue threw").isNull();
            hold.release();
            filler.join(10_000);
            assertThat(filler.sent()).hasSize(100).allSatisfy(f -> assertThat(f.get(10, TimeUnit.SECONDS)).isNotNull());
        }
    }
}
