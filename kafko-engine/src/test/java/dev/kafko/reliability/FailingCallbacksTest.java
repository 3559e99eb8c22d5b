package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Code kafko calls while it holds a partition (a log handler, an observer) failing with an
 * {@link Error}: every future of the round still completes, none with a raw {@code Error} thrown out
 * of {@code send}, and {@code close()} returns. A log handler failed this way when descriptors ran out
 * (it could not load the time-zone data), and a future was left incomplete for ever.
 */
class FailingCallbacksTest {

    @TempDir
    Path dir;

    @Test
    void aLogHandlerThatThrowsWhileAPartitionFailsLeavesNoFutureIncomplete() throws Exception {
        Logger logger = Logger.getLogger("dev.kafko.internal.broker.PartitionActor");
        Handler throwing = new Handler() {
            @Override
            public void publish(LogRecord record) {
                throw new Error("the log handler cannot open its file");
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(throwing);
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            k.createTopic("t");
            Producer p = k.producer("t");
            p.send(null, bytes("first")).join();
            io.diskFull(true);
            List<CompletableFuture<RecordPosition>> sent = new ArrayList<>();
            // large values: each append is a pwrite, which the full disk fails
            for (int i = 0; i < 20; i++) {
                sent.add(p.send(null, new byte[64 * 1024]));
            }
            for (CompletableFuture<RecordPosition> f : sent) {
                Throwable failure = catchThrowable(() -> f.get(10, TimeUnit.SECONDS));
                assertThat(failure).as("completed, exceptionally").isNotNull()
                        .isNotInstanceOf(java.util.concurrent.TimeoutException.class);
                assertThat(failure.getCause()).isInstanceOf(KafkoException.class);
            }
            assertThat(k.topic("t").orElseThrow().partition(0).state()).isEqualTo(PartitionState.FAILED);
            assertThat(k.topic("t").orElseThrow().partition(0).failure()).isInstanceOf(KafkoStorageException.class);
        } finally {
            logger.removeHandler(throwing);
        }
    }

    @Test
    void anObserverThatThrowsAnErrorFailsTheSendsOfItsRoundAndThePartitionGoesOn() {
        AtomicBoolean broken = new AtomicBoolean();
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
                if (broken.getAndSet(false)) {
                    throw new Error("an observer bug");
                }
            }
        };
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().observer(observer).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            assertThat(p.send(null, bytes("a")).join().offset()).isZero();
            broken.set(true);
            CompletableFuture<RecordPosition> hit = p.send(null, bytes("b"));
            Throwable failure = catchThrowable(() -> hit.get(10, TimeUnit.SECONDS));
            assertThat(failure).isInstanceOf(java.util.concurrent.ExecutionException.class);
            assertThat(failure.getCause()).isInstanceOf(KafkoException.class).hasMessageContaining("an observer bug");
            // the partition goes on: the failed send was written (at least once), the next follows it
            assertThat(p.send(null, bytes("c")).join().offset()).isEqualTo(2);
            assertThat(k.topic("t").orElseThrow().partition(0).state()).isEqualTo(PartitionState.RUNNING);
            assertThat(k.consumer("t").poll(Duration.ofSeconds(1))).hasSize(3);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

}
