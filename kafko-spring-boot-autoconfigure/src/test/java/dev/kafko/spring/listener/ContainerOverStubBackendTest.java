package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.Headers;
import dev.kafko.KafkoClosedException;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/** Drives a container through the backend seam, with a backend whose consumer can be made to fail. */
class ContainerOverStubBackendTest {

    @Test
    void aContainerWhosePollingThreadDiedIsNotInItsExpectedStateAndNamesTheCause() {
        AtomicBoolean closed = new AtomicBoolean();
        ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("doomed",
                List.of("t"), "g", new FailingBackend(closed), ContainerProperties.DEFAULTS.withConcurrency(2), true,
                (records, ack) -> { }, new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                new SimpleAsyncTaskExecutor());
        container.start();
        assertThat(container.isInExpectedState()).isTrue();
        closed.set(true);
        await().atMost(Duration.ofSeconds(10)).until(() -> !container.isRunning());
        assertThat(container.isInExpectedState()).isFalse();
        KafkoMessageListenerContainer member = (KafkoMessageListenerContainer) container.getMembers().get(0);
        assertThat(member.getFailure()).isInstanceOf(KafkoClosedException.class);
        assertThat(member.memberName()).isEqualTo("doomed-0");

        container.stop();
        assertThat(container.isInExpectedState()).as("stopped as asked").isTrue();
    }

    /**
     * The members of a container leave their group only once every member was asked to stop: a member that
     * left while a sibling still polled handed it its partitions, and the sibling delivered again what the
     * first had not committed, in an application shutting down (seen 15 of 58 closes under manual acks). Here
     * the thread stopping the container is held up right after it asked the first member (its consumer's
     * wakeup takes 300 ms), as a preempted thread is.
     */
    @Test
    void noMemberLeavesItsGroupBeforeEverySiblingWasAskedToStop() {
        List<Boolean> allAskedAtClose = new CopyOnWriteArrayList<>();
        ConcurrentMessageListenerContainer[] ref = new ConcurrentMessageListenerContainer[1];
        IntConsumer slowFirstWakeup = n -> {
            if (n == 0) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        IntConsumer recordAtClose = n -> allAskedAtClose.add(ref[0].getMembers().stream()
                .allMatch(m -> ((KafkoMessageListenerContainer) m).stopRequested()));
        ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("pair",
                List.of("t"), "g", new FailingBackend(new AtomicBoolean(), slowFirstWakeup, recordAtClose),
                ContainerProperties.DEFAULTS.withConcurrency(2), true, (records, ack) -> { }, new DefaultErrorHandler(),
                KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
        ref[0] = container;
        container.start();
        await().atMost(Duration.ofSeconds(10)).until(container::isRunning);
        container.stop();
        assertThat(allAskedAtClose).as("for each member's leaving: were all members asked to stop")
                .containsExactly(true, true);
    }

    /**
     * A log with one empty partition whose polls fail once {@code closed} is set; {@code onWakeup} and
     * {@code onClose} are told the number of the consumer (in the order they were made).
     */
    private record FailingBackend(AtomicBoolean closed, IntConsumer onWakeup,
                                  IntConsumer onClose, AtomicInteger made)
            implements LogBackend {

        FailingBackend(AtomicBoolean closed) {
            this(closed, n -> { }, n -> { });
        }

        FailingBackend(AtomicBoolean closed, IntConsumer onWakeup,
                       IntConsumer onClose) {
            this(closed, onWakeup, onClose, new AtomicInteger());
        }

        @Override
        public BackendProducer producer(String topic) {
            throw new UnsupportedOperationException();
        }

        @Override
        public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                             ConsumerRebalanceListener rebalanceListener) {
            int n = made.getAndIncrement();
            return new BackendConsumer() {
                @Override
                public List<KafkoRecord> poll(Duration timeout) {
                    if (closed.get()) {
                        throw new KafkoClosedException("closed under the container");
                    }
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return List.of();
                }

                @Override
                public void commit(Map<Integer, Long> offsets) {
                }

                @Override
                public void seek(int partition, long offset) {
                }

                @Override
                public Set<Integer> assignment() {
                    return Set.of(0);
                }

                @Override
                public void wakeup() {
                    onWakeup.accept(n);
                }

                @Override
                public void close() {
                    onClose.accept(n);
                }
            };
        }

        @Override
        public void ensureTopic(String topic, int minPartitions) {
        }

        @Override
        public void checkTopicName(String topic) {
        }

        @Override
        public int partitionCount(String topic) {
            return 1;
        }

        @Override
        public Map<Integer, Long> endOffsets(String topic) {
            return Map.of(0, 0L);
        }

        @Override
        public Map<Integer, Long> committedOffsets(String topic, String group) {
            return Map.of();
        }

        @Override
        public long currentTimeMillis() {
            return 0;
        }
    }
}
