package dev.kafko.spring.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What {@link Transactions#stagesOfHeldSends} counts: the stages made during the subscription it runs, of sends a
 * transaction still open holds; a subscription run inside another counts its own, and the outer one goes on counting
 * after it; a stage made outside any subscription is counted by none, nor kept.
 */
class HeldSendStagesTest {

    @Test
    void aSubscriptionInsideAnotherCountsItsOwnStagesAndTheOuterOneGoesOnCounting() {
        KafkoResourceHolder open = new KafkoResourceHolder();
        KafkoResourceHolder committed = new KafkoResourceHolder();
        committed.commit();
        AtomicInteger inner = new AtomicInteger();
        int outer = Transactions.stagesOfHeldSends(() -> {
            Transactions.stageOfHeldSendMade(committed);
            inner.set(Transactions.stagesOfHeldSends(() -> {
                Transactions.stageOfHeldSendMade(open);
                Transactions.stageOfHeldSendMade(open);
            }));
            Transactions.stageOfHeldSendMade(open);
        });
        assertThat(inner.get()).isEqualTo(2);
        assertThat(outer).as("its own stage of an open transaction, not the inner one's").isOne();
    }

    @Test
    void aStageMadeOutsideAnySubscriptionIsNotKept() {
        assertThat(Transactions.stagesOfHeldSends(() -> { })).isZero();
        WeakReference<KafkoResourceHolder> held = made();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (held.get() != null && System.nanoTime() < deadline) {
            System.gc();
        }
        assertThat(held.get()).as("the transaction of a stage made after the subscription ended").isNull();
    }

    private static WeakReference<KafkoResourceHolder> made() {
        KafkoResourceHolder transaction = new KafkoResourceHolder();
        Transactions.stageOfHeldSendMade(transaction);
        return new WeakReference<>(transaction);
    }
}
