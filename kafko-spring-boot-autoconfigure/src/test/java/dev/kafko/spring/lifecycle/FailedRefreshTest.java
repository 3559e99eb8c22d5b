package dev.kafko.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** a context whose refresh fails after kafko opened leaves nothing behind. */
class FailedRefreshTest {

    static final AtomicInteger PROCESSED = new AtomicInteger();
    static volatile CountDownLatch consumed = new CountDownLatch(1);

    /** The threads of the JVM before the test: other tests' contexts (a cached one, say) may still run theirs. */
    static Set<Thread> before = Set.of();

    @BeforeEach
    void reset() {
        before = Set.copyOf(Thread.getAllStackTraces().keySet());
        PROCESSED.set(0);
        consumed = new CountDownLatch(5);
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class,
            KafkoHealthAutoConfiguration.class})
    @Import(Listeners.class)
    static class App {
        @Bean
        io.micrometer.core.instrument.MeterRegistry meterRegistry() {
            return new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        }
    }

    static class Listeners {
        @KafkoListener(id = "failref", topics = "failref", concurrency = "3")
        void on(String value) {
            PROCESSED.incrementAndGet();
            consumed.countDown();
        }

        @KafkoListener(id = "failrefb", topics = "failref", groupId = "failrefb", batch = "true")
        void onBatch(java.util.List<String> values) {
        }
    }

    static class ThrowsInPostConstruct implements org.springframework.beans.factory.InitializingBean {
        private final KafkoTemplate<?, ?> template;

        ThrowsInPostConstruct(KafkoTemplate<?, ?> template) {
            this.template = template;
        }

        @Override
        public void afterPropertiesSet() {
            throw new IllegalStateException("boom in @PostConstruct");
        }
    }

    /** Starts after the listener registry, once the listeners consumed records, and fails the refresh. */
    static class FailsAfterListenersRun implements SmartLifecycle {
        private final KafkoTemplate<Object, Object> template;

        @SuppressWarnings("unchecked")
        FailsAfterListenersRun(KafkoTemplate<?, ?> template) {
            this.template = (KafkoTemplate<Object, Object>) template;
        }

        @Override
        public void start() {
            for (int i = 0; i < 50; i++) {
                template.send("failref", "k" + i, "v" + i).join();
            }
            try {
                consumed.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("boom in a late lifecycle start");
        }

        @Override
        public void stop() {
        }

        @Override
        public boolean isRunning() {
            return false;
        }

        @Override
        public int getPhase() {
            return Integer.MAX_VALUE;
        }
    }

    /** The kafko and listener threads started since the test began and still alive. */
    static Set<String> kafkoThreads() {
        Set<String> names = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String n = t.getName();
            if (t.isAlive() && !before.contains(t) && (n.startsWith("kafko") || n.startsWith("failref"))) {
                names.add(n);
            }
        }
        return names;
    }

    static void assertReleased(Path dir) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!kafkoThreads().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(kafkoThreads()).as("threads left").isEmpty();
        try (Kafko again = Kafko.open(dir)) {
            assertThat(again.dataDir()).isNotNull();
        }
    }

    SpringApplicationBuilder app(Path dir, Class<?>... more) {
        Class<?>[] sources = new Class<?>[more.length + 1];
        sources[0] = App.class;
        System.arraycopy(more, 0, sources, 1, more.length);
        return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
                .properties("kafko.data-dir=" + dir, "kafko.topics.failref.partitions=3",
                        "kafko.listener.poll-timeout=100ms", "spring.main.banner-mode=off");
    }

    @Test
    void aPostConstructFailureReleasesTheDirectoryAndEveryThread(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> app(dir, ThrowsInPostConstruct.class).run())
                .hasStackTraceContaining("boom in @PostConstruct");
        assertReleased(dir);
    }

    @Test
    void aLifecycleFailureAfterTheListenersRanReleasesTheDirectoryAndEveryThreadAndCommitsWhatWasProcessed(
            @TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> app(dir, FailsAfterListenersRun.class).run())
                .hasStackTraceContaining("boom in a late lifecycle start");
        assertThat(PROCESSED.get()).isPositive();
        assertReleased(dir);
        try (Kafko again = Kafko.open(dir)) {
            long committed = again.groupInfo("failref", "failref").committed().values().stream()
                    .mapToLong(Long::longValue).sum();
            assertThat(committed).as("processed %s", PROCESSED.get()).isEqualTo(PROCESSED.get());
        }
    }

    @Test
    void aRunnerFailureReleasesTheDirectoryAndEveryThread(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> app(dir, FailingRunner.class).run()).hasStackTraceContaining("boom in a runner");
        assertReleased(dir);
    }

    static class FailingRunner implements CommandLineRunner {
        @Override
        public void run(String... args) {
            throw new IllegalStateException("boom in a runner");
        }
    }

    @Test
    void aBadPropertyFailsBeforeTheDirectoryIsCreatedNamingIt(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("never");
        assertThatThrownBy(() -> app(dir).properties("kafko.listener.concurrency=0").run())
                .hasStackTraceContaining("kafko.listener.concurrency");
        assertThat(Files.exists(dir)).isFalse();
        assertThat(kafkoThreads()).isEmpty();
    }

    @Test
    void aBadListenerAttributeFailsNamingTheListenerAndReleasesTheDirectory(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> app(dir, BadListener.class).run()).hasStackTraceContaining("badlistener")
                .hasStackTraceContaining("concurrency");
        assertReleased(dir);
    }

    static class BadListener {
        @KafkoListener(id = "badlistener", topics = "failref", concurrency = "three")
        void on(String value) {
        }
    }
}
