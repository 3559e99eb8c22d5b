package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.kafko.BufferExhaustedException;
import dev.kafko.OutgoingRecord;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Mailbox} against a scripted owner, so that each interleaving of a waiting sender with the
 * owner's release happens for sure. Every wait below would last the 30 s {@code maxBlock} if the
 * sender missed its wake-up; the tests allow 10 s.
 */
@Timeout(60)
class MailboxTest {

    private static final int RECORD_BYTES = 100;
    /** Room for three records. */
    private static final long LIMIT = 3 * (RECORD_BYTES + Mailbox.RECORD_OVERHEAD);

    private final Mailbox mailbox = new Mailbox("t-0", LIMIT, Duration.ofSeconds(30));

    /** An owner the test drives: owned until released; a drain takes the whole queue. */
    private class ScriptedOwner implements Mailbox.Owner {
        final AtomicBoolean owned = new AtomicBoolean(true);
        final AtomicInteger drains = new AtomicInteger();

        @Override
        public boolean drainIfIdle() {
            if (owned.compareAndSet(false, true)) {
                mailbox.takeAll();
                drains.incrementAndGet();
                owned.set(false);
                return true;
            }
            return false;
        }

        @Override
        public boolean isOwned() {
            return owned.get();
        }
    }

    private static SendRequest send() {
        return new SendRequest(OutgoingRecord.of(null, new byte[RECORD_BYTES - 10]), RECORD_BYTES);
    }

    private void fill() {
        int pushed = 0;
        while (mailbox.tryPush(send(), false)) {
            pushed++;
        }
        assertThat(pushed).isEqualTo(3);
    }

    /** Runs a waiting push on a thread of its own; completes with its outcome. */
    private CompletableFuture<Boolean> pushFromAnotherThread(SendRequest r, Mailbox.Owner owner, Thread[] thread) {
        CompletableFuture<Boolean> pushed = new CompletableFuture<>();
        thread[0] = new Thread(() -> pushed.complete(mailbox.pushWhenRoom(r, owner)), "sender");
        thread[0].start();
        return pushed;
    }

    private static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.TIMED_WAITING) {
            assertThat(System.nanoTime()).as("the sender parks").isLessThan(deadline);
            Thread.sleep(1);
        }
    }

    @Test
    void aRecordFitsUnderTheLimitAndAnyRequestFitsAnEmptyQueue() {
        fill();
        assertThat(mailbox.tryPush(send(), false)).isFalse();
        assertThat(mailbox.tryPush(new CommandRequest(CommandRequest.Kind.WRITE_LINGERING), false))
                .as("a command always fits").isTrue();
        assertThat(mailbox.tryPush(send(), true)).as("forced").isTrue();

        mailbox.takeAll();
        assertThat(mailbox.tryPush(new CommandRequest(CommandRequest.Kind.WRITE_LINGERING), false)).isTrue();
        SendRequest huge = new SendRequest(OutgoingRecord.of(null, new byte[4096]), 4096);
        assertThat(mailbox.tryPush(huge, false)).as("larger than the limit, over no queued record").isTrue();
        assertThat(mailbox.tryPush(send(), false)).isFalse();
    }

    @Test
    void takingTheQueueWakesAParkedSender() throws Exception {
        fill();
        ScriptedOwner owner = new ScriptedOwner();
        Thread[] sender = new Thread[1];
        CompletableFuture<Boolean> pushed = pushFromAnotherThread(send(), owner, sender);
        awaitParked(sender[0]);

        // what drain() does: take the queue, then wake the senders waiting for room
        mailbox.takeAll();
        mailbox.wakeWaiting();

        assertThat(pushed.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(owner.drains).hasValue(0);
    }

    @Test
    void aParkedSenderDrainsTheQueueOnceTheOwnerReleasesThePartition() throws Exception {
        fill();
        ScriptedOwner owner = new ScriptedOwner();
        Thread[] sender = new Thread[1];
        CompletableFuture<Boolean> pushed = pushFromAnotherThread(send(), owner, sender);
        awaitParked(sender[0]);

        // what drain() does when it releases the partition with the queue still full
        owner.owned.set(false);
        mailbox.wakeWaiting();

        assertThat(pushed.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(owner.drains).hasValue(1);
    }

    @Test
    void aSenderThatFindsThePartitionReleasedAfterRegisteringDoesNotPark() throws Exception {
        fill();
        AtomicInteger drainAttempts = new AtomicInteger();
        ScriptedOwner released = new ScriptedOwner() {
            @Override
            public boolean drainIfIdle() {
                // the first attempt finds the partition owned; the owner releases it right after,
                // before the sender registers, so no wake-up is ever sent
                if (drainAttempts.incrementAndGet() == 1) {
                    owned.set(false);
                    return false;
                }
                return super.drainIfIdle();
            }
        };

        // a park here would last the whole maxBlock of 30 s
        assertThat(assertTimeoutPreemptively(Duration.ofSeconds(10), () -> mailbox.pushWhenRoom(send(), released)))
                .isTrue();
        assertThat(released.drains).hasValue(1);
    }

    @Test
    void noRoomWithinMaxBlockFailsTheRequestWithoutQueueingIt() {
        Mailbox quick = new Mailbox("t-3", LIMIT, Duration.ofMillis(20));
        while (quick.tryPush(send(), false)) {
            // fill
        }
        SendRequest r = send();
        assertThat(quick.pushWhenRoom(r, new ScriptedOwner())).isFalse();
        assertThatThrownBy(r::join).cause().isInstanceOf(BufferExhaustedException.class)
                .hasMessageContaining("partition t-3").hasMessageContaining("maxBlock PT0.02S");
        int queued = 0;
        for (Request<?> q = quick.takeAll(); q != null; q = q.next) {
            assertThat(q).isNotSameAs(r);
            queued++;
        }
        assertThat(queued).isEqualTo(3);
    }
}
