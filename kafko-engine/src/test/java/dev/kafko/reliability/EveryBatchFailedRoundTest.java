package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under EVERY_BATCH a send is acknowledged only once an fsync covers it. One round of the owner holds two
 * appends: the first is written, the second fails the partition (the roll it needs cannot write the new
 * segment). The first was never fsynced: its future must not complete normally.
 */
@Timeout(60)
class EveryBatchFailedRoundTest {

    @TempDir
    Path tmp;

    @Test
    void anAppendOfARoundThatTheNextAppendFailedIsNotAcknowledgedWithoutAnFsync() throws Exception {
        Path data = tmp.resolve("d");
        RandomFaultIo io = IoFaultTest.replaying(RandomFaultIo.Kind.RUNTIME, s -> s.startsWith("write ")
                && s.contains("/t/0/") && s.endsWith(".log") && !s.endsWith("00000000000000000000.log"));
        CountDownLatch inFirstAppend = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger appends = new AtomicInteger();
        AtomicInteger fsyncs = new AtomicInteger();
        AtomicInteger fsyncsAtSecondAppend = new AtomicInteger(-1);
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                int n = appends.incrementAndGet();
                if (n == 1) {
                    // the owner is held in its first round while the next two sends queue up behind it
                    inFirstAppend.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                } else if (n == 2) {
                    fsyncsAtSecondAppend.set(fsyncs.get());
                }
            }

            @Override
            public void onFsync(String topic, int partition, long nanos) {
                fsyncs.incrementAndGet();
            }
        };
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.builder().observer(observer).build(), io)) {
            kafko.createTopic("t", TopicConfig.builder().segmentBytes(1024).fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = kafko.producer("t");
            CompletableFuture<RecordPosition> first = new CompletableFuture<>();
            Thread owner = new Thread(() -> p.sendTo(0, null, new byte[10]).whenComplete((r, e) -> {
                if (e != null) {
                    first.completeExceptionally(e);
                } else {
                    first.complete(r);
                }
            }), "owner");
            owner.start();
            assertThat(inFirstAppend.await(10, TimeUnit.SECONDS)).isTrue();
            // two frames (each too large to share one with the other): the second needs a roll, which fails
            CompletableFuture<RecordPosition> a = p.sendTo(0, null, new byte[600]);
            CompletableFuture<RecordPosition> b = p.sendTo(0, null, new byte[600]);
            assertThat(a).isNotDone();
            release.countDown();
            owner.join(10_000);
            first.get(10, TimeUnit.SECONDS);
            Throwable bFailure = b.handle((r, e) -> e).get(10, TimeUnit.SECONDS);
            assertThat(bFailure).as("the append that failed the partition").isNotNull();
            assertThat(kafko.topic("t").orElseThrow().partitions().get(0).state()).isEqualTo(PartitionState.FAILED);
            Throwable aFailure = a.handle((r, e) -> e).get(10, TimeUnit.SECONDS);
            boolean fsyncedAfterA = fsyncs.get() > fsyncsAtSecondAppend.get();
            assertThat(aFailure == null && !fsyncedAfterA)
                    .as("A acknowledged (" + (aFailure == null ? a.join() : aFailure) + ") though no fsync covered it"
                            + " (fsyncs before its append " + fsyncsAtSecondAppend.get() + ", after " + fsyncs.get() + ")")
                    .isFalse();
        }
    }
}
