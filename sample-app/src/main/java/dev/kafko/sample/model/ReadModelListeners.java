package dev.kafko.sample.model;

import dev.kafko.sample.order.OrderPlaced;
import dev.kafko.sample.order.PaymentCaptured;
import dev.kafko.sample.order.Topics;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.support.KafkoHeaders;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;

/**
 * Keeps the {@link OrderReadModel} up to date, one listener (and group) per topic. Each group
 * starts where {@link ReadModelReplay} stopped: the replay commits its end offsets for these
 * groups before the listeners start.
 */
@Component
class ReadModelListeners {

    /** The listener ids, which are also the groups. */
    static final String ORDERS_GROUP = "read-model-orders";
    static final String PAYMENTS_GROUP = "read-model-payments";
    static final String REJECTED_GROUP = "read-model-rejected";

    private final OrderReadModel model;

    ReadModelListeners(OrderReadModel model) {
        this.model = model;
    }

    @KafkoListener(id = ORDERS_GROUP, topics = Topics.ORDERS)
    void placed(OrderPlaced order) {
        model.placed(order, true);
    }

    @KafkoListener(id = PAYMENTS_GROUP, topics = Topics.PAYMENTS)
    void paid(PaymentCaptured payment) {
        model.paid(payment, true);
    }

    @KafkoListener(id = REJECTED_GROUP, topics = Topics.ORDERS_DLT)
    void rejected(OrderPlaced order,
                  @Header(name = KafkoHeaders.DLT_EXCEPTION_MESSAGE, required = false) @Nullable String reason) {
        model.rejected(order, reason, true);
    }
}
