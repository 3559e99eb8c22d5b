package dev.kafko.bench.spring;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.boot.context.metrics.buffering.StartupTimeline;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One measurement of one {@link LogUnderTest} in the current JVM, which should be fresh so that the
 * start-up includes class loading as a test run pays it. Runs on the calling thread.
 */
final class LogCostRun {

    /** Every record is this 256-character ASCII string: 256 bytes, like the other benchmarks. */
    static final String PAYLOAD = "0123456789abcdef".repeat(16);

    /**
     * What one JVM measured; times in nanoseconds, zero where the variant has no log. The start-up CPU
     * time is that of the whole process (every thread, JIT and GC included) when the context is
     * ready: on a shared machine it moves less than the wall-clock start-up, and the number of classes
     * loaded by then does not move at all. The main thread's CPU time by then is the start-up work that
     * ran on the thread the start-up waits for (work moved to a background thread leaves it).
     */
    record Result(String log, long startupNanos, long startupCpuNanos, long startupMainCpuNanos, long startupClasses,
            long firstRecordNanos, long roundTripNanos, double recordsPerSecond) {

        private static final String TAG = "LOG-COST-RESULT";

        String toLine() {
            return String.format(Locale.ROOT, "%s %s %d %d %d %d %d %d %.1f", TAG, log, startupNanos, startupCpuNanos,
                    startupMainCpuNanos, startupClasses, firstRecordNanos, roundTripNanos, recordsPerSecond);
        }

        static boolean isResultLine(String line) {
            return line.startsWith(TAG + " ");
        }

        static Result parse(String line) {
            String[] f = line.split(" ");
            if (f.length != 9 || !f[0].equals(TAG)) {
                throw new IllegalArgumentException("not a result line: " + line);
            }
            return new Result(f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4]),
                    Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), Double.parseDouble(f[8]));
        }
    }

    /** How much to measure after start-up; {@code startupSteps} &gt; 0 prints that many of the longest start-up steps. */
    record Settings(int warmupRoundTrips, int roundTrips, int records, Duration timeout, int startupSteps) {
    }

    /** System property: print each thread's CPU time at ready. */
    static final String THREAD_CPU = "kafko.bench.threadCpu";

    private LogCostRun() {
    }

    static Result measure(LogUnderTest log, Settings settings) {
        try (log) {
            long begin = System.nanoTime();
            Map<String, Object> properties = log.beforeContext();
            List<Class<?>> sources = new ArrayList<>(List.of(LogCostApp.class));
            sources.addAll(log.sources());
            BufferingApplicationStartup steps = new BufferingApplicationStartup(settings.startupSteps() > 0 ? 100_000 : 0);
            try (ConfigurableApplicationContext context =
                    BootContexts.start(sources, properties, log.excludedAutoConfigurations(), steps)) {
                long startup = System.nanoTime() - begin;
                printLongestSteps(steps, settings.startupSteps());
                long startupCpu = processCpuNanos();
                long startupMainCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                long startupClasses = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
                if (Boolean.getBoolean(THREAD_CPU)) {
                    printThreadCpu(log.name());
                }
                if (!log.hasLog()) {
                    return new Result(log.name(), startup, startupCpu, startupMainCpu, startupClasses, 0, 0, 0);
                }
                Probe probe = context.getBean(Probe.class);
                LogUnderTest.Sender sender = log.sender(context);
                long firstRecord = roundTrip(probe, sender, settings.timeout());
                if (Boolean.getBoolean(THREAD_CPU)) {
                    System.out.printf(Locale.ROOT, "first record received at uptime %.3f s%n",
                            ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
                }
                for (int i = 0; i < settings.warmupRoundTrips(); i++) {
                    roundTrip(probe, sender, settings.timeout());
                }
                long[] roundTrips = new long[settings.roundTrips()];
                for (int i = 0; i < roundTrips.length; i++) {
                    roundTrips[i] = roundTrip(probe, sender, settings.timeout());
                }
                Arrays.sort(roundTrips);
                return new Result(log.name(), startup, startupCpu, startupMainCpu, startupClasses, firstRecord, roundTrips[roundTrips.length / 2],
                        throughput(probe, sender, settings));
            }
        }
    }

    /** Prints the {@code count} longest start-up steps (nested steps include their children). */
    private static void printLongestSteps(BufferingApplicationStartup steps, int count) {
        steps.getBufferedTimeline().getEvents().stream()
                .sorted(Comparator.comparing(StartupTimeline.TimelineEvent::getDuration).reversed())
                .limit(count)
                .forEach(e -> {
                    StringBuilder tags = new StringBuilder();
                    e.getStartupStep().getTags().forEach(t -> tags.append(' ').append(t.getKey()).append('=').append(t.getValue()));
                    System.out.printf(Locale.ROOT, "step %8.1f ms %s%s%n", e.getDuration().toNanos() / 1e6,
                            e.getStartupStep().getName(), tags);
                });
    }

    /** Prints each thread's CPU time so far, by name with digits folded ({@code /proc/self/task}, Linux only). */
    private static void printThreadCpu(String log) {
        System.out.printf(Locale.ROOT, "ready at uptime %.3f s%n", ManagementFactory.getRuntimeMXBean().getUptime() / 1e3);
        Map<String, Long> byName = new java.util.TreeMap<>();
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (java.nio.file.Path task : (Iterable<java.nio.file.Path>) tasks::iterator) {
                try {
                    String name = java.nio.file.Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "N");
                    long nanos = Long.parseLong(java.nio.file.Files.readString(task.resolve("schedstat")).split(" ")[0]);
                    byName.merge(name, nanos, Long::sum);
                } catch (java.io.IOException | RuntimeException e) {
                    // the thread ended while it was read
                }
            }
        } catch (java.io.IOException e) {
            return;
        }
        byName.forEach((name, nanos) -> System.out.printf(Locale.ROOT, "thread-cpu %s %-20s %8.1f ms%n", log, name, nanos / 1e6));
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Sends one record and parks until the listener has it. */
    private static long roundTrip(Probe probe, LogUnderTest.Sender sender, Duration timeout) {
        probe.expect(1);
        long start = System.nanoTime();
        sender.send(PAYLOAD);
        probe.await(timeout);
        return System.nanoTime() - start;
    }

    /** Sends {@code records} records without waiting, then parks until the listener has all of them. */
    private static double throughput(Probe probe, LogUnderTest.Sender sender, Settings settings) {
        probe.expect(settings.records());
        long start = System.nanoTime();
        for (int i = 0; i < settings.records(); i++) {
            sender.send(PAYLOAD);
        }
        probe.await(settings.timeout());
        return settings.records() * 1e9 / (System.nanoTime() - start);
    }
}
