package dev.kafko.spring.requestreply;

import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.RecordMessageConverter;
import java.math.BigDecimal;
import java.util.List;
import java.util.function.BiPredicate;

/** The request and reply types of the aggregating template's tests: bidders answer a quote with a price. */
final class Bids {

    record Quote(String sku, int quantity) {
    }

    record Price(String bidder, String sku, BigDecimal total) {
    }

    private Bids() {
    }

    /** A template of bids on {@code replyTopic} that returns the replies so far at a timeout if {@code strategy} says so. */
    static AggregatingReplyingKafkoTemplate<String, Quote, Price> returningPartial(
            KafkoTemplate<String, Quote> kafkoTemplate, LogBackend backend, RecordMessageConverter converter,
            String replyTopic, BiPredicate<List<ReceivedReply<Price>>, Boolean> strategy) {
        AggregatingReplyingKafkoTemplate<String, Quote, Price> bids = new AggregatingReplyingKafkoTemplate<>(
                kafkoTemplate, backend, converter, replyTopic, Price.class, strategy);
        bids.setReturnPartialOnTimeout(true);
        return bids;
    }
}
