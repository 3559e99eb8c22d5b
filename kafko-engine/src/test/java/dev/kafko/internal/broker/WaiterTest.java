package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class WaiterTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void wakeLowersTheFlagAndUnparksTheParkedThread() throws InterruptedException {
        Waiter w = new Waiter();
        AtomicInteger parks = new AtomicInteger();
        Thread consumer = new Thread(() -> {
            // parks until the flag is lowered: a wake that lowered it without unparking would hang here
            while (w.isParked()) {
                parks.incrementAndGet();
                LockSupport.park(this);
            }
        });
        w.thread = consumer;
        w.parking();
        consumer.start();
        while (parks.get() == 0) {
            Thread.onSpinWait();
        }

        w.wake();

        assertThat(w.isParked()).isFalse();
        consumer.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(consumer.isAlive()).as("the parked consumer was unparked").isFalse();
    }

    @Test
    void wakeWithNobodyParkedChangesNothing() {
        Waiter w = new Waiter();
        w.wake();
        assertThat(w.isParked()).isFalse();

        w.thread = Thread.currentThread();
        w.wake();
        assertThat(w.isParked()).isFalse();
    }
}
