package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log handler that writes to kafko (an appender) runs on a partition's owner when the partition
 * logs its failure. Its send to that partition, with the queue full, must not wait for room that only
 * its own thread could make.
 */
@Timeout(60)
class OwnerLogHandlerTest {

    @TempDir
    Path dir;

    @Test
    void aSendFromALogHandlerOnTheOwnerDoesNotWaitForItself() throws Exception {
        AtomicBoolean armed = new AtomicBoolean();
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeForce(Path path) throws IOException {
                if (armed.get() && path.toString().endsWith(".log")) {
                    throw new IOException("injected fsync failure");
                }
            }
        });
        AtomicReference<Producer> producer = new AtomicReference<>();
        AtomicLong sendMillis = new AtomicLong(-1);
        AtomicBoolean once = new AtomicBoolean(true);
        Handler appender = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() != Level.SEVERE || !once.getAndSet(false)) {
                    return;
                }
                Producer p = producer.get();
                Thread filler = new Thread(() -> {
                    for (int i = 0; i < 100 && !p.send(null, new byte[256]).isCompletedExceptionally(); i++) {
                        // fills the queue, then waits for room
                    }
                }, "filler");
                filler.setDaemon(true);
                filler.start();
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (filler.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                long start = System.nanoTime();
                p.send(null, new byte[256]);
                sendMillis.set((System.nanoTime() - start) / 1_000_000);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger jul = Logger.getLogger("dev.kafko.internal.broker.PartitionActor");
        jul.addHandler(appender);
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.builder().linger(Duration.ZERO).maxQueuedBytes(3_300)
                .maxBlock(Duration.ofSeconds(5)).build(), io)) {
            k.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer p = k.producer("t");
            producer.set(p);
            p.send(null, new byte[10]).join();
            armed.set(true);
            p.send(null, new byte[10]).handle((r, e) -> e).join(); // fails the partition: the handler runs here
            assertThat(sendMillis.get()).as("the handler's send returned without waiting for maxBlock")
                    .isBetween(0L, 1_000L);
        } finally {
            jul.removeHandler(appender);
        }
    }
}
