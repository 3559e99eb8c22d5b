package dev.kafko.bench.peer;

import org.openjdk.jmh.annotations.Fork;

/**
 * The forked JVM that every Chronicle Queue benchmark runs in. Chronicle reaches into JDK internals,
 * so Java 17 needs these exports and opens; {@code chronicle.analytics.disable} (together with
 * the exclusion of {@code net.openhft:chronicle-analytics} in the pom) keeps it from sending usage data.
 * Subclasses inherit the {@link Fork} settings.
 */
@Fork(value = 1, jvmArgsAppend = {
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
