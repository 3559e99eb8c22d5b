package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * deleteTopic under senders that share a partition and whose callbacks make admin calls: a round holding
 * [send, DELETE] taken by another thread completed the DELETE's future after the send's callback, which
 * waited for the admin lock the deletion held (5 of 10 rounds hung). The deletion no longer holds the lock
 * while its partitions take it.
 */
class DeleteTopicSharedPartitionTest {

    @TempDir
    Path tmp;

    static String dump() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            String n = e.getKey().getName();
            if (!n.contains("sender") && !n.startsWith("deleter") && !n.startsWith("kafko") && !n.startsWith("owner")) {
                continue;
            }
            sb.append('"').append(n).append("\" ").append(e.getKey().getState()).append('\n');
            StackTraceElement[] st = e.getValue();
            for (int i = 0; i < Math.min(st.length, 40); i++) {
                sb.append("    at ").append(st[i]).append('\n');
            }
        }
        return sb.toString();
    }

    static void adminCall(Kafko k) {
        try {
            k.createTopic("side"); // exists: takes the admin lock, then refused
        } catch (TopicExistsException | KafkoClosedException expected) {
            // refused under the lock
        }
    }

    /** Unscripted: three pipelining senders share one partition; callbacks make an admin call. */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void deleteUnderSendersSharingAPartitionWithAdminCallbacksReturns() throws Exception {
        int rounds = 10;
        int hung = 0;
        String firstDump = null;
        for (int r = 0; r < rounds; r++) {
            Kafko k = Kafko.open(tmp.resolve("r" + r));
            k.createTopic("side");
            k.createTopic("doomed", TopicConfig.builder().partitions(1).build());
            Producer p = k.producer("doomed");
            AtomicBoolean stop = new AtomicBoolean();
            CountDownLatch sending = new CountDownLatch(3);
            Thread[] senders = new Thread[3];
            for (int s = 0; s < senders.length; s++) {
                senders[s] = new Thread(() -> {
                    try {
                        boolean counted = false;
                        while (!stop.get()) {
                            CompletableFuture<?> last = null;
                            for (int i = 0; i < 50; i++) {
                                last = p.sendTo(0, OutgoingRecord.of(null, new byte[64]))
                                        .whenComplete((m, e) -> adminCall(k));
                            }
                            if (!counted) {
                                sending.countDown();
                                counted = true;
                            }
                            last.exceptionally(e -> null).join();
                        }
                    } catch (UnknownTopicException | KafkoClosedException expected) {
                        // gone
                    } finally {
                        sending.countDown();
                    }
                }, "sender-" + r + "-" + s);
                senders[s].setDaemon(true);
                senders[s].start();
            }
            sending.await();
            Thread.sleep(5);
            CompletableFuture<Void> deleted = new CompletableFuture<>();
            Thread deleter = new Thread(() -> {
                try {
                    k.deleteTopic("doomed");
                    deleted.complete(null);
                } catch (Throwable t) {
                    deleted.completeExceptionally(t);
                }
            }, "deleter-" + r);
            deleter.setDaemon(true);
            deleter.start();
            deleter.join(30_000); // a deletion that waits for itself never returns: a bound, not a speed goal
            if (deleter.isAlive()) {
                hung++;
                if (firstDump == null) {
                    firstDump = dump();
                }
                stop.set(true);
                break; // the instance cannot be closed: close waits for the admin lock the deletion holds
            }
            deleted.get();
            stop.set(true);
            for (Thread t : senders) {
                t.join(10_000);
            }
            k.close();
        }
        assertThat(hung).as("rounds of %d whose deleteTopic hung; first:%n%s", rounds, firstDump).isZero();
    }

    /**
     * Scripted: the owner is held inside its append (a blocking onAppend stands for a slow append) while a
     * second sender queues a send and the deletion queues its DELETE; the owner then takes [send, DELETE] as
     * one round, whose send's callback makes an admin call.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void deleteQueuedBehindASendWhoseCallbackMakesAnAdminCallReturns() throws Exception {
        CountDownLatch inAppend = new CountDownLatch(1);
        CountDownLatch releaseAppend = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (topic.equals("doomed") && armed.compareAndSet(true, false)) {
                    inAppend.countDown();
                    try {
                        releaseAppend.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        Kafko k = Kafko.open(tmp, KafkoOptions.builder().observer(observer).linger(Duration.ZERO).build());
        k.createTopic("side");
        k.createTopic("doomed");
        Producer p = k.producer("doomed");
        AtomicInteger adminCalls = new AtomicInteger();
        armed.set(true);
        Thread owner = new Thread(() -> p.send(null, new byte[8]), "owner");
        owner.setDaemon(true);
        owner.start();
        inAppend.await();
        // queued while the owner holds the partition
        CompletableFuture<?> queued = p.send(null, new byte[8]).whenComplete((m, e) -> {
            adminCall(k);
            adminCalls.incrementAndGet();
        });
        Thread deleter = new Thread(() -> k.deleteTopic("doomed"), "deleter");
        deleter.setDaemon(true);
        deleter.start();
        while (k.topic("doomed").isPresent()) {
            Thread.sleep(1);
        }
        Thread.sleep(100); // the DELETE is queued behind the send
        releaseAppend.countDown();
        deleter.join(10_000);
        String d = dump();
        assertThat(deleter.isAlive()).as("deleteTopic hung:%n%s", d).isFalse();
        assertThat(queued).isDone();
        k.close();
    }
}
