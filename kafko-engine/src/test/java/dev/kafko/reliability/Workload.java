package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The records every reliability test writes: a key names its writer and sequence number, and the
 * value is a pure function of the key, so any record read back can be checked on its own.
 * Stateless; any thread.
 */
final class Workload {

    static final String TOPIC = "events";
    static final int PARTITIONS = 4;

    private Workload() {
    }

    static byte[] key(String writer, long seq) {
        return (writer + "-" + seq).getBytes(StandardCharsets.US_ASCII);
    }

    /** 8 to 400 bytes derived from the key alone. */
    static byte[] value(byte[] key) {
        SplittableRandom r = new SplittableRandom(checksum(key));
        byte[] v = new byte[8 + r.nextInt(393)];
        r.nextBytes(v);
        return v;
    }

    static long checksum(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    /** The long seed from the system property {@code name}, or {@code fallback}; printed by the caller. */
    static long seed(String name, long fallback) {
        return Long.getLong(name, fallback);
    }

    /** Open file descriptors of this process (entries of /proc/self/fd). */
    static long openFileDescriptors() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * What each open file descriptor of this process points to (a path, or {@code socket:[…]} and the
     * like), for telling kafko's files from the JVM's own, which open lazily (a jar, a pipe).
     */
    static List<String> openFileDescriptorTargets() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : (Iterable<Path>) s::iterator) {
                try {
                    out.add(Files.readSymbolicLink(fd).toString());
                } catch (java.io.IOException e) {
                    // closed since it was listed (the listing's own descriptor, for one)
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }

    /** Live threads named kafko-*. */
    static long kafkoThreads() {
        return kafkoThreadSet().size();
    }

    /** The live threads named kafko-*. */
    static Set<Thread> kafkoThreadSet() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("kafko-")).collect(Collectors.toSet());
    }

    /**
     * Waits until every live kafko-* thread not in {@code before} has ended, and fails naming those still alive
     * after 30 s. A close from a send's callback on {@code kafko-scheduler} runs on that thread, which ends only
     * once its task returns: a moment after a second {@code close()} from another thread returned. (Threads of
     * {@code before} that end meanwhile, left by an earlier test, change nothing.)
     */
    static void awaitKafkoThreadsEnded(Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Set<Thread> left = kafkoThreadSet();
        left.removeAll(before);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
            left = kafkoThreadSet();
            left.removeAll(before);
        }
        assertThat(left).as("kafko threads after close").extracting(Thread::getName).isEmpty();
    }

    /** Bytes this thread has allocated so far (HotSpot's per-thread counter). */
    static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** Starts a platform thread with a name (tests only; Java 17 has no Thread.ofPlatform). */
    static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.start();
        return t;
    }

    /**
     * Adds {@code who} and the stack trace of {@code t} (unwrapped from a {@code CompletionException}) to
     * {@code unexpected}, unless it is one of the {@code allowed} exception types.
     */
    @SafeVarargs
    static void collectUnexpected(java.util.Collection<String> unexpected, String who, Throwable t,
                                  Class<? extends Throwable>... allowed) {
        Throwable c = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
        for (Class<? extends Throwable> type : allowed) {
            if (type.isInstance(c)) {
                return;
            }
        }
        java.io.StringWriter sw = new java.io.StringWriter();
        c.printStackTrace(new java.io.PrintWriter(sw));
        unexpected.add(who + ": " + sw);
    }
}
