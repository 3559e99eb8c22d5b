package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.TopicConfig;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A partition range is expanded into one entry per partition before any topic is looked at: a number no topic can
 * have must be refused as such while the annotation is read. Unchecked, {@code "0-2147483647"} loops for ever (the
 * counter overflows past {@code Integer.MAX_VALUE}) while it fills the heap, and a mistyped {@code "0-99999999"}
 * ends the start-up in an {@link OutOfMemoryError} instead of a message naming the listener.
 */
class ListenerTopicPartitionsRangeTest {

    @Test
    void aPartitionNoTopicCanHaveIsRefusedBeforeTheRangeIsExpanded() throws Exception {
        TopicPartition[] declared = Wide.class.getDeclaredMethod("read", String.class)
                .getAnnotation(KafkoListener.class).topicPartitions();
        AtomicInteger resolved = new AtomicInteger();
        assertThatThrownBy(() -> resolved.set(ListenerTopicPartitions.resolve(declared, "'wide'",
                (value, attribute) -> value).size()))
                .as("resolved %s partitions", resolved)
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageContaining("'wide'")
                .hasMessageContaining(String.valueOf(TopicConfig.MAX_PARTITIONS))
                .hasMessageContaining("0-" + TopicConfig.MAX_PARTITIONS);
        assertThat(ListenerTopicPartitions.resolve(Narrow.class.getDeclaredMethod("read", String.class)
                .getAnnotation(KafkoListener.class).topicPartitions(), "'narrow'", (value, attribute) -> value))
                .hasSize(TopicConfig.MAX_PARTITIONS);
    }

    static class Wide {
        @KafkoListener(id = "wide", topicPartitions = @TopicPartition(topic = "orders", partitions = "0-10000"))
        void read(String value) {
        }
    }

    static class Narrow {
        @KafkoListener(id = "narrow", topicPartitions = @TopicPartition(topic = "orders", partitions = "0-9999"))
        void read(String value) {
        }
    }
}
