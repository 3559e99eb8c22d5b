package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each limit of {@link TopicConfig} is inclusive: the value at it is taken, the one past it refused. */
class TopicConfigLimitsTest {

    @Test
    void theValuesAtEachLimitAreTaken() {
        TopicConfig low = TopicConfig.builder().partitions(1).segmentBytes(TopicConfig.MIN_SEGMENT_BYTES)
                .segmentAge(Duration.ofMillis(1)).retention(Duration.ZERO).retentionBytes(-1)
                .maxRecordBytes(TopicConfig.MIN_RECORD_BYTES).indexIntervalBytes(64).build();
        assertThat(low.indexIntervalBytes()).isEqualTo(64);
        TopicConfig high = TopicConfig.builder().partitions(TopicConfig.MAX_PARTITIONS)
                .segmentBytes(TopicConfig.MAX_SEGMENT_BYTES).segmentAge(TopicConfig.MAX_DURATION)
                .retention(TopicConfig.MAX_DURATION).retentionBytes(0)
                .maxRecordBytes(TopicConfig.MAX_RECORD_BYTES_LIMIT).indexIntervalBytes(1 << 24).build();
        assertThat(high.partitions()).isEqualTo(TopicConfig.MAX_PARTITIONS);
        assertThat(high.indexIntervalBytes()).isEqualTo(1 << 24);
        assertThat(high.retention()).isEqualTo(TopicConfig.MAX_DURATION);
    }

    @Test
    void theValuesPastEachLimitAreRefused() {
        refused(b -> b.partitions(0));
        refused(b -> b.partitions(TopicConfig.MAX_PARTITIONS + 1));
        refused(b -> b.segmentBytes(TopicConfig.MIN_SEGMENT_BYTES - 1));
        refused(b -> b.segmentBytes(TopicConfig.MAX_SEGMENT_BYTES + 1));
        refused(b -> b.segmentAge(Duration.ZERO));
        refused(b -> b.retention(Duration.ofMillis(-1)));
        refused(b -> b.retentionBytes(-2));
        refused(b -> b.maxRecordBytes(TopicConfig.MIN_RECORD_BYTES - 1));
        refused(b -> b.maxRecordBytes(TopicConfig.MAX_RECORD_BYTES_LIMIT + 1));
        refused(b -> b.indexIntervalBytes(63));
        refused(b -> b.indexIntervalBytes((1 << 24) + 1));
    }

    private static void refused(java.util.function.UnaryOperator<TopicConfig.Builder> change) {
        assertThatThrownBy(() -> change.apply(TopicConfig.builder()).build()).isInstanceOf(InvalidConfigException.class);
    }
}
