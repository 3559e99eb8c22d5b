package dev.kafko.internal.log;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Internal: one write-behind fsync of a range of the active segment's published bytes, run exactly once by whichever thread
 * claims it first: the {@link Flusher}'s thread, or the log's writer when it needs the file to
 * itself ({@link #await}). It promises nothing to any record (that is {@link PartitionLog#flush}'s
 * job); it only keeps the dirty bytes of a segment few, so that the fsync of a roll or a close,
 * which the writer waits for, has little left to write. Any thread.
 */
final class FlushBehind implements Runnable {

    private final SegmentFile file;
    private final long from;
    private final long to;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private final Consumer<Throwable> onFailure;
    private volatile @Nullable Throwable failure;

    /** {@code onFailure} hears of a failed fsync on the thread that ran it, as soon as it failed. */
    FlushBehind(SegmentFile file, long from, long to, Consumer<Throwable> onFailure) {
        this.file = file;
        this.from = from;
        this.to = to;
        this.onFailure = onFailure;
    }

    @Override
    public void run() {
        if (!claimed.compareAndSet(false, true)) {
            return;
        }
        try {
            file.forceRange(from, to);
        } catch (Throwable e) {
            failure = e;
            onFailure.accept(e);
        } finally {
            done.countDown();
        }
    }

    /** Whether the fsync has ended (well or not). */
    boolean isDone() {
        return done.getCount() == 0;
    }

    /**
     * Runs the fsync here if no thread has claimed it yet, else waits for it to end; returns its
     * failure, or {@code null}.
     */
    @Nullable Throwable await() {
        run();
        boolean interrupted = false;
        while (true) {
            try {
                done.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return failure;
    }
}
