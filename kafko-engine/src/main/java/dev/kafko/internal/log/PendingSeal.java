package dev.kafko.internal.log;

import dev.kafko.internal.io.FileIo;
import dev.kafko.internal.io.Uninterruptibly;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the durable part of one roll ({@link #sealDurably}), run exactly once by whichever
 * thread claims it first: a background thread, or the log's writer when it needs the seal done
 * ({@link #await}). Seals end in roll order: each first waits for the seal of the roll before it
 * (running it, if no thread has), and fails without sealing when that one failed, so a segment with
 * an {@code .index} file is never preceded by one whose seal did not end ({@link LogLoader} relies
 * on it). Any thread.
 */
final class PendingSeal implements Runnable {

    private final Segment segment;
    private final FileIo io;
    private final Path dir;
    private final Consumer<Throwable> onFailure;
    /** The seal of the roll before, until this one has seen it end. */
    private @Nullable PendingSeal previous;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile @Nullable Throwable failure;

    /**
     * {@code previous} is the seal of the roll before this one when it may not have ended yet;
     * {@code onFailure} hears of a failed seal on the thread that ran it, as soon as it failed.
     */
    PendingSeal(Segment segment, FileIo io, Path dir, @Nullable PendingSeal previous, Consumer<Throwable> onFailure) {
        this.segment = segment;
        this.io = io;
        this.dir = dir;
        this.previous = previous;
        this.onFailure = onFailure;
    }

    @Override
    public void run() {
        if (!claimed.compareAndSet(false, true)) {
            return;
        }
        try {
            PendingSeal before = previous;
            previous = null;
            Throwable earlier = before == null ? null : before.await();
            if (earlier != null) {
                // the earlier segment may not be durable: this one gets no index file either
                failure = earlier;
                return;
            }
            sealDurably();
        } catch (Throwable e) {
            failure = e;
            onFailure.accept(e);
        } finally {
            done.countDown();
        }
    }

    /**
     * The rest of sealing, after the writer ended the segment's appends ({@link Rolls}): fsync, then the
     * index files, then the channel released. Readers go on reading meanwhile. An {@code .index} file on
     * disk therefore means that the segment's data was durable before it was written: the loader relies on it.
     */
    private void sealDurably() {
        // the data is durable before the index that describes it can be found on disk
        segment.file().forceWithMetadata();
        segment.writeIndexFiles(io, dir, true);
        segment.file().closeChannel();
    }

    /**
     * Runs the seal here if no thread has claimed it yet, else waits for it to end; returns its
     * failure, or {@code null} when the segment is durable and indexed.
     */
    @Nullable Throwable await() {
        run();
        Uninterruptibly.await(done);
        return failure;
    }
}
