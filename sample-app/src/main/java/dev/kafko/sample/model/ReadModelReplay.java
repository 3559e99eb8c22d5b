package dev.kafko.sample.model;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.Topic;
import dev.kafko.sample.order.OrderPlaced;
import dev.kafko.sample.order.PaymentCaptured;
import dev.kafko.sample.order.Topics;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Rebuilds the {@link OrderReadModel} at start-up by reading {@code orders}, {@code payments} and
 * {@code orders.DLT} from their first offset with anonymous consumers. It runs while the context
 * creates its beans, so before any listener container or the web server starts (they start with
 * the context's lifecycle, after every bean exists). Called once, on the thread that refreshes the
 * context.
 *
 * <p><b>Why nothing is counted twice.</b> For each topic the replay first notes the end offsets,
 * reads exactly up to them, and then commits those end offsets for the model listener's group
 * ({@link ReadModelListeners}). That listener therefore starts at the first record the replay did
 * not read: replay and listener cover {@code [0, end)} and {@code [end, ...)}. As a second line
 * of defence the model itself is idempotent per order id, so even a record that did reach it twice
 * (a payment sent again after a crash of the processor) moves nothing and counts nothing.
 */
@Component
public class ReadModelReplay implements InitializingBean {

    private static final Logger LOG = LoggerFactory.getLogger(ReadModelReplay.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration STALL_LIMIT = Duration.ofSeconds(30);

    private final Kafko kafko;
    private final JsonMapper json;
    private final OrderReadModel model;
    private volatile Replayed replayed = new Replayed(0, 0, 0);

    ReadModelReplay(Kafko kafko, JsonMapper json, OrderReadModel model) {
        this.kafko = kafko;
        this.json = json;
        this.model = model;
    }

    @Override
    public void afterPropertiesSet() {
        long start = System.nanoTime();
        long records = replay(Topics.ORDERS, ReadModelListeners.ORDERS_GROUP,
                (r, order) -> model.placed(order, false), OrderPlaced.class);
        records += replay(Topics.PAYMENTS, ReadModelListeners.PAYMENTS_GROUP,
                (r, payment) -> model.paid(payment, false), PaymentCaptured.class);
        records += replay(Topics.ORDERS_DLT, ReadModelListeners.REJECTED_GROUP,
                (r, order) -> model.rejected(order, reason(r), false), OrderPlaced.class);
        long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
        replayed = new Replayed(records, model.totals().orders(), millis);
        LOG.info("Rebuilt the read model from {} records ({} orders) in {} ms", records, replayed.orders(), millis);
    }

    /** What the last replay read. */
    public Replayed replayed() {
        return replayed;
    }

    private <T> long replay(String topicName, String group, BiConsumer<KafkoRecord, T> apply, Class<T> type) {
        Optional<Topic> topic = kafko.topic(topicName);
        if (topic.isEmpty()) {
            return 0; // a fresh data directory: nothing to replay, and the listener starts at 0
        }
        Map<Integer, Long> ends = new HashMap<>();
        for (PartitionInfo p : topic.get().partitions()) {
            ends.put(p.partition(), p.endOffset());
        }
        long count = 0;
        try (Consumer consumer = kafko.consumer(topicName)) {
            long lastProgress = System.nanoTime();
            while (behind(consumer, ends)) {
                List<KafkoRecord> records = consumer.poll(POLL);
                for (KafkoRecord r : records) {
                    if (r.offset() < ends.get(r.partition())) {
                        apply(r, apply, type);
                        count++;
                    }
                }
                if (!records.isEmpty()) {
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > STALL_LIMIT.toNanos()) {
                    throw new IllegalStateException("Replaying " + topicName + " made no progress for " + STALL_LIMIT
                            + "; still behind " + ends);
                }
            }
        }
        try (Consumer member = kafko.groupConsumer(topicName, group)) {
            member.commit(ends); // the model listener of this topic starts right after the replay
        }
        return count;
    }

    private static boolean behind(Consumer consumer, Map<Integer, Long> ends) {
        for (Map.Entry<Integer, Long> end : ends.entrySet()) {
            if (consumer.position(end.getKey()) < end.getValue()) {
                return true;
            }
        }
        return false;
    }

    private <T> void apply(KafkoRecord record, BiConsumer<KafkoRecord, T> apply, Class<T> type) {
        T event;
        try {
            event = json.readValue(record.value(), type);
        } catch (JacksonException | IllegalArgumentException e) {
            LOG.warn("Skipping {}-{}@{} while replaying: not a {} ({})", record.topic(), record.partition(),
                    record.offset(), type.getSimpleName(), e.getMessage());
            return;
        }
        apply.accept(record, event);
    }

    private static String reason(KafkoRecord record) {
        byte[] reason = record.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE);
        return reason == null ? "unknown" : new String(reason, StandardCharsets.UTF_8);
    }

    /**
     * What a replay read.
     *
     * @param records the records applied
     * @param orders the orders the model knew afterwards
     * @param millis how long it took
     */
    public record Replayed(long records, long orders, long millis) {
    }
}
