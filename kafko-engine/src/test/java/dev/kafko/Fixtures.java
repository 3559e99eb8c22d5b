package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** Small helpers shared by the public-API tests (and, where public, by the internal ones). */
public final class Fixtures {

    private Fixtures() {
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code perPartition} records in each partition of {@code topic}, valued {@code <partition>-<i>}, each awaited. */
    static void fill(Kafko k, String topic, int perPartition) {
        Producer p = k.producer(topic);
        for (int part = 0; part < p.partitionCount(); part++) {
            for (int i = 0; i < perPartition; i++) {
                p.sendTo(part, null, bytes(part + "-" + i)).join();
            }
        }
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** Polls until {@code count} records arrived (or 10 s passed). */
    static List<KafkoRecord> pollUntil(Consumer c, int count) {
        List<KafkoRecord> out = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (out.size() < count && System.nanoTime() < deadline) {
            out.addAll(c.poll(Duration.ofMillis(100)));
        }
        return out;
    }

    /**
     * Sends {@code value} back to back until a send lingers (its future is not complete when
     * {@code send} returns), and returns that send's future.
     */
    public static CompletableFuture<RecordPosition> lingeringSend(Producer p, byte[] value) {
        for (int i = 0; i < 10_000; i++) {
            CompletableFuture<RecordPosition> f = p.send(null, value);
            if (!f.isDone()) {
                return f;
            }
        }
        throw new AssertionError("no send lingered in 10,000 back-to-back sends");
    }

    /**
     * Runs {@code task} on a thread of its own. Not {@code CompletableFuture.supplyAsync}: its pool
     * has one thread on a 2-CPU machine from Java 21 on, so a second task waits for a first that
     * blocks, where the tests need both running.
     */
    public static <T> CompletableFuture<T> onNewThread(Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, r -> new Thread(r, "test-task").start());
    }

    /** Runs {@code task} on a thread of its own (see {@link #onNewThread(Supplier)}). */
    public static CompletableFuture<Void> onNewThread(Runnable task) {
        return CompletableFuture.runAsync(task, r -> new Thread(r, "test-task").start());
    }

    /** An observer that adds "commit" to {@code events} at each {@code onCommit}, "deleted" at each {@code onTopicDeleted}. */
    public static KafkoObserver commitAndDeleteEvents(Queue<String> events) {
        return new KafkoObserver() {
            @Override
            public void onCommit(String topic, String group) {
                events.add("commit");
            }

            @Override
            public void onTopicDeleted(String topic) {
                events.add("deleted");
            }
        };
    }

    /** The names of live threads that kafko started. */
    static Set<String> kafkoThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("kafko-")).collect(Collectors.toSet());
    }

    static void assertNoKafkoThreads() {
        assertThat(kafkoThreads()).isEmpty();
    }
}
