package dev.kafko.bench.spring;

import dev.kafko.bench.BenchJvm;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code KafkoTemplate.send} to a {@code @KafkoListener(String)} end to end, in the application that
 * {@link SpringLogCostComparison} starts for kafko ({@link LogCostApp} with {@link KafkoLog}'s listener,
 * {@code kafko.ephemeral=true}).
 *
 * <ul>
 *   <li>{@link #throughput}: sends {@value #BATCH} 256-byte records without waiting, then parks until
 *       the listener has all of them; the score is records per second (goal ≥ 1 M/s).</li>
 *   <li>{@link #roundTrip}: sends one record and parks until the listener has it; JMH samples the
 *       time of each (the warm round trip, goal ≤ 450 µs).</li>
 * </ul>
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class KafkoTemplateListenerBenchmark {

    static final int BATCH = 1000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private ConfigurableApplicationContext context;
    private KafkoTemplate<Object, Object> template;
    private Probe probe;

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void startApplication() {
        context = BootContexts.startOnKafko(List.of(LogCostApp.class, KafkoLog.Listener.class));
        template = context.getBean(KafkoTemplate.class);
        probe = context.getBean(Probe.class);
    }

    @TearDown(Level.Trial)
    public void closeApplication() {
        context.close();
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(BATCH)
    public void throughput() {
        probe.expect(BATCH);
        for (int i = 0; i < BATCH; i++) {
            template.send(LogCostApp.TOPIC, LogCostRun.PAYLOAD);
        }
        probe.await(TIMEOUT);
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void roundTrip() {
        probe.expect(1);
        template.send(LogCostApp.TOPIC, LogCostRun.PAYLOAD);
        probe.await(TIMEOUT);
    }
}
