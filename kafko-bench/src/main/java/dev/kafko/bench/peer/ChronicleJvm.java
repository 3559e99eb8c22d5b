package dev.kafko.bench.peer;

import dev.kafko.bench.BenchJvm;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The forked JVM that every Chronicle Queue benchmark runs in. Chronicle reaches into JDK internals,
 * so Java 17 needs these exports and opens (the heap is {@link BenchJvm}'s, as kafko's benchmarks have it); {@code chronicle.analytics.disable} (together with
 * the exclusion of {@code net.openhft:chronicle-analytics} in the pom) keeps it from sending usage data.
 * Subclasses inherit these settings: one writer or reader thread, throughput in operations (messages)
 * per second.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
        BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH,
        "-Dchronicle.analytics.disable=true",
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.util=ALL-UNNAMED",
        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
        "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
        "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
        "--add-opens=java.base/java.io=ALL-UNNAMED",
        "--add-opens=java.base/java.util=ALL-UNNAMED"})
abstract class ChronicleJvm {

    /** Size of every message, the same as kafko's storage benchmarks. */
    static final int PAYLOAD_BYTES = 256;

    /** Seed of the payload bytes, fixed so that runs compare. */
    static final long PAYLOAD_SEED = 0x6b61666b6fL;
}
