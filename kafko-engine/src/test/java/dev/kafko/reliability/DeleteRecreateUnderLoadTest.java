package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.UnknownTopicException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.CompletionException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * deleteTopic / createTopic (same name) / increasePartitions in a loop under senders (old handles kept until
 * they fail), flushers, an anonymous poller and a committing group member. Every failure they see must be
 * UnknownTopicException or a create refused while the name is being deleted; no call may hang.
 */
class DeleteRecreateUnderLoadTest {

    @TempDir
    Path tmp;

    final Map<String, String> unexpected = new ConcurrentHashMap<>();
    final LongAdder acked = new LongAdder();
    final LongAdder unknowns = new LongAdder();
    final AtomicBoolean stop = new AtomicBoolean();

    void record(String who, Throwable t) {
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (c instanceof UnknownTopicException) {
            unknowns.increment();
            return;
        }
        java.io.StringWriter sw = new java.io.StringWriter();
        c.printStackTrace(new java.io.PrintWriter(sw));
        unexpected.putIfAbsent(who + ": " + c.getClass().getSimpleName(), sw.toString());
    }

    /**
     * Polls (and commits, when {@code commits}) with a consumer made by {@code open} until the test stops,
     * making a new one whenever the topic went away under it; any other failure is recorded under {@code who}.
     */
    void consumeUntilStopped(java.util.function.Supplier<Consumer> open, boolean commits, String who) {
        Consumer c = null;
        while (!stop.get()) {
            try {
                if (c == null) {
                    c = open.get();
                }
                c.poll(Duration.ofMillis(20));
                if (commits) {
                    c.commit();
                }
            } catch (UnknownTopicException e) {
                unknowns.increment();
                try {
                    if (c != null) {
                        c.close();
                    }
                } catch (Throwable t) {
                    record(who + " close", t);
                }
                c = null;
            } catch (Throwable t) {
                record(who, t);
                if (c != null) {
                    try {
                        c.close();
                    } catch (Throwable ignored) {
                        // closing a broken consumer
                    }
                }
                c = null;
            }
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void everyFailureUnderDeleteAndRecreateIsUnknownTopic() throws Exception {
        List<Thread> threads = new ArrayList<>();
        Kafko k = Kafko.open(tmp, KafkoOptions.builder().build());
        k.createTopic("t", TopicConfig.builder().partitions(2).build());
        for (int s = 0; s < 2; s++) {
            threads.add(new Thread(() -> {
                Producer p = null;
                while (!stop.get()) {
                    try {
                        if (p == null) {
                            p = k.producer("t");
                        }
                        CompletableFuture<?> last = null;
                        for (int i = 0; i < 50; i++) {
                            last = p.send(null, new byte[32]).whenComplete((m, e) -> {
                                if (e != null) {
                                    record("send future", e);
                                } else {
                                    acked.increment();
                                }
                            });
                        }
                        last.exceptionally(e -> null).join();
                    } catch (UnknownTopicException e) {
                        unknowns.increment();
                        p = null;
                    } catch (Throwable t) {
                        record("send", t);
                        p = null;
                    }
                }
            }, "stress-sender-" + s));
        }
        threads.add(new Thread(() -> {
            Producer p = null;
            while (!stop.get()) {
                try {
                    if (p == null) {
                        p = k.producer("t");
                    }
                    p.send(null, new byte[8]);
                    p.flush();
                } catch (UnknownTopicException e) {
                    unknowns.increment();
                    p = null;
                } catch (Throwable t) {
                    record("flush", t);
                    p = null;
                }
            }
        }, "stress-flusher"));
        threads.add(new Thread(() -> consumeUntilStopped(() -> k.consumer("t"), false, "poll"), "stress-poller"));
        threads.add(new Thread(() -> consumeUntilStopped(() -> k.groupConsumer("t", "g"), true, "group"),
                "stress-group"));
        threads.forEach(Thread::start);
        AtomicInteger cycles = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        Thread admin = new Thread(() -> {
            try {
                while (System.nanoTime() < end) {
                    Thread.sleep(20);
                    k.deleteTopic("t");
                    k.createTopic("t", TopicConfig.builder().partitions(2).build());
                    Thread.sleep(20);
                    k.topic("t").ifPresent(t -> t.increasePartitions(3));
                    cycles.incrementAndGet();
                }
            } catch (Throwable t) {
                record("admin", t);
            }
        }, "stress-admin");
        admin.start();
        admin.join(60_000);
        assertThat(admin.isAlive()).as("admin loop hung after %d cycles", cycles.get()).isFalse();
        stop.set(true);
        for (Thread t : threads) {
            t.join(10_000);
            assertThat(t.isAlive()).as("%s ended", t.getName()).isFalse();
        }
        k.close();
        System.err.println("cycles " + cycles.get() + " acked " + acked.sum() + " unknowns " + unknowns.sum());
        assertThat(unexpected).as("unexpected failures over %d cycles", cycles.get()).isEmpty();
    }
}
