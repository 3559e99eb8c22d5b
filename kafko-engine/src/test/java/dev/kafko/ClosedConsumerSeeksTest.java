package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class comment of {@link Consumer}: after close the seeks throw {@link KafkoClosedException}, and an argument
 * error is still reported first.
 */
class ClosedConsumerSeeksTest {

    @TempDir
    Path dir;

    @Test
    void everySeekOfOnePartitionOfAClosedConsumerThrowsKafkoClosedException() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Consumer c = k.consumer("t");
            c.close();
            assertThatThrownBy(() -> c.seekToBeginning(0)).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> c.seekToEnd(0)).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> c.seek(0, 0)).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> c.seekToTimestamp(0, 0)).isInstanceOf(KafkoClosedException.class);
            assertThatThrownBy(() -> c.position(0)).isInstanceOf(KafkoClosedException.class);
        }
    }

    @Test
    void aNegativeTimestampIsReportedBeforeTheCloseAndTheAssignment() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).build());
            Consumer fixed = k.consumer("t", ConsumerOptions.DEFAULTS.withPartitions(java.util.Set.of(0)));
            assertThatThrownBy(() -> fixed.seekToTimestamp(1, -1)).as("partition 1 is not assigned")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative timestamp -1");
            fixed.close();
            assertThatThrownBy(() -> fixed.seekToTimestamp(0, -1)).as("closed")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative timestamp -1");
            assertThatThrownBy(() -> fixed.seek(0, -1)).isInstanceOf(OffsetOutOfRangeException.class);
        }
    }
}
