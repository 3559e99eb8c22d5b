package dev.kafko.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.health.KafkoHealthIndicator;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/** many contexts started and closed in a row on one data directory leave nothing behind. */
class ContextCyclesTest {

    /** Enough for a leak to show in threads, descriptors, mappings or meters; heap is compared from cycle 5 on. */
    private static final int CYCLES = 12;

    static final AtomicInteger RECORDS = new AtomicInteger();
    static final AtomicInteger BATCHED = new AtomicInteger();
    static final AtomicInteger PATTERN = new AtomicInteger();

    /** A registry that outlives the contexts: Spring must not close it with the first one. */
    static final class SharedRegistry extends SimpleMeterRegistry {
        @Override
        public void close() {
        }
    }

    static final SharedRegistry SHARED = new SharedRegistry();

    @Test
    void thirtyContextsOnOneDirectoryLeaveNoThreadDescriptorMappingMeterOrContext(@TempDir Path dir) throws Exception {
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class,
                        KafkoMetricsAutoConfiguration.class, KafkoHealthAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> SHARED)
                .withBean(Listeners.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.cyc-rec.partitions=3",
                        "kafko.topics.cyc-bat.partitions=3", "kafko.topics.cycp-a.partitions=2",
                        "kafko.listener.dead-letter.enabled=true", "kafko.listener.retry.max-attempts=2",
                        "kafko.listener.poll-timeout=100ms");
        Set<String> before = threadNames();
        List<WeakReference<ConfigurableApplicationContext>> closed = new ArrayList<>();
        List<String> rows = new ArrayList<>();
        long fds5 = 0;
        long heap5 = 0;
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            int c = cycle;
            runner.run(context -> {
                closed.add(new WeakReference<>(context.getSourceApplicationContext()));
                @SuppressWarnings("unchecked")
                KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                for (int i = 0; i < 30; i++) {
                    template.send("cyc-rec", "k" + i, i == 7 ? "poison" : "r" + c + "-" + i);
                    template.send("cyc-bat", "k" + i, "b" + c + "-" + i);
                    template.send("cycp-a", "k" + i, "p" + c + "-" + i);
                }
                template.flush();
                KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(15));
                assertThat(context.getBean(KafkoHealthIndicator.class).health(true).getStatus().getCode())
                        .isEqualTo("UP");
                assertThat(SHARED.find("kafko.listener.process").meters()).isNotEmpty();
            });
            // the mappings go when the JVM's cleaner runs after a collection, which a loaded machine delays
            long maps = mappings(dir);
            for (long deadline = System.nanoTime() + 5_000_000_000L; maps > 0 && System.nanoTime() < deadline; ) {
                System.gc();
                Thread.sleep(50);
                maps = mappings(dir);
            }
            // the close waited for each member's run to end and released the keep-alive thread: those threads end on
            // their own right after, and a loaded machine may not have run them to their end yet
            Set<String> leftThreads = threadsSince(before);
            for (long deadline = System.nanoTime() + 10_000_000_000L; !leftThreads.isEmpty()
                    && System.nanoTime() < deadline; ) {
                Thread.sleep(20);
                leftThreads = threadsSince(before);
            }
            long fds = fds();
            long heap = usedHeap();
            rows.add("cycle " + cycle + ": threads+" + leftThreads + " fds=" + fds + " maps=" + maps + " meters="
                    + SHARED.getMeters().size() + " heap=" + (heap >> 20) + "MB");
            if (cycle == 5) {
                fds5 = fds;
                heap5 = heap;
            }
            assertThat(leftThreads).as(rows.toString()).isEmpty();
            assertThat(maps).as(rows.toString()).isZero();
            assertThat(SHARED.getMeters()).as(rows.toString()).isEmpty();
        }
        System.out.println(String.join("\n", rows));
        assertThat(RECORDS.get()).isEqualTo(CYCLES * 29);
        assertThat(BATCHED.get()).isEqualTo(CYCLES * 30);
        assertThat(PATTERN.get()).isEqualTo(CYCLES * 30);
        assertThat(fds()).as(rows.toString()).isLessThanOrEqualTo(fds5 + 2);
        assertThat(usedHeap() - heap5).as(rows.toString()).isLessThan(32L << 20);
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        long alive = closed.stream().filter(ref -> ref.get() != null).count();
        assertThat(alive).as("closed contexts still reachable").isZero();
        try (Kafko reopened = Kafko.open(dir)) {
            assertThat(reopened.groupInfo("cyc-rec", "rec").lag().values()).allMatch(lag -> lag == 0);
            assertThat(reopened.groupInfo("cyc-bat", "bat").lag().values()).allMatch(lag -> lag == 0);
            assertThat(reopened.topic("cyc-rec.DLT").orElseThrow().partition(0).endOffset()
                    + reopened.topic("cyc-rec.DLT").orElseThrow().partition(1).endOffset()
                    + reopened.topic("cyc-rec.DLT").orElseThrow().partition(2).endOffset()).isEqualTo(CYCLES);
        }
    }

    static Set<String> threadsSince(Set<String> before) {
        Set<String> left = new TreeSet<>(threadNames());
        left.removeAll(before);
        return left;
    }

    static Set<String> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .collect(Collectors.toSet());
    }

    static long fds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    static long mappings(Path dir) throws IOException {
        String d = dir.toRealPath().toString();
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(l -> l.contains(d)).count();
        }
    }

    static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    static class Listeners {
        @KafkoListener(id = "rec", topics = "cyc-rec", concurrency = "3", ackMode = "record")
        void rec(String value) {
            if (value.equals("poison")) {
                throw new IllegalStateException("poison");
            }
            RECORDS.incrementAndGet();
        }

        @KafkoListener(id = "bat", topics = "cyc-bat", concurrency = "3", batch = "true")
        void bat(List<String> values) {
            BATCHED.addAndGet(values.size());
        }

        @KafkoListener(id = "pat", topicPattern = "cycp-.*", concurrency = "3")
        void pat(String value) {
            PATTERN.incrementAndGet();
        }
    }
}
