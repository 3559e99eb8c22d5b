package dev.kafko.sample.model;

import dev.kafko.Kafko;
import dev.kafko.PartitionInfo;
import dev.kafko.Topic;
import dev.kafko.sample.order.Topics;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.springframework.stereotype.Component;

/**
 * Builds what {@code GET /stats} shows: the read model's totals, the replay at start-up, and per
 * topic and partition the end offset and every group's lag, read from the {@link Kafko} bean.
 * Any thread may call it; it reads snapshots only.
 */
@Component
public class PipelineStats {

    private static final List<String> TOPICS = List.of(Topics.ORDERS, Topics.PAYMENTS, Topics.ORDERS_DLT);

    private final OrderReadModel model;
    private final ReadModelReplay replay;
    private final Kafko kafko;

    public PipelineStats(OrderReadModel model, ReadModelReplay replay, Kafko kafko) {
        this.model = model;
        this.replay = replay;
        this.kafko = kafko;
    }

    public Stats snapshot() {
        OrderReadModel.Totals totals = model.totals();
        Map<OrderStatus, StatusTotals> byStatus = new EnumMap<>(OrderStatus.class);
        for (OrderStatus s : OrderStatus.values()) {
            byStatus.put(s, new StatusTotals(totals.count(s), totals.amount(s)));
        }
        Map<String, TopicStats> topics = new LinkedHashMap<>();
        for (String name : TOPICS) {
            kafko.topic(name).ifPresent(t -> topics.put(name, topic(t)));
        }
        long deadLetters = Optional.ofNullable(topics.get(Topics.ORDERS_DLT)).map(TopicStats::records).orElse(0L);
        return new Stats(totals.orders(), byStatus, deadLetters, replay.replayed(), topics);
    }

    private TopicStats topic(Topic topic) {
        Map<String, Map<Integer, Long>> lagByGroup = new TreeMap<>();
        for (String group : kafko.groups(topic.name())) {
            lagByGroup.put(group, kafko.groupInfo(topic.name(), group).lag());
        }
        List<PartitionStats> partitions = new ArrayList<>();
        long records = 0;
        for (PartitionInfo p : topic.partitions()) {
            records += p.endOffset() - p.logStartOffset();
            Map<String, Long> lag = new TreeMap<>();
            lagByGroup.forEach((group, lags) -> lag.put(group, lags.getOrDefault(p.partition(), p.endOffset())));
            partitions.add(new PartitionStats(p.partition(), p.endOffset(), lag));
        }
        return new TopicStats(records, partitions);
    }

    /**
     * The body of {@code GET /stats}.
     *
     * @param orders orders the read model knows
     * @param byStatus count and summed amount per status
     * @param deadLetters records in {@code orders.DLT}
     * @param replay what the start-up replay read
     * @param topics per topic: records held, and per partition the end offset and each group's lag
     */
    public record Stats(long orders, Map<OrderStatus, StatusTotals> byStatus, long deadLetters,
                        ReadModelReplay.Replayed replay, Map<String, TopicStats> topics) {
    }

    /** Count and summed amount of one status. */
    public record StatusTotals(long count, BigDecimal amount) {
    }

    /** One topic: records it holds and its partitions. */
    public record TopicStats(long records, List<PartitionStats> partitions) {
    }

    /** One partition: its end offset and, per group, how far behind the group's committed offset is. */
    public record PartitionStats(int partition, long endOffset, Map<String, Long> lag) {
    }
}
