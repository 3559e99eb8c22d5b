package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An observer that holds every appending thread (the partition's owner) inside {@code onAppend}
 * until {@link #release()}, so that a test can fill a partition's queue behind it.
 */
public final class AppendHold implements KafkoObserver {

    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    @Override
    public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
        held.countDown();
        try {
            released.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Returns once a thread is held in an append; fails after 10 s. */
    public void awaitHeld() throws InterruptedException {
        assertThat(held.await(10, TimeUnit.SECONDS)).as("an append is held").isTrue();
    }

    /** Lets every held and later append go on. */
    public void release() {
        released.countDown();
    }
}
