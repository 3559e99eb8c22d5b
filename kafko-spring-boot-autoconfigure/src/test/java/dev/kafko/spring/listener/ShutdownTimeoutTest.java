package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.StringUtils;

/**
 * A member still busy with a record when its shutdown timeout passes is waited for once, and when
 * kafko closes under it its lost commit is an expected warning: the record comes again on the next
 * start, and nothing reports the member as died.
 */
@ExtendWith(OutputCaptureExtension.class)
class ShutdownTimeoutTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch started = new CountDownLatch(1);
    static volatile CountDownLatch release = new CountDownLatch(1);

    @Test
    void aMemberThatOverrunsTheShutdownTimeoutIsWaitedForOnceAndItsLostCommitIsAWarningNotADeath(
            @TempDir Path dir, CapturedOutput output) throws Exception {
        RECEIVED.clear();
        started = new CountDownLatch(1);
        release = new CountDownLatch(1);
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class)).withBean(Slow.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=300ms");
        AtomicReference<KafkoMessageListenerContainer> member = new AtomicReference<>();
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("slow", "s1").join();
            assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
            member.set((KafkoMessageListenerContainer) ((ConcurrentMessageListenerContainer) context
                    .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("slow")).getMembers().get(0));
        }); // closes while the listener is busy: the registry stops (and is destroyed), then kafko closes
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> !member.get().isRunning());

        assertThat(StringUtils.countOccurrencesOf(output.getOut(), "slow-0 did not stop within PT0.3S"))
                .as("waited for once").isEqualTo(1);
        assertThat(output).contains("the records up to slow-0@0 (each one since this member's last commit there) were not committed and will be"
                        + " delivered again")
                .doesNotContain("died");
        assertThat(member.get().getFailure()).isNull();
        assertThat(member.get().isInExpectedState()).isTrue();

        runner.run(context -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20)));
        assertThat(RECEIVED).as("delivered again after the restart").containsExactly("s1", "s1");
    }

    @Test
    void aStartWhileTheMemberStillFinishesAnOverrunStopStartsItAgainOnceItExits(@TempDir Path dir) throws Exception {
        RECEIVED.clear();
        started = new CountDownLatch(1);
        release = new CountDownLatch(1);
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Slow.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=200ms")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("slow");
                    template.send("slow", "s1").join();
                    assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
                    container.stop(); // overruns: the listener is still busy
                    container.start(); // while the old member thread still finishes
                    release.countDown();
                    template.send("slow", "after").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(RECEIVED).as("the new member consumes").contains("after");
                    assertThat(container.isRunning()).isTrue();
                    assertThat(container.isInExpectedState()).isTrue();
                });
    }

    @Test
    void aListenerThatStopsItsOwnContainerDoesNotWaitForItself(@TempDir Path dir) {
        SelfStop.stopMillis = -1;
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(SelfStop.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=5s")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("self-stop");
                    template.send("self-stop", "poison").join();
                    await().atMost(Duration.ofSeconds(10)).until(() -> !container.isRunning());
                    assertThat(SelfStop.stopMillis).as("stop() called by the listener returned at once")
                            .isBetween(0L, 2_000L);
                    assertThat(container.isInExpectedState()).isTrue();
                });
    }

    static class SelfStop {
        static volatile long stopMillis;
        private final ObjectProvider<KafkoListenerEndpointRegistry> registry;

        SelfStop(ObjectProvider<KafkoListenerEndpointRegistry> registry) {
            this.registry = registry;
        }

        @KafkoListener(id = "self-stop", topics = "self-stop")
        void on(String value) {
            long t = System.nanoTime();
            registry.getObject().getListenerContainer("self-stop").stop();
            stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
        }
    }

    @Test
    void busyMembersOverrunOneShutdownTimeoutTogetherNotOneAfterTheOther(@TempDir Path dir, CapturedOutput output)
            throws Exception {
        RECEIVED.clear();
        started = new CountDownLatch(3);
        release = new CountDownLatch(1);
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class)).withBean(SlowThree.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.listener.shutdown-timeout=1s",
                        "kafko.topics.slow3.partitions=3");
        long[] closeMillis = new long[1];
        try {
            runner.run(context -> {
                @SuppressWarnings("unchecked")
                KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                for (int p = 0; p < 3; p++) {
                    template.send("slow3", p, null, "r" + p).join();
                }
                assertThat(started.await(20, TimeUnit.SECONDS)).as("all three members busy").isTrue();
                closeMillis[0] = System.nanoTime();
            });
            closeMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeMillis[0]);
        } finally {
            release.countDown();
        }
        assertThat(StringUtils.countOccurrencesOf(output.getOut(), "did not stop within PT1S")).isEqualTo(3);
        // one timeout (1 s) for the three, plus kafko's close; one after the other it was 3 s and more
        assertThat(closeMillis[0]).isLessThan(2_500);
    }

    static class SlowThree {
        @KafkoListener(id = "slow3", topics = "slow3", concurrency = "3")
        void on(String value) throws InterruptedException {
            RECEIVED.add(value);
            started.countDown();
            release.await(20, TimeUnit.SECONDS);
        }
    }

    static class Slow {
        @KafkoListener(id = "slow", topics = "slow")
        void on(String value) throws InterruptedException {
            RECEIVED.add(value);
            started.countDown();
            release.await(20, TimeUnit.SECONDS);
        }
    }
}
