package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.health.KafkoHealthIndicator;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Claims of the README's section on delivery guarantees and slow listeners that no other test checks, each test
 * quoting the sentence it checks.
 */
class ReadmeClaimsDeliveryTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int RECORDS = 20;
    private static final int MAX_POLL = 5;
    /** The record the crashing process dies in: the third of its second poll. */
    private static final int CRASH_AT = 7;

    /**
     * A process that writes {@value #RECORDS} records to a one-partition topic, then starts its listener, which halts
     * the JVM (no close, no shutdown hook: a crash) in the middle of record {@value #CRASH_AT}.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    public static class Crasher {

        static volatile Path seen;

        /** {@code <data dir> <ack mode> <seen file>}. */
        public static void main(String[] args) throws Exception {
            seen = Path.of(args[2]);
            boolean manual = args[1].startsWith("manual");
            ConfigurableApplicationContext context = new SpringApplicationBuilder(Crasher.class,
                    manual ? Acking.class : Listener.class).web(WebApplicationType.NONE).properties(properties(args[0], args[1])).run();
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int i = 0; i < RECORDS; i++) {
                template.send("crashing", String.valueOf(i)).join();
            }
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("crashing").start();
        }

        static class Listener {
            @KafkoListener(id = "crashing", topics = "crashing", autoStartup = "false")
            void on(String value) throws Exception {
                Files.writeString(seen, value + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                if (value.equals(String.valueOf(CRASH_AT))) {
                    Runtime.getRuntime().halt(41);
                }
            }
        }

        /** The same, acknowledging each record it returns from. */
        static class Acking {
            @KafkoListener(id = "crashing", topics = "crashing", autoStartup = "false")
            void on(String value, Acknowledgment ack) throws Exception {
                new Listener().on(value);
                ack.acknowledge();
            }
        }
    }

    static String[] properties(String dir, String ackMode) {
        return new String[] {"kafko.data-dir=" + dir, "logging.level.root=warn", "kafko.topics.crashing.partitions=1",
                "kafko.listener.ack-mode=" + ackMode, "kafko.listener.max-poll-records=" + MAX_POLL,
                "kafko.listener.ack-count=3", "kafko.listener.ack-time=1h"};
    }

    /**
     * "What a crash repeats: ... Under the {@code record} and {@code manual_immediate} ack modes that is the record
     * each member had in hand; under {@code batch} and {@code manual} it is up to a whole poll
     * ({@code kafko.listener.max-poll-records}, 500), under {@code count} and {@code time} up to {@code ack-count}
     * records or {@code ack-time} of them (plus a poll)". The crash is a halted JVM; the restart is this one, on the
     * same data directory.
     */
    @ParameterizedTest
    @CsvSource({"record, 7", "manual-immediate, 7", "batch, 5", "manual, 5", "count, 5"})
    void aCrashRepeatsWhatTheAckModeSays(String ackMode, int firstRepeated, @TempDir Path dir) throws Exception {
        Path seen = dir.resolve("seen");
        Process p = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Crasher.class.getName(), dir.resolve("data").toString(),
                ackMode, seen.toString())).redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile())
                .start();
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("crashed: %s", log(dir)).isTrue();
            assertThat(p.exitValue()).as("halted: %s", log(dir)).isEqualTo(41);
        } finally {
            p.destroyForcibly();
        }
        assertThat(Files.readAllLines(seen)).containsExactlyElementsOf(range(0, CRASH_AT + 1));

        List<String> again = new CopyOnWriteArrayList<>();
        ApplicationContextRunner restart = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues(properties(dir.resolve("data").toString(), ackMode));
        restart = ackMode.startsWith("manual") ? restart.withBean(AckingRecorder.class, () -> new AckingRecorder(again))
                : restart.withBean(Recorder.class, () -> new Recorder(again));
        restart.run(context -> {
            assertThat(context).hasNotFailed();
            await().atMost(WAIT).until(() -> again.size() >= RECORDS - firstRepeated);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(again).containsExactlyElementsOf(range(firstRepeated, RECORDS));
        });
    }

    static class Recorder {
        final List<String> received;

        Recorder(List<String> received) {
            this.received = received;
        }

        @KafkoListener(id = "crashing", topics = "crashing")
        void on(String value) {
            received.add(value);
        }
    }

    static class AckingRecorder {
        private final List<String> received;

        AckingRecorder(List<String> received) {
            this.received = received;
        }

        @KafkoListener(id = "crashing", topics = "crashing")
        void on(String value, Acknowledgment ack) {
            received.add(value);
            ack.acknowledge();
        }
    }

    private static List<String> range(int from, int to) {
        return IntStream.range(from, to).mapToObj(String::valueOf).toList();
    }

    private static String log(Path dir) throws java.io.IOException {
        Path log = dir.resolve("log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    static volatile CountDownLatch release = new CountDownLatch(1);

    static class Hanging {
        @KafkoListener(id = "hanging", topics = "hanging")
        void on(String value) throws InterruptedException {
            if (value.equals("hang")) {
                release.await();
            }
        }
    }

    /**
     * "A listener that hangs shows as lag ({@code kafko.consumer.lag}) that grows while its container stays running
     * and healthy; {@code kafko.listener.process} times only the calls that return."
     */
    @Test
    void aHangingListenerShowsAsGrowingLagWhileItsContainerStaysRunningAndHealthy() {
        release = new CountDownLatch(1);
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class,
                        KafkoMetricsAutoConfiguration.class, KafkoHealthAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.hanging.partitions=1")
                .withBean(Hanging.class).run(context -> {
                    try {
                        @SuppressWarnings("unchecked")
                        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                        MeterRegistry meters = context.getBean(MeterRegistry.class);
                        template.send("hanging", "fine").join();
                        await().atMost(WAIT).until(() -> processed(meters) == 1);
                        template.send("hanging", "hang").join();
                        template.send("hanging", "after").join();
                        await().atMost(WAIT).until(() -> lag(meters) == 2.0);
                        template.send("hanging", "more").join();
                        await().atMost(WAIT).until(() -> lag(meters) == 3.0);

                        assertThat(context.getBean(KafkoListenerEndpointRegistry.class)
                                .getListenerContainer("hanging")).satisfies(c -> {
                                    assertThat(c.isRunning()).isTrue();
                                    assertThat(c.isInExpectedState()).isTrue();
                                });
                        assertThat(context.getBean(KafkoHealthIndicator.class).health().getStatus())
                                .isEqualTo(Status.UP);
                        assertThat(processed(meters)).isEqualTo(1);
                    } finally {
                        release.countDown();
                    }
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    await().atMost(WAIT).until(() -> lag(meters) == 0.0);
                    assertThat(processed(meters)).isEqualTo(4);
                });
    }

    private static double lag(MeterRegistry meters) {
        return meters.get("kafko.consumer.lag").tag("group", "hanging").tag("partition", "0").gauge().value();
    }

    private static long processed(MeterRegistry meters) {
        return meters.find("kafko.listener.process").tag("listener", "hanging").timers().stream()
                .mapToLong(Timer::count).sum();
    }
}
