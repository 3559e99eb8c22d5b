package dev.kafko.bench;

/**
 * The heap every benchmark JVM runs with, fixed and touched at start: {@code @Fork(value = 1,
 * jvmArgsAppend = {BenchJvm.HEAP_MIN, BenchJvm.HEAP_MAX, BenchJvm.PRETOUCH})}. A heap that grows while
 * a benchmark runs takes fresh pages, and on a VM that hands freed memory back to its host (this one)
 * each costs a host fault, about 19 us: the allocation of the send path then measured the heap's growth
 * more than the send (pipelined sends 2.0 M/s against 4.4 M/s with this heap, Session 22 of
 * docs/BENCHMARKS.md). Kafko's and Chronicle Queue's benchmarks run with the same heap. A
 * {@code -jvmArgsAppend} on the command line replaces these flags: repeat them there.
 */
public final class BenchJvm {

    /** The initial heap, equal to the maximum: the heap never grows. */
    public static final String HEAP_MIN = "-Xms1g";
    /** The maximum heap. */
    public static final String HEAP_MAX = "-Xmx1g";
    /** Touches every heap page at start-up, before any measurement. */
    public static final String PRETOUCH = "-XX:+AlwaysPreTouch";

    private BenchJvm() {
    }
}
