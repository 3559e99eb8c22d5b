package dev.kafko.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.AlreadyOpenException;
import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** graceful shutdown of slow listeners, and DevTools-style restarts on one data directory. */
class ShutdownAndRestartTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static volatile long sleepMillis;
    static volatile CountDownLatch inHand = new CountDownLatch(1);
    static volatile int inHandAt;
    /** When set, each record waits for it to open instead of taking {@link #sleepMillis}. */
    static volatile CountDownLatch gate;

    /** A registry that outlives the contexts (ignores the close Spring calls on it). */
    static final class SharedRegistry extends SimpleMeterRegistry {
        @Override
        public void close() {
        }
    }

    static final SharedRegistry SHARED = new SharedRegistry();

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        SHARED.clear();
        inHand = new CountDownLatch(1);
        gate = null;
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class,
            KafkoHealthAutoConfiguration.class})
    @Import(Slow.class)
    static class App {
        @Bean
        MeterRegistry meterRegistry() {
            return SHARED;
        }
    }

    static class Slow {
        @KafkoListener(id = "slowl", topics = "slowt")
        void on(String value) throws InterruptedException {
            if (RECEIVED.size() + 1 == inHandAt) {
                inHand.countDown();
            }
            CountDownLatch g = gate;
            if (g != null) {
                g.await(30, TimeUnit.SECONDS);
            } else {
                Thread.sleep(sleepMillis);
            }
            RECEIVED.add(value);
        }
    }

    static ConfigurableApplicationContext start(Path dir, String... more) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("kafko.data-dir=" + dir, "kafko.listener.poll-timeout=100ms", "spring.main.banner-mode=off",
                        "kafko.listener.max-poll-records=10")
                .properties(more).run();
    }

    @SuppressWarnings("unchecked")
    static void send(ConfigurableApplicationContext context, int from, int to) {
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        for (int i = from; i < to; i++) {
            template.send("slowt", "r" + i).join();
        }
    }

    @Test
    void aCloseWithARecordInHandFinishesItCommitsWhatWasProcessedAndTheRestComesOnceAfterTheRestart(@TempDir Path dir)
            throws Exception {
        sleepMillis = 1_000;
        inHandAt = 3;
        ConfigurableApplicationContext first = start(dir, "kafko.listener.shutdown-timeout=5s");
        send(first, 0, 10);
        assertThat(inHand.await(20, TimeUnit.SECONDS)).isTrue();
        long t0 = System.nanoTime();
        first.close();
        long closeMillis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(RECEIVED).as("the record in hand is finished").containsExactly("r0", "r1", "r2");
        // the record in hand takes up to 1 s, then the log closes (fsync): a loaded machine may take a second more;
        // what matters is that the close did not wait out the 5 s shutdown timeout for the rest of the poll
        assertThat(closeMillis).as("close waits for one record, not the poll").isLessThan(5_000);
        assertThat(SHARED.getMeters()).isEmpty();

        sleepMillis = 0;
        ConfigurableApplicationContext second = start(dir, "kafko.listener.shutdown-timeout=5s");
        try {
            KafkoTestUtils.waitForListeners(second, Duration.ofSeconds(20));
            assertThat(RECEIVED).as("nothing processed twice, nothing lost")
                    .containsExactly("r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9");
        } finally {
            second.close();
        }
    }

    @Test
    void aMemberThatOverrunsItsShutdownTimeoutLeavesNoMeterInASharedRegistry(@TempDir Path dir) throws Exception {
        sleepMillis = 1_500;
        inHandAt = 1;
        ConfigurableApplicationContext first = start(dir, "kafko.listener.shutdown-timeout=200ms");
        send(first, 0, 3);
        assertThat(inHand.await(20, TimeUnit.SECONDS)).isTrue();
        first.close();
        assertThat(SHARED.getMeters()).as("right after the close").isEmpty();
        // the member left to finish its record returns from the listener after the context closed
        await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(t -> t.getName().startsWith("slowl-")));
        assertThat(SHARED.getMeters()).as("once the overrunning member returned")
                .extracting(m -> m.getId().getName() + m.getId().getTags()).isEmpty();

        // the next context on the shared registry counts its own deliveries only
        sleepMillis = 0;
        int before = RECEIVED.size();
        ConfigurableApplicationContext second = start(dir);
        try {
            KafkoTestUtils.waitForListeners(second, Duration.ofSeconds(20));
            double timed = SHARED.find("kafko.listener.process").tag("listener", "slowl").timers().stream()
                    .mapToLong(io.micrometer.core.instrument.Timer::count).sum();
            assertThat(timed).as("deliveries of the second context").isEqualTo(RECEIVED.size() - before);
        } finally {
            second.close();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aSendThroughTheTemplateAfterItsContextClosedLeavesNoMeterInASharedRegistry(@TempDir Path dir) {
        sleepMillis = 0;
        ConfigurableApplicationContext first = start(dir);
        KafkoTemplate<Object, Object> template = first.getBean(KafkoTemplate.class);
        first.close();
        // a thread the context does not own (a scheduler of the application's, a client callback) sends late
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> template.send("slowt", "late"))
                .isInstanceOf(dev.kafko.KafkoClosedException.class);
        assertThat(SHARED.getMeters()).extracting(m -> m.getId().getName() + m.getId().getTags()).isEmpty();
    }

    @Test
    void aNewContextWhileTheOldOneStillClosesIsRefusedNamingTheDirectoryThenStartsAndResumes(@TempDir Path dir)
            throws Exception {
        // r0 is held until the second start was refused: the old context's close waits for it (up to its shutdown
        // timeout, which the gate never reaches), however long a loaded machine takes to start the second context
        gate = new CountDownLatch(1);
        inHandAt = 1;
        ConfigurableApplicationContext first = start(dir, "kafko.listener.shutdown-timeout=30s");
        send(first, 0, 5);
        assertThat(inHand.await(20, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close);
        Thread.sleep(100); // the close most likely began: either way the old context holds the directory
        Throwable refused = null;
        try {
            start(dir, "kafko.listener.shutdown-timeout=5s").close();
        } catch (RuntimeException e) {
            refused = e;
        } finally {
            gate.countDown();
        }
        assertThat(refused).as("the old context still holds the directory").isNotNull();
        assertThat(refused).hasRootCauseInstanceOf(AlreadyOpenException.class)
                .rootCause().hasMessageContaining(dir.toRealPath().toString());
        closing.get(10, TimeUnit.SECONDS);
        assertThat(RECEIVED).containsExactly("r0");
        // the close waited for the member's run to end; its thread may still be on its way out
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().startsWith("slowl-")));

        sleepMillis = 0;
        ConfigurableApplicationContext second = start(dir, "kafko.listener.shutdown-timeout=5s");
        try {
            KafkoTestUtils.waitForListeners(second, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("r0", "r1", "r2", "r3", "r4");
        } finally {
            second.close();
        }
        try (Kafko kafko = Kafko.open(dir)) {
            assertThat(kafko.groupInfo("slowt", "slowl").committed()).containsEntry(0, 5L);
        }
    }

    @Test
    void twoLiveContextsOnOneDirectoryTheSecondFailsWithATypedErrorNamingIt(@TempDir Path dir) throws Exception {
        sleepMillis = 0;
        Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet()); // other tests' contexts may run theirs
        ConfigurableApplicationContext first = start(dir);
        try {
            Throwable refused = null;
            try {
                start(dir).close();
            } catch (RuntimeException e) {
                refused = e;
            }
            assertThat(refused).hasRootCauseInstanceOf(AlreadyOpenException.class)
                    .rootCause().hasMessageContaining(dir.toRealPath().toString());
            // the first one still works
            send(first, 0, 2);
            KafkoTestUtils.waitForListeners(first, Duration.ofSeconds(20));
            assertThat(RECEIVED).containsExactly("r0", "r1");
        } finally {
            first.close();
        }
        // the close waited for the member's run to end and released the keep-alive thread, which then ends on its
        // own: either may still be on its way out
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().startsWith("slowl-")
                        || (t.getName().equals("kafko-keep-alive") && !before.contains(t))));
    }
}
