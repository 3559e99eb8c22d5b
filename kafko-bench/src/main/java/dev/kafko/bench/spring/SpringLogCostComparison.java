package dev.kafko.bench.spring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What a log costs a Spring Boot test: the same Boot application ({@link LogCostApp}) started with no
 * log, with spring-kafka on spring-kafka-test's embedded KRaft broker, and with the kafko starter,
 * each in a fresh JVM, several times in turn. For each it reports the start-up (broker included),
 * the first record's trip from the template to the listener, the median warm round trip (send, then
 * park until the listener has it) and records per second end to end; then the extra start-up over
 * the baseline.
 *
 * <pre>
 * java -cp kafko-bench/target/benchmarks.jar dev.kafko.bench.spring.SpringLogCostComparison \
 *     [--runs=3] [--logs=none,embedded-kafka,kafko] [--warmup-round-trips=50] [--round-trips=200] \
 *     [--records=100000] [--timeout-seconds=120] [--startup-steps=0]
 * </pre>
 *
 * {@code --logs} may also name {@code kafko-cold}: kafko with its background pre-initializer switched off
 * (every variant but {@code kafko} runs so, as an application without kafko would).
 * {@code --startup-steps=N} prints each run's N longest Spring start-up steps (bean creation and the
 * like, from Spring's {@code ApplicationStartup}), to see where a log's start-up goes. The JVM flags of
 * this process are passed on to the child JVMs. Runs on the main thread.
 */
public final class SpringLogCostComparison {

    private static final String CHILD = "--child=";

    private SpringLogCostComparison() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = parse(args);
        LogCostRun.Settings settings = new LogCostRun.Settings(
                intOption(options, "warmup-round-trips", 50),
                intOption(options, "round-trips", 200),
                intOption(options, "records", 100_000),
                Duration.ofSeconds(intOption(options, "timeout-seconds", 120)),
                intOption(options, "startup-steps", 0));
        String child = options.get("child");
        if (child != null) {
            System.out.println(LogCostRun.measure(log(child), settings).toLine());
            System.out.flush();
            // the embedded broker and the Kafka clients leave non-daemon threads behind
            System.exit(0);
        }
        int runs = intOption(options, "runs", 3);
        List<String> logs = List.of(options.getOrDefault("logs", "none,embedded-kafka,kafko").split(","));
        LogCostReport report = new LogCostReport();
        for (int run = 1; run <= runs; run++) {
            for (String log : logs) {
                LogCostRun.Result result = fork(log, args, Duration.ofSeconds(30).plus(settings.timeout().multipliedBy(3)));
                System.out.printf("run %d/%d %s%n", run, runs, LogCostReport.describe(result));
                report.add(result);
            }
        }
        System.out.println();
        System.out.print(report.table(settings));
    }

    static LogUnderTest log(String name) {
        return switch (name) {
            case "none" -> new NoLog();
            case "embedded-kafka" -> new EmbeddedKafkaLog();
            case KafkoLog.NAME, KafkoLog.COLD -> new KafkoLog(name);
            default -> throw new IllegalArgumentException("unknown log '" + name + "': none, embedded-kafka, kafko or "
                    + KafkoLog.COLD);
        };
    }

    /** Runs one measurement in a new JVM with this JVM's flags and class path and returns its result. */
    private static LogCostRun.Result fork(String log, String[] args, Duration timeout) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        if (!log.equals(KafkoLog.NAME)) {
            // an application without kafko has no kafko pre-initializer; kafko-cold switches it off
            command.add("-D" + KafkoLog.PREINITIALIZER_IGNORE + "=true");
        }
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(SpringLogCostComparison.class.getName());
        command.addAll(List.of(args));
        command.add(CHILD + log);
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        LogCostRun.Result result = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (LogCostRun.Result.isResultLine(line)) {
                    result = LogCostRun.Result.parse(line);
                } else {
                    System.out.println("  [" + log + "] " + line);
                }
            }
        } catch (UncheckedIOException e) {
            process.destroyForcibly();
            throw e;
        }
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the JVM measuring " + log + " did not finish within " + timeout);
        }
        if (process.exitValue() != 0 || result == null) {
            throw new IllegalStateException("the JVM measuring " + log + " failed with exit code " + process.exitValue());
        }
        return result;
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --name=value, got " + arg);
            }
            options.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        return options;
    }

    private static int intOption(Map<String, String> options, String name, int defaultValue) {
        @Nullable String value = options.get(name);
        return value == null ? defaultValue : Integer.parseInt(value);
    }
}
