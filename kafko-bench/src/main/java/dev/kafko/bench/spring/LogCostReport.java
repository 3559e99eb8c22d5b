package dev.kafko.bench.spring;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Collects {@link LogCostRun.Result}s and prints medians, ranges and the cost over the baseline. Single-threaded. */
final class LogCostReport {

    private static final String BASELINE = "none";

    private final Map<String, List<LogCostRun.Result>> byLog = new LinkedHashMap<>();

    void add(LogCostRun.Result result) {
        byLog.computeIfAbsent(result.log(), k -> new ArrayList<>()).add(result);
    }

    static String describe(LogCostRun.Result r) {
        if (r.firstRecordNanos() == 0) {
            return String.format(Locale.ROOT, "%-15s start-up %8.1f ms (CPU %8.1f ms, main thread %8.1f ms, %,d classes)",
                    r.log(), millis(r.startupNanos()), millis(r.startupCpuNanos()), millis(r.startupMainCpuNanos()),
                    r.startupClasses());
        }
        return String.format(Locale.ROOT,
                "%-15s start-up %8.1f ms (CPU %8.1f ms, main thread %8.1f ms, %,d classes), first record %8.1f ms, "
                        + "warm round trip %9.1f µs, %,12.0f records/s",
                r.log(), millis(r.startupNanos()), millis(r.startupCpuNanos()), millis(r.startupMainCpuNanos()),
                r.startupClasses(),
                millis(r.firstRecordNanos()),
                micros(r.roundTripNanos()), r.recordsPerSecond());
    }

    /** A Markdown table: median [min–max] over the runs of each log. */
    String table(LogCostRun.Settings settings) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT,
                "median [min–max] over the runs; round trip: median of %d after %d warm-up; throughput: %,d records%n%n",
                settings.roundTrips(), settings.warmupRoundTrips(), settings.records()));
        out.append("| log | runs | start-up ms | extra start-up ms | first record ms | extra start-up + first record ms "
                + "| start-up CPU ms | extra start-up CPU ms | extra main-thread CPU ms | classes loaded | warm round trip µs "
                + "| records/s |\n");
        out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        List<LogCostRun.Result> baseline = byLog.get(BASELINE);
        double baselineStartup = baseline == null ? Double.NaN : median(baseline, r -> millis(r.startupNanos()));
        double baselineCpu = baseline == null ? Double.NaN : median(baseline, r -> millis(r.startupCpuNanos()));
        double baselineMainCpu = baseline == null ? Double.NaN : median(baseline, r -> millis(r.startupMainCpuNanos()));
        for (Map.Entry<String, List<LogCostRun.Result>> e : byLog.entrySet()) {
            List<LogCostRun.Result> results = e.getValue();
            boolean hasLog = !e.getKey().equals(BASELINE);
            double extra = median(results, r -> millis(r.startupNanos())) - baselineStartup;
            double first = median(results, r -> millis(r.firstRecordNanos()));
            double extraCpu = median(results, r -> millis(r.startupCpuNanos())) - baselineCpu;
            double extraMainCpu = median(results, r -> millis(r.startupMainCpuNanos())) - baselineMainCpu;
            out.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    e.getKey(), results.size(),
                    cell(results, r -> millis(r.startupNanos()), "%.0f"),
                    hasLog && !Double.isNaN(extra) ? String.format(Locale.ROOT, "%.0f", extra) : "—",
                    hasLog ? cell(results, r -> millis(r.firstRecordNanos()), "%.1f") : "—",
                    hasLog && !Double.isNaN(extra) ? String.format(Locale.ROOT, "%.0f", extra + first) : "—",
                    cell(results, r -> millis(r.startupCpuNanos()), "%.0f"),
                    hasLog && !Double.isNaN(extraCpu) ? String.format(Locale.ROOT, "%.0f", extraCpu) : "—",
                    hasLog && !Double.isNaN(extraMainCpu) ? String.format(Locale.ROOT, "%.0f", extraMainCpu) : "—",
                    String.format(Locale.ROOT, "%,.0f", median(results, r -> r.startupClasses())),
                    hasLog ? cell(results, r -> micros(r.roundTripNanos()), "%.0f") : "—",
                    hasLog ? cell(results, LogCostRun.Result::recordsPerSecond, "%,.0f") : "—"));
        }
        return out.toString();
    }

    private static String cell(List<LogCostRun.Result> results, ToDoubleFunction<LogCostRun.Result> metric, String format) {
        double[] values = results.stream().mapToDouble(metric).sorted().toArray();
        return String.format(Locale.ROOT, format + " [" + format + "–" + format + "]",
                median(values), values[0], values[values.length - 1]);
    }

    private static double median(List<LogCostRun.Result> results, ToDoubleFunction<LogCostRun.Result> metric) {
        return median(results.stream().mapToDouble(metric).sorted().toArray());
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }

    private static double micros(long nanos) {
        return nanos / 1e3;
    }
}
