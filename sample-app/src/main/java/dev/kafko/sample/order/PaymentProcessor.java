package dev.kafko.sample.order;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.core.KafkoTemplate;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.time.Clock;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;

/**
 * Reads {@code orders} with two members of the group {@code payment-processor} (two partitions
 * each), validates every order and captures its payment on {@code payments}. An invalid order
 * throws an {@link InvalidOrderException}, which {@code kafko.listener.retry.not-retryable} names, so
 * the starter publishes it to {@code orders.DLT} at once, without retrying. Offsets are committed after each poll, so a restart resumes where the
 * group left off; a crash may deliver a few orders again, which the read model absorbs (it is
 * idempotent per order id). {@code --sample.processor.auto-startup=false} starts the application
 * with the processor stopped: orders are accepted and wait in {@code orders}.
 */
@Component
public class PaymentProcessor {

    /** The listener id, which is also the group. */
    public static final String ID = "payment-processor";

    private final KafkoTemplate<String, PaymentCaptured> template;
    private final Validator validator;
    private final Clock clock;

    public PaymentProcessor(KafkoTemplate<String, PaymentCaptured> template, Validator validator, Clock clock) {
        this.template = template;
        this.validator = validator;
        this.clock = clock;
    }

    @KafkoListener(id = ID, topics = Topics.ORDERS, concurrency = "2",
                   autoStartup = "${sample.processor.auto-startup:true}")
    void process(OrderPlaced order) {
        check(order);
        // waiting here keeps at-least-once: the order's offset is committed only after its payment is in the log
        template.send(Topics.PAYMENTS, order.customer(), PaymentCaptured.of(order, clock.instant())).join();
    }

    private void check(OrderPlaced order) {
        Set<ConstraintViolation<OrderPlaced>> violations = validator.validate(order);
        if (!violations.isEmpty()) {
            throw new InvalidOrderException("order " + order.id() + " is invalid: " + violations.stream()
                    .map(v -> v.getPropertyPath() + " " + v.getMessage())
                    .sorted(Comparator.naturalOrder())
                    .collect(Collectors.joining(", ")));
        }
    }
}
