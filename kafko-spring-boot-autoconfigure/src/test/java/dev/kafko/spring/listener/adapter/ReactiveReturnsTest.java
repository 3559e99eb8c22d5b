package dev.kafko.spring.listener.adapter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Mono;

/**
 * The future of a listener's {@code Mono} ({@link ReactiveReturns#toFuture}): a cancel tells, as a future's does,
 * whether it ended the wait, and one that comes before the publisher handed its subscription over cancels that
 * subscription when it comes, requesting nothing.
 */
class ReactiveReturnsTest {

    @Test
    void aCancelOfACompletedMonosFutureTellsItEndedNothing() {
        CompletableFuture<Object> future = ReactiveReturns.toFuture(Mono.just("done"));
        assertThat(future).isNotNull();
        assertThat(future.cancel(true)).isFalse();
        assertThat(future.join()).isEqualTo("done");
    }

    @Test
    void aCancelBeforeThePublisherSubscribedCancelsTheSubscriptionWhenItComes() {
        AtomicReference<Subscriber<? super String>> subscriber = new AtomicReference<>();
        Publisher<String> later = subscriber::set; // hands its subscription over when the test does
        CompletableFuture<Object> future = ReactiveReturns.toFuture(Mono.from(later));
        assertThat(future).isNotNull();
        assertThat(future.cancel(true)).isTrue();
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicLong requested = new AtomicLong();
        subscriber.get().onSubscribe(new Subscription() {
            @Override
            public void request(long n) {
                requested.addAndGet(n);
            }

            @Override
            public void cancel() {
                cancelled.set(true);
            }
        });
        assertThat(cancelled).isTrue();
        assertThat(requested.get()).isZero();
    }
}
