package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A caller that closes while holding a lock the pending sends' callbacks take (an application's shutdown under
 * its own lock): the close completes those sends on the caller's thread, as a flush does, so the callbacks take
 * the (reentrant) lock there, while the rest of the close runs on {@code kafko-close}. Were they completed on
 * that thread, the callback would wait for the caller's lock and the caller for the close: bounded here by a
 * {@code tryLock} of 10 s.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CloseUnderTheCallersLockTest {

    @TempDir
    Path dir;

    @Test
    void closeUnderALockThatPendingCallbacksTakeDoesNotDeadlock() throws Exception {
        Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofSeconds(5)).build());
        k.createTopic("t", TopicConfig.builder().partitions(1).fsync(FsyncPolicy.NEVER).build());
        Producer p = k.producer("t");
        CompletableFuture<RecordPosition> last = null;
        for (int attempt = 0; attempt < 50 && last == null; attempt++) {
            last = lingeringSend(p);
        }
        assertThat(last).as("a lingering send").isNotNull();
        ReentrantLock appLock = new ReentrantLock();
        AtomicReference<String> callback = new AtomicReference<>("never ran");
        last.whenComplete((pos, e) -> {
            try {
                if (appLock.tryLock(10, TimeUnit.SECONDS)) {
                    appLock.unlock();
                    callback.set("took the lock on " + Thread.currentThread().getName());
                } else {
                    callback.set("waited 10 s for the closing caller's lock on " + Thread.currentThread().getName());
                }
            } catch (InterruptedException ie) {
                callback.set("interrupted");
            }
        });
        long[] closeMillis = {-1};
        Thread closer = new Thread(() -> {
            appLock.lock();
            try {
                long t0 = System.nanoTime();
                k.close();
                closeMillis[0] = (System.nanoTime() - t0) / 1_000_000;
            } finally {
                appLock.unlock();
            }
        }, "app-shutdown");
        closer.start();
        closer.join(60_000);
        assertThat(callback.get()).startsWith("took the lock");
        assertThat(closeMillis[0]).as("close() ms").isBetween(0L, 5_000L);
    }

    /** Sends a tight burst to partition 0 and returns the last send, still lingering (null if none lingered). */
    static CompletableFuture<RecordPosition> lingeringSend(Producer p) {
        CompletableFuture<RecordPosition> last = null;
        for (int i = 0; i < 200; i++) {
            last = p.sendTo(0, null, java.nio.ByteBuffer.allocate(4).putInt(i).array());
        }
        return last.isDone() ? null : last;
    }
}
