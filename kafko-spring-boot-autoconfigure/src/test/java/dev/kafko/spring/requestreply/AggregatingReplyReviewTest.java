package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.requestreply.Bids.Price;
import dev.kafko.spring.requestreply.Bids.Quote;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.support.RecordMessageConverter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/**
 * The aggregating template against spring-kafka's contract and against the races of a reply with its timeout: a
 * strategy may change the list it is given (spring-kafka's "the predicate may modify the list"), and what it leaves
 * is the result; it is never asked on two threads at once (spring-kafka asks it under one lock); a fatal error of a
 * strategy is not swallowed when its request was taken meanwhile; one listener's collection reply is several
 * replies, a tombstone reply one without a value; a request its caller ends is no longer collected.
 */
class AggregatingReplyReviewTest {

    /** "scatter": one listener answers with two prices (a reply each), one with a tombstone; "one": a single reply. */
    static class Bidders {
        @KafkoListener(id = "review-pair", topics = "scatter")
        @SendTo
        List<Price> pair(Quote quote) {
            return List.of(new Price("x", quote.sku(), BigDecimal.ONE), new Price("y", quote.sku(), BigDecimal.TEN));
        }

        @KafkoListener(id = "review-tombstone", topics = "scatter")
        @SendTo
        Message<?> tombstone(Quote quote) {
            return MessageBuilder.withPayload(KafkoNull.INSTANCE).build();
        }

        @KafkoListener(id = "review-one", topics = "one")
        @SendTo
        Price one(Quote quote) {
            return new Price("o", quote.sku(), BigDecimal.valueOf(quote.quantity()));
        }
    }

    /** The strategy of the template under test, set by each test. */
    static volatile BiPredicate<List<ReceivedReply<Price>>, Boolean> strategy = (replies, timedOut) -> false;
    static volatile AggregatingReplyingKafkoTemplate<String, Quote, Price> template;

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Bidders bidders() {
            return new Bidders();
        }

        @Bean
        AggregatingReplyingKafkoTemplate<String, Quote, Price> reviewBids(KafkoTemplate<String, Quote> kafkoTemplate,
                                                                          LogBackend backend,
                                                                          RecordMessageConverter converter) {
            AggregatingReplyingKafkoTemplate<String, Quote, Price> t = Bids.returningPartial(kafkoTemplate, backend,
                    converter, "review-bids", (replies, timedOut) -> strategy.test(replies, timedOut));
            template = t;
            return t;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.scatter.partitions=1",
                    "kafko.topics.one.partitions=1");

    @BeforeEach
    void reset() {
        strategy = (replies, timedOut) -> false;
    }

    @Test
    void aStrategyMayChangeTheListItIsGivenAndTheFutureCompletesWithWhatItLeaves() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            List<Integer> sizes = new CopyOnWriteArrayList<>();
            strategy = (replies, timedOut) -> {
                sizes.add(replies.size());
                if (replies.size() < 3) {
                    replies.clear(); // a fresh list each call: what one call leaves out, the next one still gets
                    return false;
                }
                replies.removeIf(r -> r.value() == null); // the tombstone is no bid
                replies.sort(Comparator.comparing(r -> r.value().bidder(), Comparator.reverseOrder()));
                return true;
            };
            Collection<ReceivedReply<Price>> bids = template.sendAndReceive("scatter", new Quote("s", 1))
                    .get(10, TimeUnit.SECONDS);
            assertThat(bids).extracting(r -> r.value().bidder()).containsExactly("y", "x");
            assertThat(sizes).containsExactly(1, 2, 3);
            assertThat(template.pendingReplies()).isZero();
        });
    }

    @Test
    void atTheTimeoutTheStrategyMayChangeTheListToo() {
        runner.run(context -> {
            strategy = (replies, timedOut) -> {
                if (!timedOut) {
                    return false;
                }
                replies.removeIf(r -> r.value() == null);
                return true;
            };
            Collection<ReceivedReply<Price>> bids = template.sendAndReceive("scatter", null, null,
                    new Quote("t", 1), Duration.ofSeconds(2)).get(10, TimeUnit.SECONDS);
            assertThat(bids).extracting(r -> r.value().bidder()).containsExactlyInAnyOrder("x", "y");
        });
    }

    @Test
    void oneListenersCollectionIsAReplyPerElementAndATombstoneIsAReplyWithoutAValue() {
        runner.run(context -> {
            strategy = (replies, timedOut) -> replies.size() == 3;
            Collection<ReceivedReply<Price>> bids = template.sendAndReceive("scatter", new Quote("c", 1))
                    .get(10, TimeUnit.SECONDS);
            assertThat(bids).hasSize(3);
            assertThat(bids).filteredOn(r -> r.value() == null).singleElement()
                    .satisfies(r -> assertThat(r.record().value()).isNull());
            assertThat(bids).filteredOn(r -> r.value() != null).extracting(r -> r.value().bidder())
                    .containsExactly("x", "y");
            assertThat(template.pendingReplies()).isZero();
        });
    }

    @Test
    void theStrategyIsNeverAskedOnTwoThreadsAtOnce() {
        runner.run(context -> {
            answered(); // the listener runs: the reply below comes well within its request's timeout
            AtomicInteger asking = new AtomicInteger();
            AtomicBoolean overlapped = new AtomicBoolean();
            CountDownLatch timeoutAsked = new CountDownLatch(1);
            List<String> calls = new CopyOnWriteArrayList<>();
            strategy = (replies, timedOut) -> {
                if (asking.incrementAndGet() > 1) {
                    overlapped.set(true);
                }
                try {
                    calls.add(replies.size() + (timedOut ? " timed out" : ""));
                    if (timedOut) {
                        timeoutAsked.countDown();
                        return true;
                    }
                    // the reply thread holds on here until the request's timeout took it, and gives the timeout's
                    // call the time to come in beside it
                    awaitTaken();
                    await(timeoutAsked, Duration.ofSeconds(1));
                    return false;
                } finally {
                    asking.decrementAndGet();
                }
            };
            Collection<ReceivedReply<Price>> replies = template.sendAndReceive("one", null, null, new Quote("r", 1),
                    Duration.ofSeconds(2)).get(30, TimeUnit.SECONDS);
            assertThat(overlapped).isFalse();
            assertThat(calls).containsExactly("1", "1 timed out");
            assertThat(replies).extracting(r -> r.value().bidder()).containsExactly("o");
        });
    }

    @Test
    void aFatalErrorOfTheStrategyIsNotSwallowedWhenItsRequestWasTakenMeanwhile() {
        runner.run(context -> {
            answered();
            strategy = (replies, timedOut) -> {
                if (timedOut) {
                    return false;
                }
                awaitTaken(); // the timeout took the request while the strategy ran
                throw new StackOverflowError("deep");
            };
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> f = template.sendAndReceive("one",
                    null, null, new Quote("e", 1), Duration.ofSeconds(2));
            assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(KafkoReplyTimeoutException.class);
            // as for a reply that cannot be converted: the reply reader ends with it, and says so
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (template.isRunning() && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            assertThat(template.isRunning()).isFalse();
            assertThatThrownBy(() -> template.sendAndReceive("one", new Quote("n", 1)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("StackOverflowError");
        });
    }

    @Test
    void aRequestItsCallerEndsWhileCollectingIsNoLongerCollectedAndTheNextIsWhole() {
        runner.run(context -> {
            CountDownLatch first = new CountDownLatch(1);
            CountDownLatch ended = new CountDownLatch(1);
            List<Integer> sizes = new CopyOnWriteArrayList<>();
            strategy = (replies, timedOut) -> {
                sizes.add(replies.size());
                if (first.getCount() > 0) {
                    first.countDown();
                    await(ended, Duration.ofSeconds(30)); // the caller cancels while the first reply is collected
                }
                return replies.size() == 3;
            };
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> cancelled = template.sendAndReceive(
                    "scatter", null, null, new Quote("c", 1), Duration.ofMinutes(1));
            await(first, Duration.ofSeconds(30));
            cancelled.cancel(false);
            ended.countDown();
            assertThat(template.pendingReplies()).isZero();
            assertThatThrownBy(() -> cancelled.get(1, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
            sizes.clear();
            assertThat(template.sendAndReceive("scatter", new Quote("d", 1)).get(10, TimeUnit.SECONDS)).hasSize(3);
            assertThat(sizes).endsWith(3);
            assertThat(template.pendingReplies()).isZero();
        });
    }

    @Test
    void aRestartFailsTheRequestsCollectingAndAnswersTheNextOnesWhole() {
        runner.run(context -> {
            strategy = (replies, timedOut) -> replies.size() == 3;
            List<RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>>> before = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                before.add(template.sendAndReceive("scatter", null, null, new Quote("b" + i, 1), Duration.ofMinutes(1)));
            }
            template.stop();
            template.start();
            List<RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>>> after = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                after.add(template.sendAndReceive("scatter", new Quote("a" + i, 1)));
            }
            for (RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> f : before) {
                // each one either answered whole before the stop, or failed by it
                try {
                    assertThat(f.get(10, TimeUnit.SECONDS)).hasSize(3);
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).hasMessageContaining("stopped");
                }
            }
            for (int i = 0; i < 20; i++) {
                Collection<ReceivedReply<Price>> replies = after.get(i).get(10, TimeUnit.SECONDS);
                String sku = "a" + i;
                assertThat(replies).hasSize(3).allSatisfy(r -> assertThat(r.value() == null
                        || r.value().sku().equals(sku)).isTrue());
            }
            assertThat(template.pendingReplies()).isZero();
        });
    }

    /** Sends a request with a strategy that takes the first reply, and waits for it: the listeners run. */
    private static void answered() throws Exception {
        BiPredicate<List<ReceivedReply<Price>>, Boolean> s = strategy;
        strategy = (replies, timedOut) -> true;
        template.sendAndReceive("one", new Quote("warm", 1)).get(30, TimeUnit.SECONDS);
        strategy = s;
    }

    /** Waits (on the reply thread) until the request's timeout took the request from those waiting. */
    private static void awaitTaken() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (template.pendingReplies() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private static void await(CountDownLatch latch, Duration timeout) {
        try {
            latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
