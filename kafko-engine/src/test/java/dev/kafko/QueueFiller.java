package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A thread that sends {@code count} 256-byte records to one partition, in order, stopping at the
 * first that fails; the bounded-queue tests watch it block on a full queue.
 */
final class QueueFiller extends Thread {

    static final byte[] VALUE = new byte[256];

    final AtomicInteger returned = new AtomicInteger();
    final AtomicReference<Throwable> thrown = new AtomicReference<>();
    volatile boolean interruptedAfter;
    private final List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
    private final Producer producer;
    private final int partition;
    private final int count;

    QueueFiller(Producer producer, int partition, int count) {
        super("filler-" + partition);
        this.producer = producer;
        this.partition = partition;
        this.count = count;
        setDaemon(true);
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < count; i++) {
                CompletableFuture<RecordPosition> f = producer.sendTo(partition, null, VALUE);
                synchronized (sent) {
                    sent.add(f);
                }
                returned.incrementAndGet();
                if (f.isCompletedExceptionally()) {
                    break;
                }
            }
        } catch (Throwable t) {
            thrown.set(t);
        }
        interruptedAfter = isInterrupted();
    }

    List<CompletableFuture<RecordPosition>> sent() {
        synchronized (sent) {
            return List.copyOf(sent);
        }
    }

    CompletableFuture<RecordPosition> sent(int i) {
        synchronized (sent) {
            return sent.get(i);
        }
    }

    /** Returns once this thread is parked in a send, with more than {@code after} sends returned. */
    void awaitBlocked(int after) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (returned.get() <= after || getState() != State.TIMED_WAITING) {
            assertThat(thrown.get()).as("the filler threw").isNull();
            assertThat(System.nanoTime()).as("the filler blocks on a full queue").isLessThan(deadline);
            assertThat(isAlive()).as("the filler is still sending").isTrue();
            Thread.sleep(1);
        }
    }
}
