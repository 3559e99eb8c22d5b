package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicConfig;
import dev.kafko.Producer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A send's callback that calls {@code System.exit} while the application closes its log from a shutdown hook (as
 * Spring's does): the callback waits for the hook, and the hook's close waited for the callback's round to complete
 * (and for the scheduler thread running it), so the JVM never exited and only {@code kill -9} ended it. The close now
 * waits for such a round a bounded time; the JVM exits with the callback's code and every acknowledged record stays.
 * The same for an observer that calls {@code System.exit} on the thread that owns the partition: the close leaves that
 * partition as a crash would, and the next open recovers it.
 */
class ExitFromCallbackTest {

    /**
     * The child: {@code <data dir> <senders>}; sends until the 20,000th completion's callback exits with 3 (with 0
     * senders: one sender under {@code EVERY_BATCH}, and an observer exits at the 100th fsync, on the owning thread).
     */
    public static void main(String[] args) throws Exception {
        boolean observerExits = Integer.parseInt(args[1]) == 0;
        AtomicLong fsyncs = new AtomicLong();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onFsync(String topic, int partition, long nanos) {
                if (observerExits && fsyncs.incrementAndGet() == 100) {
                    System.exit(3);
                }
            }
        };
        Kafko kafko = Kafko.open(Path.of(args[0]), KafkoOptions.builder().observer(observer).build());
        Runtime.getRuntime().addShutdownHook(new Thread(kafko::close, "closing-hook"));
        kafko.createTopic("t", TopicConfig.builder().fsync(observerExits ? FsyncPolicy.EVERY_BATCH : FsyncPolicy.NEVER)
                .build());
        Producer producer = kafko.producer("t");
        AtomicLong acked = new AtomicLong();
        Path ackFile = Path.of(args[0]).resolveSibling("acked");
        int senders = Math.max(1, Integer.parseInt(args[1]));
        for (int s = 0; s < senders; s++) {
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        producer.send(null, new byte[100]).whenComplete((r, e) -> {
                            if (e == null && acked.incrementAndGet() == 20_000) {
                                try {
                                    Files.writeString(ackFile, Long.toString(acked.get()));
                                } catch (Exception ignored) {
                                    // the count is checked by the parent
                                }
                                System.exit(3);
                            }
                        });
                    }
                } catch (KafkoException closed) {
                    // the hook closed the log
                }
            }, "sender-" + s);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(Long.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 0})
    void aCallbackThatExitsTheJvmEndsItWithItsCode(int senders, @TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                ExitFromCallbackTest.class.getName(), data.toString(), Integer.toString(senders))
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.log").toFile()).start();
        try {
            assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child exited; its log: %s",
                    Files.exists(dir.resolve("child.log")) ? Files.readString(dir.resolve("child.log")) : "").isTrue();
            assertThat(child.exitValue()).as("exit code").isEqualTo(3);
        } finally {
            child.destroyForcibly().waitFor();
        }
        if (senders == 0) {
            // the partition an observer held is left as a crash leaves it, and recovered; the close in the shutdown
            // hook says so on standard error (the JDK's logging has reset its handlers by then: B163)
            assertThat(Files.readString(dir.resolve("child.log"))).contains("WARNING kafko: the JVM shuts down and"
                    + " partition t-0 is still held").contains("is left undone");
            Kafko.open(data).close();
            return;
        }
        long acked = Long.parseLong(Files.readString(dir.resolve("acked")).trim());
        try (Kafko kafko = Kafko.open(data)) {
            assertThat(kafko.topic("t").orElseThrow().partition(0).endOffset()).isGreaterThanOrEqualTo(acked);
        }
    }
}
