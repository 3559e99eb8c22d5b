package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * The wait for a listener behind a {@link RecordInterceptor} looks at what its members finished, then at whether
 * one has its interceptor still to tell of a record (B289): the other way round, a record the member took, committed
 * and is telling its interceptor of between the two looks was counted finished, its {@code afterRecord} still running.
 */
class InterceptorCatchUpRaceTest {

    @TempDir
    Path dir;

    @Test
    void aRecordCommittedBetweenTheMembersLookAndTheOffsetsLookIsNotFinishedBeforeItsAfterRecord() throws Exception {
        KafkoTopicCreations creations = new KafkoTopicCreations();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(creations).build())) {
            kafko.createTopic("told");
            CountDownLatch inAfterRecord = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<ConcurrentMessageListenerContainer> held = new AtomicReference<>();
            AtomicBoolean armed = new AtomicBoolean();
            Thread waiter = Thread.currentThread();
            DelegatingBackend backend = new DelegatingBackend(new KafkoBackend(kafko,
                    new KafkoTopicProvisioner(kafko, Map.of(), true), creations)) {
                @Override
                public @Nullable Object topicId(String topic) {
                    // the wait looked at its members (none telling its interceptor) and now at the offsets: the member
                    // takes the record meanwhile, commits it and is in its interceptor's afterRecord
                    if (Thread.currentThread() == waiter && armed.getAndSet(false)) {
                        held.get().resume();
                        try {
                            assertThat(inAfterRecord.await(20, TimeUnit.SECONDS)).isTrue();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return real.topicId(topic);
                }
            };
            ContainerProperties properties = new ContainerProperties(AckMode.RECORD, 1, Duration.ofMillis(50), 500,
                    Duration.ofSeconds(10));
            ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("told",
                    List.of("told"), "told", backend, properties, true, (records, ack) -> { },
                    new DefaultErrorHandler(), KafkoInstrumentation.NOOP, new SimpleAsyncTaskExecutor());
            held.set(container);
            container.setRecordInterceptor(new RecordInterceptor() {
                @Override
                public KafkoRecord intercept(KafkoRecord record) {
                    return record;
                }

                @Override
                public void afterRecord(KafkoRecord record) {
                    inAfterRecord.countDown();
                    try {
                        release.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            container.pause();
            container.start();
            try {
                kafko.producer("told").send(null, "a".getBytes(StandardCharsets.UTF_8)).join();
                armed.set(true);

                List<String> behind = container.awaitCaughtUp(Duration.ZERO);

                assertThat(inAfterRecord.getCount()).as("the member got to afterRecord").isZero();
                assertThat(behind).as("afterRecord has not returned").isNotEmpty();
                release.countDown();
                assertThat(container.awaitCaughtUp(Duration.ofSeconds(20))).isEmpty();
            } finally {
                release.countDown();
                container.stop();
            }
        }
    }
}
