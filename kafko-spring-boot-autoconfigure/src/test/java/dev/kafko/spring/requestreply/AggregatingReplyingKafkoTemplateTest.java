package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.requestreply.Bids.Price;
import dev.kafko.spring.requestreply.Bids.Quote;
import dev.kafko.spring.support.RecordMessageConverter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * Scatter and gather: a request that three listeners answer (each in its own group) completes an
 * {@link AggregatingReplyingKafkoTemplate}'s future with the replies its release strategy takes, each with its
 * record; at the timeout the strategy decides between the replies so far and a {@link KafkoReplyTimeoutException};
 * a strategy that throws and a reply that cannot be converted fail their request only.
 */
class AggregatingReplyingKafkoTemplateTest {

    /** Three bidders answer every tender; two answer "auction" and one of them answers it with text, not a price. */
    static class Bidders {
        @KafkoListener(id = "bidder-a", topics = {"tenders", "auction"})
        @SendTo
        Price a(Quote quote) {
            return new Price("a", quote.sku(), BigDecimal.valueOf(quote.quantity()));
        }

        @KafkoListener(id = "bidder-b", topics = "tenders")
        @SendTo
        Price b(Quote quote) {
            return new Price("b", quote.sku(), BigDecimal.valueOf(quote.quantity() * 2L));
        }

        @KafkoListener(id = "bidder-c", topics = {"tenders", "auction"})
        @SendTo
        Object c(Quote quote) {
            return quote.sku().startsWith("text") ? "no bid from c" : new Price("c", quote.sku(),
                    BigDecimal.valueOf(quote.quantity() * 3L));
        }
    }

    /** The calls of the release strategy, as (reply count, timed out). */
    static final List<String> calls = new CopyOnWriteArrayList<>();

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Bidders bidders() {
            return new Bidders();
        }

        @Bean
        AggregatingReplyingKafkoTemplate<String, Quote, Price> bids(KafkoTemplate<String, Quote> kafkoTemplate,
                                                                    LogBackend backend, RecordMessageConverter converter) {
            BiPredicate<List<ReceivedReply<Price>>, Boolean> strategy = (replies, timedOut) -> {
                calls.add(replies.size() + (timedOut ? " timed out" : ""));
                if (replies.stream().anyMatch(r -> r.value() != null && r.value().sku().equals("throw"))) {
                    throw new IllegalStateException("the strategy refused " + replies.size() + " replies");
                }
                boolean partial = replies.stream().anyMatch(r -> r.value() != null
                        && r.value().sku().startsWith("partial"));
                return replies.size() == 3 || timedOut && partial;
            };
            return Bids.returningPartial(kafkoTemplate, backend, converter, "bids", strategy);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.tenders.partitions=3",
                    "kafko.topics.auction.partitions=1");

    @Test
    @SuppressWarnings("unchecked")
    void overlappingRequestsEachGetEveryBidderReplyWithItsRecord() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = context.getBean(
                    AggregatingReplyingKafkoTemplate.class);
            List<RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>>> futures = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                futures.add(bids.sendAndReceive("tenders", "sku-" + i, new Quote("sku-" + i, i + 1)));
            }
            for (int i = 0; i < 50; i++) {
                Collection<ReceivedReply<Price>> replies = futures.get(i).get(10, TimeUnit.SECONDS);
                assertThat(replies).hasSize(3);
                assertThat(replies).extracting(r -> r.value().bidder()).containsExactlyInAnyOrder("a", "b", "c");
                assertThat(replies).extracting(r -> r.value().sku()).containsOnly("sku-" + i);
                for (ReceivedReply<Price> r : replies) {
                    long factor = switch (r.value().bidder()) {
                        case "a" -> 1;
                        case "b" -> 2;
                        default -> 3;
                    };
                    assertThat(r.value().total()).isEqualByComparingTo(BigDecimal.valueOf((i + 1) * factor));
                    assertThat(r.record().topic()).isEqualTo("bids");
                    assertThat(r.record().offset()).isNotNegative();
                }
            }
            assertThat(bids.pendingReplies()).isZero();
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void atTheTimeoutTheStrategyTakesTheRepliesSoFarOrTheRequestFails() {
        runner.run(context -> {
            AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = context.getBean(
                    AggregatingReplyingKafkoTemplate.class);
            // two of the three bidders answer "auction": the strategy takes them at the timeout (long enough for both
            // replies to come first on a busy machine)
            calls.clear();
            Collection<ReceivedReply<Price>> partial = bids.sendAndReceive("auction", null, "k",
                    new Quote("partial-1", 5), Duration.ofSeconds(3)).get(10, TimeUnit.SECONDS);
            assertThat(partial).extracting(r -> r.value().bidder()).containsExactlyInAnyOrder("a", "c");
            assertThat(calls).containsExactly("1", "2", "2 timed out");

            // the strategy does not take two replies of another request: it fails at its timeout
            calls.clear();
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> refused = bids.sendAndReceive(
                    "auction", null, "k", new Quote("whole-only", 5), Duration.ofSeconds(3));
            assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(KafkoReplyTimeoutException.class).hasMessageContaining("auction")
                    .hasMessageContaining("PT3S");
            assertThat(calls).containsExactly("1", "2", "2 timed out");

            // nobody answers: the strategy is not asked with no reply, as in spring-kafka
            calls.clear();
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> unanswered = bids.sendAndReceive(
                    "nobody-bids", null, null, new Quote("partial-2", 1), Duration.ofMillis(200));
            assertThatThrownBy(() -> unanswered.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(KafkoReplyTimeoutException.class);
            assertThat(calls).isEmpty();

            // without returnPartialOnTimeout (spring-kafka's default) the strategy is not asked at the timeout: the
            // two replies it would take do not complete the request
            bids.setReturnPartialOnTimeout(false);
            calls.clear();
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> notPartial = bids.sendAndReceive(
                    "auction", null, "k", new Quote("partial-3", 5), Duration.ofSeconds(3));
            assertThatThrownBy(() -> notPartial.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(KafkoReplyTimeoutException.class);
            assertThat(calls).containsExactly("1", "2");
            assertThat(bids.pendingReplies()).isZero();
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aStrategyThatThrowsOrAReplyThatCannotBeConvertedFailsItsRequestOnly() {
        runner.run(context -> {
            AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = context.getBean(
                    AggregatingReplyingKafkoTemplate.class);
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> thrown = bids.sendAndReceive(
                    "tenders", new Quote("throw", 1));
            assertThatThrownBy(() -> thrown.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(IllegalStateException.class).hasMessage("the strategy refused 1 replies");
            // c answers with text, which is no Price: the request fails with the conversion's failure
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> text = bids.sendAndReceive(
                    "auction", null, "k", new Quote("text", 1), Duration.ofSeconds(30));
            assertThatThrownBy(() -> text.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(MessageConversionException.class);
            // the replies that come after a request failed are passed over, and the next request is answered whole
            assertThat(bids.sendAndReceive("tenders", new Quote("after", 2)).get(10, TimeUnit.SECONDS))
                    .extracting(r -> r.value().bidder()).containsExactlyInAnyOrder("a", "b", "c");
            assertThat(bids.pendingReplies()).isZero();
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aStopFailsTheRequestsStillCollecting() {
        runner.run(context -> {
            AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = context.getBean(
                    AggregatingReplyingKafkoTemplate.class);
            // two replies come, the third never does: the request collects until the stop
            RequestReplyFuture<String, Quote, Collection<ReceivedReply<Price>>> collecting = bids.sendAndReceive(
                    "auction", null, "k", new Quote("whole-only", 1), Duration.ofMinutes(1));
            collecting.getSendFuture().get(10, TimeUnit.SECONDS);
            bids.stop();
            assertThatThrownBy(() -> collecting.get(10, TimeUnit.SECONDS)).cause().hasMessageContaining("stopped");
            assertThat(bids.pendingReplies()).isZero();
        });
    }

    @Test
    void argumentsAreChecked() {
        runner.run(context -> {
            KafkoTemplate<String, Quote> template = context.getBean(KafkoTemplate.class);
            LogBackend backend = context.getBean(LogBackend.class);
            RecordMessageConverter converter = context.getBean(RecordMessageConverter.class);
            assertThatThrownBy(() -> new AggregatingReplyingKafkoTemplate<>(template, backend, converter, "bids",
                    Price.class, null)).isInstanceOf(NullPointerException.class).hasMessage("releaseStrategy");
            assertThatThrownBy(() -> new AggregatingReplyingKafkoTemplate<>(template, backend, converter, "bids",
                    null, (r, t) -> true)).isInstanceOf(NullPointerException.class).hasMessage("replyType");
            assertThatThrownBy(() -> new AggregatingReplyingKafkoTemplate<>(template, backend, converter, "bad name",
                    Price.class, (r, t) -> true)).isInstanceOf(dev.kafko.InvalidNameException.class);
        });
    }
}
