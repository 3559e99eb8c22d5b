package dev.kafko.spring.listener;

import static dev.kafko.spring.listener.RecordInterceptorTest.container;
import static dev.kafko.spring.listener.RecordInterceptorTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The wait for listeners behind a {@link BatchInterceptor} with several members (B291): it ends once every member told
 * its interceptor how its batches went, not once their offsets were committed.
 */
class BatchInterceptorCatchUpTest {

    static final CountDownLatch IN_SUCCESS = new CountDownLatch(1);
    static final CountDownLatch RELEASE = new CountDownLatch(1);
    static final AtomicInteger TOLD = new AtomicInteger();
    static final AtomicInteger GOT = new AtomicInteger();

    @Test
    void theWaitForSeveralMembersEndsOnlyOnceEachToldItsBatchInterceptor() throws Exception {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.spread.partitions=3")
                .withBean(BatchInterceptor.class, () -> new BatchInterceptor() {
                    @Override
                    public List<KafkoRecord> intercept(List<KafkoRecord> records) {
                        return InterceptedRecoveryEdgesTest.reversed(records);
                    }

                    @Override
                    public void success(List<KafkoRecord> records) {
                        if (records.stream().anyMatch(r -> RecordInterceptorTest.value(r).equals("held"))) {
                            IN_SUCCESS.countDown();
                            try {
                                RELEASE.await(20, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        TOLD.addAndGet(records.size());
                    }
                })
                .withBean(Spread.class)
                .run(context -> {
                    for (int p = 0; p < 3; p++) {
                        InterceptedRecoveryEdgesTest.sendTo(context, "spread", p, "a" + p);
                        InterceptedRecoveryEdgesTest.sendTo(context, "spread", p, "b" + p);
                    }
                    InterceptedRecoveryEdgesTest.sendTo(context, "spread", 1, "held");
                    ConcurrentMessageListenerContainer spread =
                            (ConcurrentMessageListenerContainer) container(context, "spread");
                    try {
                        spread.start();
                        assertThat(IN_SUCCESS.await(20, TimeUnit.SECONDS)).isTrue();

                        // the member holding "held" committed it: the wait must not end while it is being told
                        assertThat(spread.awaitCaughtUp(Duration.ZERO)).isNotEmpty();
                        RELEASE.countDown();
                        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                        assertThat(GOT.get()).isEqualTo(7);
                        assertThat(TOLD.get()).isEqualTo(7);
                    } finally {
                        RELEASE.countDown();
                    }
                });
    }

    static class Spread {
        @KafkoListener(id = "spread", topics = "spread", groupId = "spread", batch = "true", concurrency = "3",
                ackMode = "MANUAL_IMMEDIATE", autoStartup = "false")
        void on(List<String> values, Acknowledgment ack) {
            GOT.addAndGet(values.size());
            ack.acknowledge(); // committed at once, before the interceptor is told
        }
    }
}
