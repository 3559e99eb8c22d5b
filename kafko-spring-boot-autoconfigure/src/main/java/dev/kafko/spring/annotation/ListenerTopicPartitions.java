package dev.kafko.spring.annotation;

import dev.kafko.TopicConfig;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.util.StringUtils;

/**
 * Resolves {@link KafkoListener#topicPartitions()} into the partitions a listener reads, with their initial
 * offsets, as spring-kafka reads its {@code @TopicPartition}s: partitions as numbers, comma-separated lists and
 * ranges ({@code "0-5, 7"}), a {@code "*"} {@link PartitionOffset} for every listed partition, no partition twice.
 * Used by {@link KafkoListenerAnnotationBeanPostProcessor} while it builds an endpoint.
 */
final class ListenerTopicPartitions {

    /** Resolves one attribute value (placeholders, then SpEL), naming the attribute when it fails. */
    interface Resolver {
        @Nullable Object resolve(String value, String attribute);
    }

    private final String where;
    private final Resolver resolver;
    private final List<TopicPartitionOffset> resolved = new ArrayList<>();
    private final Map<String, Set<Integer>> seen = new HashMap<>();

    private ListenerTopicPartitions(String where, Resolver resolver) {
        this.where = where;
        this.resolver = resolver;
    }

    /**
     * The partitions {@code declared} names, in the order given.
     *
     * @param where how failures name the listener
     * @throws InvalidKafkoListenerException naming the listener and what is wrong
     */
    static List<TopicPartitionOffset> resolve(TopicPartition[] declared, String where, Resolver resolver) {
        ListenerTopicPartitions all = new ListenerTopicPartitions(where, resolver);
        for (TopicPartition tp : declared) {
            all.add(tp);
        }
        return List.copyOf(all.resolved);
    }

    private void add(TopicPartition tp) {
        Object topicValue = resolver.resolve(tp.topic(), "topicPartitions.topic");
        if (topicValue == null || !StringUtils.hasText(topicValue.toString())) {
            throw invalid("@TopicPartition topic '" + tp.topic() + "' resolved to nothing");
        }
        String topic = topicValue.toString().strip();
        List<Integer> plain = new ArrayList<>();
        for (String value : tp.partitions()) {
            plain.addAll(partitions(resolver.resolve(value, "topicPartitions.partitions"), value, topic));
        }
        PartitionOffset[] offsets = tp.partitionOffsets();
        List<TopicPartitionOffset> ofTopic = new ArrayList<>();
        boolean wildcard = false;
        for (PartitionOffset po : offsets) {
            Object partition = resolver.resolve(po.partition(), "topicPartitions.partitionOffsets.partition");
            if (partition instanceof String s && s.strip().equals("*")) {
                if (offsets.length > 1) {
                    throw invalid("@PartitionOffset partition '*' of topic '" + topic + "' must be the only"
                            + " @PartitionOffset of its @TopicPartition");
                }
                if (plain.isEmpty()) {
                    throw invalid("@PartitionOffset partition '*' of topic '" + topic + "' applies to the"
                            + " partitions of its @TopicPartition, which names none");
                }
                wildcard = true;
                for (int p : plain) {
                    ofTopic.add(new TopicPartitionOffset(topic, p, initialOffset(po, topic), relative(po, topic)));
                }
                continue;
            }
            long offset = initialOffset(po, topic);
            boolean relative = relative(po, topic);
            for (int p : partitions(partition, po.partition(), topic)) {
                ofTopic.add(new TopicPartitionOffset(topic, p, offset, relative));
            }
        }
        if (!wildcard) {
            List<TopicPartitionOffset> withPlain = new ArrayList<>();
            for (int p : plain) {
                withPlain.add(new TopicPartitionOffset(topic, p));
            }
            withPlain.addAll(ofTopic);
            ofTopic = withPlain;
        }
        if (ofTopic.isEmpty()) {
            throw invalid("@TopicPartition of topic '" + topic + "' names no partition (give partitions or"
                    + " partitionOffsets)");
        }
        Set<Integer> taken = seen.computeIfAbsent(topic, t -> new HashSet<>());
        for (TopicPartitionOffset tpo : ofTopic) {
            if (!taken.add(tpo.partition())) {
                throw invalid("partition " + tpo.partition() + " of topic '" + topic + "' is given twice in"
                        + " topicPartitions");
            }
        }
        resolved.addAll(ofTopic);
    }

    private long initialOffset(PartitionOffset po, String topic) {
        Object value = resolver.resolve(po.initialOffset(), "topicPartitions.partitionOffsets.initialOffset");
        if (value instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(String.valueOf(value).strip());
        } catch (NumberFormatException e) {
            throw invalid("@PartitionOffset initialOffset '" + po.initialOffset() + "' of topic '" + topic
                    + "' is not a number");
        }
    }

    private boolean relative(PartitionOffset po, String topic) {
        Object value = resolver.resolve(po.relativeToCurrent(), "topicPartitions.partitionOffsets.relativeToCurrent");
        String v = String.valueOf(value).strip();
        if (value instanceof Boolean b) {
            return b;
        }
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw invalid("@PartitionOffset relativeToCurrent '" + po.relativeToCurrent() + "' of topic '" + topic
                + "' is neither true nor false");
    }

    /** The partitions a resolved value names: a number, a list of numbers and ranges, or an array or collection. */
    private List<Integer> partitions(@Nullable Object value, String raw, String topic) {
        List<Integer> out = new ArrayList<>();
        if (value instanceof Number n) {
            out.add(checked(n.longValue(), raw, topic));
        } else if (value instanceof int[] ints) {
            for (int i : ints) {
                out.add(checked(i, raw, topic));
            }
        } else if (value instanceof Object[] array) {
            for (Object o : array) {
                out.addAll(partitions(o, raw, topic));
            }
        } else if (value instanceof Collection<?> collection) {
            for (Object o : collection) {
                out.addAll(partitions(o, raw, topic));
            }
        } else if (value instanceof String s && StringUtils.hasText(s)) {
            for (String part : s.split(",")) {
                out.addAll(range(part.strip(), raw, topic));
            }
        } else {
            throw invalid("partition '" + raw + "' of topic '" + topic + "' resolved to "
                    + (value == null || value instanceof String ? "nothing" : "a " + value.getClass().getName()));
        }
        return out;
    }

    /** {@code "3"}, or {@code "2-4"}: 2, 3 and 4. */
    private List<Integer> range(String part, String raw, String topic) {
        int dash = part.indexOf('-', 1); // not a leading minus: "-1" is a negative partition, refused as such
        try {
            if (dash < 0) {
                return List.of(checked(Long.parseLong(part), raw, topic));
            }
            int first = checked(Long.parseLong(part.substring(0, dash).strip()), raw, topic);
            int last = checked(Long.parseLong(part.substring(dash + 1).strip()), raw, topic);
            if (last < first) {
                throw invalid("partition range '" + part + "' of topic '" + topic + "' ends before it starts");
            }
            List<Integer> out = new ArrayList<>();
            for (int p = first; p <= last; p++) {
                out.add(p);
            }
            return out;
        } catch (NumberFormatException e) {
            throw invalid("partition '" + part + "' (of '" + raw + "') of topic '" + topic + "' is neither a number"
                    + " nor a range such as 0-5");
        }
    }

    /**
     * The partition, refused when no topic can have it: checked before a range is expanded into one entry per
     * partition, which "0-2147483647" would do for ever.
     */
    private int checked(long partition, String raw, String topic) {
        if (partition < 0 || partition >= TopicConfig.MAX_PARTITIONS) {
            throw invalid("partition " + partition + " (of '" + raw + "') of topic '" + topic + "' is not a"
                    + " partition number: a topic has at most " + TopicConfig.MAX_PARTITIONS + " partitions, 0 to "
                    + (TopicConfig.MAX_PARTITIONS - 1));
        }
        return (int) partition;
    }

    private InvalidKafkoListenerException invalid(String what) {
        return new InvalidKafkoListenerException("@KafkoListener " + where + ": " + what);
    }
}
