package dev.kafko.bench.spring;

import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * Adds the one-way send-to-listener latency percentiles of {@link KafkoListenerLatencyBenchmark} to
 * JMH's results: {@code -prof dev.kafko.bench.spring.ListenerLatencyProfiler}. JMH calls it on the
 * benchmark thread between iterations, inside the forked JVM.
 */
public final class ListenerLatencyProfiler implements InternalProfiler {

    @Override
    public String getDescription() {
        return "send-to-@KafkoListener latency percentiles (µs) of KafkoListenerLatencyBenchmark";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        LatencyRecorder.LISTENER.startIteration();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
            IterationResult result) {
        long[] sorted = LatencyRecorder.LISTENER.sinceIterationStart();
        if (sorted.length == 0) {
            return List.of();
        }
        return List.of(
                micros("latency.p50", LatencyRecorder.percentile(sorted, 0.50), AggregationPolicy.AVG),
                micros("latency.p99", LatencyRecorder.percentile(sorted, 0.99), AggregationPolicy.AVG),
                micros("latency.p99.9", LatencyRecorder.percentile(sorted, 0.999), AggregationPolicy.AVG),
                micros("latency.max", sorted[sorted.length - 1], AggregationPolicy.MAX));
    }

    private static ScalarResult micros(String label, long nanos, AggregationPolicy policy) {
        return new ScalarResult(label, nanos / 1e3, "µs", policy);
    }
}
