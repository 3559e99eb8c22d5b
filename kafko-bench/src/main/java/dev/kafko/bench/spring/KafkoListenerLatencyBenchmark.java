package dev.kafko.bench.spring;

import dev.kafko.bench.BenchJvm;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.core.KafkoTemplate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * One-way latency from {@code KafkoTemplate.send} to a {@code @KafkoListener(String)} at a fixed
 * rate ({@link #ratePerSecond}, default 50 K records/s; goal p50 ≤ 20 µs, p99 ≤ 200 µs). Each
 * invocation sends one 256-byte record at its scheduled time; the listener stamps its arrival. The
 * score is the achieved send rate (it should equal the target); the percentiles come from
 * {@code -prof dev.kafko.bench.spring.ListenerLatencyProfiler}, per iteration.
 *
 * <p>The sender parks until the next scheduled send and never spins; Linux parks for at least
 * ~50–60 µs, so at 50 K/s records leave in bursts of a few that keep the average rate. Latency is
 * measured from the moment a record is handed to the template, not from its scheduled time, so
 * that the sender's own parking granularity is not counted.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class KafkoListenerLatencyBenchmark {

    private static final String TOPIC = "bench-listener-latency";

    @Param("50000")
    public int ratePerSecond;

    private ConfigurableApplicationContext context;
    private KafkoTemplate<Object, Object> template;
    private long intervalNanos;
    private long nextSendAt;
    private long sequence;
    private final byte[] payloadBuffer = LatencyRecorder.newPayloadBuffer();

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void startApplication() {
        context = BootContexts.startOnKafko(List.of(App.class));
        template = context.getBean(KafkoTemplate.class);
        intervalNanos = 1_000_000_000L / ratePerSecond;
    }

    /** Restarts the schedule so that the pause between iterations is not made up in one burst. */
    @Setup(Level.Iteration)
    public void restartSchedule() {
        nextSendAt = System.nanoTime();
    }

    @TearDown(Level.Trial)
    public void closeApplication() {
        context.close();
    }

    @Benchmark
    public void sendAtFixedRate() {
        long wait = nextSendAt - System.nanoTime();
        if (wait > 0) {
            LockSupport.parkNanos(wait);
        }
        nextSendAt += intervalNanos;
        long seq = sequence++;
        String value = LatencyRecorder.payload(seq, payloadBuffer);
        LatencyRecorder.LISTENER.sent(seq, System.nanoTime());
        template.send(TOPIC, value);
    }

    /** The application: auto-configuration and a listener that records each arrival. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        Listener listener() {
            return new Listener();
        }
    }

    static final class Listener {

        @KafkoListener(id = "bench-listener-latency", topics = TOPIC)
        void on(String value) {
            long now = System.nanoTime();
            LatencyRecorder.LISTENER.received(LatencyRecorder.sequenceOf(value), now);
        }
    }
}
