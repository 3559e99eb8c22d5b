package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A close from a send's callback that runs out of stack in the middle of its own close (B144): the kafko-close
 * thread runs the close again and it succeeds; a later close from a normal thread then returns, as after any close
 * that succeeded, rather than throwing the first caller's StackOverflowError.
 */
class TakenOverCloseReportTest {

    @TempDir
    Path tmp;

    @Test
    void aLaterCloseAfterASuccessfulTakeOverReturns() throws Exception {
        Path dir = tmp.resolve("d");
        List<CompletableFuture<RecordPosition>> sends = new ArrayList<>();
        Kafko kafko = DeepStackCloseTest.openWithFourAcknowledged(dir,
                KafkoOptions.builder().linger(Duration.ofMillis(200)).build(), sends);
        Producer p = kafko.producer("t");
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        AtomicReference<String> ranOn = new AtomicReference<>();
        BrokerClose.afterScheduler = () -> {
            if (!Thread.currentThread().getName().equals("kafko-scheduler")) {
                return; // the closer has a fresh stack
            }
            ranOn.set(Thread.currentThread().getName());
            BrokerClose.afterScheduler = null;
            throw new StackOverflowError("injected: out of stack in the callback's own close");
        };
        Thread test = Thread.currentThread();
        AtomicReference<Thread> callbackOn = new AtomicReference<>();
        try {
            // a linger that ended before the callback was added runs it on this thread at once, where the close
            // would have a fresh stack and succeed: that callback closes nothing, and another send lingers
            for (int attempt = 0; attempt < 100; attempt++) {
                callbackOn.set(null);
                sends.add(dev.kafko.Fixtures.lingeringSend(p, new byte[] {9}).whenComplete((r, e) -> {
                    callbackOn.set(Thread.currentThread());
                    if (Thread.currentThread() == test) {
                        return;
                    }
                    try {
                        kafko.close(); // a send's callback: the close runs on this thread
                    } catch (Throwable t) {
                        firstFailure.set(t);
                    }
                }));
                if (callbackOn.get() != test) {
                    break; // the callback was added in time: it runs on the thread that ends the linger
                }
            }
            // a bound on a wait for the scheduler's callback, not a speed goal: it comes 200 ms after the send
            for (int i = 0; i < 3_000 && firstFailure.get() == null; i++) {
                Thread.sleep(10);
            }
        } finally {
            BrokerClose.afterScheduler = null;
        }
        assertThat(firstFailure.get()).isInstanceOf(StackOverflowError.class);
        assertThat(ranOn.get()).as("the callback's own close ran out of stack").isEqualTo("kafko-scheduler");
        AtomicReference<Throwable> later = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                kafko.close();
            } catch (Throwable e) {
                later.set(e);
            }
        }, "later-close");
        t.start();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        for (CompletableFuture<RecordPosition> f : sends) {
            assertThat(f).isDone();
        }
        try (Kafko again = Kafko.open(dir)) {
            assertThat(again.topic("t")).isPresent(); // the take-over closed it: the directory is free
        }
        assertThat(later.get()).as("a later close after the close was taken over and succeeded").isNull();
    }
}
