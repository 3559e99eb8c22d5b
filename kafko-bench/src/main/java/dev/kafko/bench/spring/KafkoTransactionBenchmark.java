package dev.kafko.bench.spring;

import dev.kafko.bench.BenchJvm;
import dev.kafko.spring.core.KafkoTemplate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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

/**
 * What a transaction of the template costs: {@link #transaction} sends {@link #records} 256-byte records to two
 * topics of 4 partitions in one {@code executeInTransaction} (written at its end, one batch per topic, each
 * partition's records one frame); {@link #awaitedSends} sends the same records without a transaction and waits for
 * each, the way to know they are written without one. Scores are transactions (or their equivalent) per second.
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class KafkoTransactionBenchmark {

    @Param({"10"})
    public int records;

    private ConfigurableApplicationContext context;
    private KafkoTemplate<Object, Object> template;
    private final byte[][] values = new byte[64][];

    @Setup(Level.Trial)
    @SuppressWarnings("unchecked")
    public void startApplication() {
        context = BootContexts.start(List.of(App.class), Map.of("kafko.ephemeral", "true",
                "kafko.template.transactional", "true", "kafko.template.allow-non-transactional", "true",
                "kafko.defaults.partitions", "4"), List.of(LogUnderTest.KAFKA_AUTO_CONFIGURATIONS));
        template = context.getBean(KafkoTemplate.class);
        for (int i = 0; i < values.length; i++) {
            values[i] = new byte[256];
            values[i][0] = (byte) i;
        }
    }

    @TearDown(Level.Trial)
    public void closeApplication() {
        context.close();
    }

    @Benchmark
    public Object transaction() {
        return template.executeInTransaction(ops -> {
            CompletableFuture<?> last = null;
            for (int i = 0; i < records; i++) {
                last = ops.send(i % 2 == 0 ? "tx-a" : "tx-b", "key-" + (i & 63), values[i & 63]);
            }
            return last;
        });
    }

    @Benchmark
    public Object awaitedSends() {
        Object last = null;
        for (int i = 0; i < records; i++) {
            last = template.send(i % 2 == 0 ? "tx-a" : "tx-b", "key-" + (i & 63), values[i & 63]).join();
        }
        return last;
    }

    /** The application: the starter alone. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class App {
    }
}
