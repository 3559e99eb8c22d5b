package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * deleteTopic while send callbacks make admin calls. The deletion holds the admin lock while each partition
 * takes it; a partition's owner that had the deletion in its mailbox looked at it only after completing its
 * round's futures, and a callback of theirs that waited for the admin lock waited for ever (3 of 3 runs of
 * the test below before the fix). The deletion now takes the partition itself once that owner released it.
 */
class DeleteTopicUnderCallbacksTest {

    /** The admin call a send's callback makes. */
    enum AdminCall {
        CREATE_TOPIC, INCREASE_PARTITIONS, CLOSE
    }

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(AdminCall.class)
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aSendCallbackMakingAnAdminCallDoesNotHangADeleteOfItsOwnTopic(AdminCall call) throws Exception {
        int rounds = call == AdminCall.CLOSE ? 3 : 20;
        for (int r = 0; r < rounds; r++) {
            AtomicInteger calls = new AtomicInteger();
            boolean deleted = false;
            try (Kafko k = Kafko.open(tmp.resolve(call + "-" + r))) {
                k.createTopic("side");
                String name = "doomed";
                k.createTopic(name, TopicConfig.builder().partitions(2).build());
                Producer p = k.producer(name);
                AtomicBoolean stop = new AtomicBoolean();
                ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
                CountDownLatch sending = new CountDownLatch(2);
                Thread[] senders = new Thread[2];
                for (int s = 0; s < senders.length; s++) {
                    int partition = s;
                    senders[s] = new Thread(() -> {
                        try {
                            while (!stop.get()) {
                                CompletableFuture<?> last = null;
                                for (int i = 0; i < 200; i++) {
                                    // pipelined: another sender's thread may own the partition and complete these
                                    last = p.sendTo(partition, OutgoingRecord.of(null, new byte[64]))
                                            .whenComplete((m, e) -> adminCall(k, call, calls));
                                }
                                sending.countDown();
                                last.exceptionally(e -> null).join();
                            }
                        } catch (UnknownTopicException | KafkoClosedException expected) {
                            // the topic or the instance is gone: the sender's loop ends
                        } catch (Throwable t) {
                            unexpected.add(t);
                        } finally {
                            sending.countDown(); // also when a callback closed the instance before the first batch
                        }
                    }, "callback-sender-" + s);
                    senders[s].start();
                }
                sending.await();
                try {
                    k.deleteTopic(name);
                    deleted = true;
                    assertThat(k.topic(name)).isEmpty();
                } catch (KafkoClosedException closedByACallback) {
                    assertThat(call).isEqualTo(AdminCall.CLOSE);
                }
                stop.set(true);
                for (Thread t : senders) {
                    t.join(10_000);
                    assertThat(t.isAlive()).as("sender %s after the delete", t.getName()).isFalse();
                }
                assertThat(unexpected).isEmpty();
            }
            assertThat(calls.get()).as("admin calls made by callbacks").isPositive();
            try (Kafko again = Kafko.open(tmp.resolve(call + "-" + r))) {
                // a deletion that returned finished before the close released the directory: gone from the disk
                assertThat(again.topics().contains("doomed")).isEqualTo(!deleted);
            }
        }
    }

    /** An admin call that takes the instance's admin lock. */
    private static void adminCall(Kafko k, AdminCall call, AtomicInteger calls) {
        try {
            switch (call) {
                case CREATE_TOPIC -> k.createTopic("side"); // it exists: the lock is taken, the call refused
                case INCREASE_PARTITIONS -> k.topic("side").ifPresent(t -> t.increasePartitions(1));
                case CLOSE -> k.close();
            }
        } catch (TopicExistsException | KafkoClosedException expected) {
            // refused under the lock, or after the close
        }
        calls.incrementAndGet();
    }

    /**
     * deleteTopic from KafkoObserver.onAppend, on the thread that appends to one of the topic's partitions,
     * would wait for itself: it is refused before anything changes, and the topic stays usable.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aDeleteFromTheTopicsOwnAppendObserverIsRefusedAndChangesNothing() throws Exception {
        AtomicReference<Kafko> ref = new AtomicReference<>();
        AtomicBoolean armed = new AtomicBoolean();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (armed.compareAndSet(true, false)) {
                    try {
                        ref.get().deleteTopic(topic);
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                }
            }
        };
        try (Kafko k = Kafko.open(tmp, KafkoOptions.builder().observer(observer).build())) {
            ref.set(k);
            k.createTopic("t");
            armed.set(true);
            k.producer("t").send(null, new byte[8]).join();
            assertThat(thrown.get()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("t-0").hasMessageContaining("KafkoObserver");
            assertThat(k.topic("t")).isPresent();
            assertThat(k.producer("t").send(null, new byte[8]).join().offset()).isEqualTo(1);
            k.deleteTopic("t"); // from an ordinary thread it goes through
            assertThat(k.topic("t")).isEmpty();
            assertThatThrownBy(() -> k.producer("t")).isInstanceOf(UnknownTopicException.class);
        }
    }
}
