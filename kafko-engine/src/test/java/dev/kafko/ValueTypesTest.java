package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The public value types keep the promises their javadoc makes (found by an outside review). */
class ValueTypesTest {

    @TempDir
    Path dir;

    @Test
    void outgoingRecordsCompareTheirBytesAndPrintTheirSizes() {
        OutgoingRecord a = OutgoingRecord.of(bytes("k"), bytes("value"), Headers.of("h", bytes("1")), 5);
        OutgoingRecord b = OutgoingRecord.of(bytes("k"), bytes("value"), Headers.of("h", bytes("1")), 5);

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(OutgoingRecord.of(bytes("k"), bytes("other"), Headers.of("h", bytes("1")), 5));
        assertThat(OutgoingRecord.of(null, null)).isEqualTo(OutgoingRecord.of(null, null))
                .isNotEqualTo(OutgoingRecord.of(new byte[0], null));
        assertThat(a.toString()).startsWith("OutgoingRecord[key=1 bytes, value=5 bytes, headers=")
                .endsWith(", timestamp=5]");
        assertThat(OutgoingRecord.of(null, null).toString()).contains("key=null, value=null");
    }

    @Test
    void anFsyncIntervalPrintsWhatParseReadsBack() {
        for (Duration d : new Duration[] {Duration.ofMillis(5), Duration.ofNanos(500_000), Duration.ofNanos(1_500),
                Duration.ofNanos(7), Duration.ofSeconds(3), Duration.ofSeconds(Long.MAX_VALUE / 1_000_000, 1_500)}) {
            FsyncPolicy policy = FsyncPolicy.interval(d);
            assertThat(FsyncPolicy.parse(policy.toString())).as(policy.toString()).isEqualTo(policy);
        }
        assertThat(FsyncPolicy.interval(Duration.ofNanos(500_000)).toString()).isEqualTo("interval:PT0.0005S");
        assertThat(FsyncPolicy.interval(Duration.ofSeconds(Long.MAX_VALUE / 1_000_000)).toString()).endsWith("ms");
    }

    @Test
    void aTopicsPartitionSnapshotCannotBeChanged() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).build());
            assertThatThrownBy(() -> t.partitions().add(null)).isInstanceOf(UnsupportedOperationException.class);
            assertThat(t.partitions()).hasSize(2);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
