package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.requestreply.Bids.Price;
import dev.kafko.spring.requestreply.Bids.Quote;
import dev.kafko.spring.support.RecordMessageConverter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * What the aggregating template's tests left unchecked (found by mutation testing: each test fails with the change it
 * names): a strategy that throws when asked at the timeout fails its request with that exception (without it the
 * request never completed), the {@code returnPartialOnTimeout} setting read back, and a reply to a request that no
 * longer waits (taken by its timeout, a stop or its caller after the reply was matched to it) is neither collected
 * nor shown to the strategy.
 */
class AggregatingReplyMutationGapsTest {

    static class Bidder {
        @KafkoListener(id = "gaps-bidder", topics = "gaps-tenders")
        @SendTo
        Price bid(Quote quote) {
            return new Price("g", quote.sku(), BigDecimal.valueOf(quote.quantity()));
        }
    }

    /** The strategy of the template under test, set by each test; its calls as (reply count, timed out). */
    static volatile BiPredicate<List<ReceivedReply<Price>>, Boolean> strategy = (replies, timedOut) -> false;
    static final List<String> calls = new CopyOnWriteArrayList<>();

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Bidder gapsBidder() {
            return new Bidder();
        }

        @Bean
        AggregatingReplyingKafkoTemplate<String, Quote, Price> gapsBids(KafkoTemplate<String, Quote> kafkoTemplate,
                                                                        LogBackend backend,
                                                                        RecordMessageConverter converter) {
            return new AggregatingReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "gaps-bids", Price.class,
                    (replies, timedOut) -> {
                        calls.add(replies.size() + (timedOut ? " timed out" : ""));
                        return strategy.test(replies, timedOut);
                    });
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.gaps-tenders.partitions=1");

    @BeforeEach
    void reset() {
        strategy = (replies, timedOut) -> false;
        calls.clear();
    }

    @Test
    @SuppressWarnings("unchecked")
    void aStrategyThatThrowsAtTheTimeoutFailsTheRequestWithItsException() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = context.getBean(
                    AggregatingReplyingKafkoTemplate.class);
            assertThat(bids.isReturnPartialOnTimeout()).isFalse();
            bids.setReturnPartialOnTimeout(true);
            assertThat(bids.isReturnPartialOnTimeout()).isTrue();
            // the listener runs: the reply below comes well within its request's timeout
            strategy = (replies, timedOut) -> true;
            bids.sendAndReceive("gaps-tenders", new Quote("warm", 1)).get(30, TimeUnit.SECONDS);

            strategy = (replies, timedOut) -> {
                if (timedOut) {
                    throw new IllegalStateException("the strategy refused at the timeout");
                }
                return false;
            };
            calls.clear();
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> refused = bids.sendAndReceive(
                    "gaps-tenders", null, null, new Quote("t", 1), Duration.ofSeconds(2));
            assertThatThrownBy(() -> refused.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(IllegalStateException.class)
                    .hasMessage("the strategy refused at the timeout");
            assertThat(calls).containsExactly("1", "1 timed out");
            assertThat(bids.pendingReplies()).isZero();
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aReplyToARequestThatNoLongerWaitsIsNeitherCollectedNorShownToTheStrategy() {
        runner.run(context -> {
            AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = context.getBean(
                    AggregatingReplyingKafkoTemplate.class);
            strategy = (replies, timedOut) -> true;
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> answered = bids.sendAndReceive(
                    "gaps-tenders", new Quote("r", 3));
            ReceivedReply<Price> reply = answered.get(30, TimeUnit.SECONDS).iterator().next();
            KafkoRecord record = reply.record();
            assertThat(calls).containsExactly("1");

            // the reply thread matched this reply to a request that its timeout, a stop or its caller took before
            // the reply was collected (here: one that never waited)
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> taken = new RequestReplyFuture<>();
            calls.clear();
            bids.reply("taken", taken, record);
            assertThat(calls).isEmpty();
            assertThat(taken.collected()).isEmpty();
            assertThat(taken).isNotDone();
            assertThat(bids.pendingReplies()).isZero();
        });
    }
}
