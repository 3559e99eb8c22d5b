package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * B124 item (4): the task of {@code kafko-scheduler} that ends a linger, or runs an interval fsync, dying of an
 * {@link OutOfMemoryError} before it posted its command, left its partition marked as having one scheduled: the
 * sends of a stream that lingered were never written (their futures never completed unless somebody waited), and
 * an {@code interval} partition never fsynced again, all without a word in the log. The Error is injected where the
 * task first allocates on a fresh thread state (the thread's marks), in a child JVM whose {@code java.lang} is
 * open to reflection; the task now runs again once the heap allows.
 */
class SchedulerTaskErrorTest {

    /** The child: {@code <data dir> <linger|interval>}; prints {@code result=<n>}, the sends or fsyncs counted. */
    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        boolean interval = args[1].equals("interval");
        AtomicInteger fsyncs = new AtomicInteger();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                fsyncs.incrementAndGet();
            }
        };
        Kafko kafko = Kafko.open(Path.of(args[0]), KafkoOptions.builder().linger(Duration.ofMillis(20))
                .observer(observer).build());
        kafko.createTopic("t", TopicConfig.builder()
                .fsync(interval ? FsyncPolicy.interval(Duration.ofMillis(20)) : FsyncPolicy.NEVER).build());
        Producer producer = kafko.producer("t");
        producer.send(null, "warm".getBytes(StandardCharsets.UTF_8)).join();
        // the scheduler thread's marks are dropped, so that its next task allocates them again: that allocation fails
        Field ctxField = kafko.getClass().getDeclaredField("ctx");
        ctxField.setAccessible(true);
        Object ctx = ctxField.get(kafko);
        Method schedulerOf = ctx.getClass().getDeclaredMethod("scheduler");
        schedulerOf.setAccessible(true);
        Object scheduler = schedulerOf.invoke(ctx);
        Method schedule = scheduler.getClass().getDeclaredMethod("schedule", Runnable.class, Duration.class);
        schedule.setAccessible(true);
        Field marksField = Class.forName("dev.kafko.internal.broker.ThreadMarks").getDeclaredField("MARKS");
        marksField.setAccessible(true);
        ThreadLocal<?> marks = (ThreadLocal<?>) marksField.get(null);
        // armed before the marks are dropped: a task the warm send scheduled (an interval fsync 20 ms on) that ran
        // between the drop and the arming would make the marks again unarmed, and nothing would be injected
        Field supplierField = marks.getClass().getDeclaredField("supplier");
        supplierField.setAccessible(true);
        Supplier<int[]> initial = (Supplier<int[]>) supplierField.get(marks);
        AtomicBoolean armed = new AtomicBoolean(true);
        supplierField.set(marks, (Supplier<int[]>) () -> {
            if (Thread.currentThread().getName().equals("kafko-scheduler") && armed.getAndSet(false)) {
                throw new OutOfMemoryError("injected: Java heap space");
            }
            return initial.get();
        });
        CountDownLatch dropped = new CountDownLatch(1);
        schedule.invoke(scheduler, (Runnable) () -> {
            marks.remove();
            dropped.countDown();
        }, Duration.ZERO);
        dropped.await();
        int result;
        if (interval) {
            int before = fsyncs.get();
            for (int i = 0; i < 10; i++) {
                producer.send(null, ("i" + i).getBytes(StandardCharsets.UTF_8)).join(); // the first schedules the fsync
                Thread.sleep(50);
            }
            // a lost task never fsyncs again; one run again does within the period: waited for up to a bound that a
            // cold child JVM on a busy machine (logging the task's death for the first time) cannot reach
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (fsyncs.get() == before && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            result = fsyncs.get() - before;
        } else {
            List<CompletableFuture<RecordPosition>> sends = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                sends.add(producer.send(null, ("l" + i).getBytes(StandardCharsets.UTF_8))); // a stream: they linger
            }
            // a lost linger is never written; one whose task ran again is, 20 ms (and a retry) later: waited for up
            // to a bound that a cold child JVM on a busy machine (logging the task's death for the first time)
            // cannot reach, and below the minute after which a retention run (another request) would write them,
            // without blocking on a future (which would write them too)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (sends.stream().anyMatch(f -> !f.isDone()) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            result = (int) sends.stream().filter(f -> !f.isDone()).count();
        }
        System.out.println("injected=" + !armed.get());
        System.out.println("result=" + result);
        kafko.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"linger", "interval"})
    void aSchedulerTaskThatDiesOfAnErrorIsNotLost(String mode, @TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        String log = ChildJvm.run(tmp.resolve("child.out"), List.of("--add-opens", "java.base/java.lang=ALL-UNNAMED"),
                SchedulerTaskErrorTest.class, dir.toString(), mode);
        assertThat(log).as(log).contains("injected=true");
        int result = Integer.parseInt(log.replaceAll("(?s).*result=(\\d+).*", "$1"));
        if (mode.equals("linger")) {
            assertThat(result).as("sends that lingered and were never written, 20 s after a 20 ms linger").isZero();
        } else {
            assertThat(result).as("fsyncs of an interval(20ms) partition in the 20 s after its task died").isPositive();
        }
        try (Kafko kafko = Kafko.open(dir); Consumer consumer = kafko.consumer("t")) {
            int records = 0;
            for (List<KafkoRecord> polled = consumer.poll(Duration.ofMillis(500)); !polled.isEmpty();
                    polled = consumer.poll(Duration.ofMillis(200))) {
                records += polled.size();
            }
            assertThat(records).isEqualTo(mode.equals("linger") ? 51 : 11);
        }
    }
}
