package dev.kafko.spring.requestreply;

import java.math.BigDecimal;

/** The request and reply types of the aggregating template's tests: bidders answer a quote with a price. */
final class Bids {

    record Quote(String sku, int quantity) {
    }

    record Price(String bidder, String sku, BigDecimal total) {
    }

    private Bids() {
    }
}
