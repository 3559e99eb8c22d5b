package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Fixtures;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sends made while a consumer of the partition has been woken and is not yet running are written at
 * once, up to {@link LingerChain#WOKEN_ROUNDS} of them: the consumer's first read finds the rest of
 * the burst that woke it. The consumer is played by
 * a {@link Waiter} whose thread is unset, so that it stays woken for as long as the test needs.
 */
@Timeout(60)
class WokenConsumerLingerTest {

    private static final byte[] VALUE = new byte[256];

    @TempDir
    Path dir;

    @Test
    void noSendLingersWhileAWokenConsumerIsNotYetRunningAndSendsLingerOnceItRuns() {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofHours(1)).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            PartitionActor actor = ((TopicImpl) k.topic("t").orElseThrow()).actors()[0];
            Waiter consumer = new Waiter();
            actor.waiters.add(consumer);
            consumer.parking();

            assertThat(p.send(null, VALUE)).isCompletedWithValue(new RecordPosition(0, 0));
            assertThat(consumer.isParked()).as("the first append woke it").isFalse();
            assertThat(consumer.isWoken()).as("woken, not yet running").isTrue();
            // back to back: without the woken consumer these would linger (see LingerTest)
            for (int i = 1; i <= LingerChain.WOKEN_ROUNDS; i++) {
                assertThat(p.send(null, VALUE)).as("send %d", i).isCompletedWithValue(new RecordPosition(0, i));
            }
            // the consumer still has no CPU: the stream coalesces again
            assertThat(Fixtures.lingeringSend(p, VALUE)).isNotDone();
            p.flush();

            consumer.parking(); // it ran, found nothing and parks again: the next append wakes it
            for (int burst = 0; burst < 3; burst++) {
                long end = k.topic("t").orElseThrow().partitions().get(0).endOffset();
                for (int i = 0; i < 8; i++) {
                    assertThat(p.send(null, VALUE)).as("send %d of burst %d", i, burst)
                            .isCompletedWithValue(new RecordPosition(0, end + i));
                }
                consumer.running();
                assertThat(Fixtures.lingeringSend(p, VALUE)).as("a send lingers once the consumer runs").isNotDone();
                p.flush();
                consumer.parking();
            }

            // a burst that woke it, one round of it, then the consumer runs: the allowance left is not
            // spent on a later wake-up that no append of this partition made (another partition's)
            p.send(null, VALUE);
            p.send(null, VALUE);
            consumer.running();
            Fixtures.lingeringSend(p, VALUE);
            p.flush();
            consumer.parking();
            assertThat(consumer.wake()).isTrue();
            boolean lingered = false;
            for (int i = 0; i < 16 && !lingered; i++) {
                lingered = !p.send(null, VALUE).isDone();
            }
            assertThat(lingered).as("a send lingers within 16 of the foreign wake-up").isTrue();
            p.flush();
        }
    }

    @Test
    void aConsumerWokenByAnAppendIsRunningAgainOnceItsPollReturns() throws Exception {
        try (Kafko k = Kafko.open(dir, KafkoOptions.builder().linger(Duration.ofHours(1)).build())) {
            k.createTopic("t");
            Producer p = k.producer("t");
            ConsumerImpl consumer = (ConsumerImpl) k.consumer("t");
            AtomicReference<List<KafkoRecord>> polled = new AtomicReference<>();
            Thread reader = new Thread(() -> polled.set(consumer.poll(Duration.ofSeconds(30))), "reader");
            reader.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!consumer.waiter.isParked() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(consumer.waiter.isParked()).as("the reader parked in poll").isTrue();

            p.send(null, VALUE).join();
            reader.join(20_000);

            assertThat(polled.get()).hasSize(1);
            // woken, then running: a consumer left marked woken would keep sends from lingering
            assertThat(consumer.waiter.isWoken()).isFalse();
            assertThat(consumer.waiter.isParked()).isFalse();
            consumer.close();
        }
    }

    @Test
    void aLateWakeCannotLeaveARunningConsumerMarkedWoken() {
        Waiter w = new Waiter();
        w.parking();
        w.running();
        assertThat(w.wake()).as("the append that saw the consumer parked arrives after it ran again").isFalse();
        assertThat(w.isWoken()).isFalse();
        assertThat(w.isParked()).isFalse();
    }
}
