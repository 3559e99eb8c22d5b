package dev.kafko.internal.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A completed send's future holds no record: callers keep futures (to join them all later, say), and each one
 * kept the engine's copy of its value alive, 10 KB a future for 10 KB values, 67 MB for one 67 MB value.
 */
class ReleasedRecordsTest {

    @TempDir
    Path dir;

    @Test
    void aCompletedFutureLetsItsRecordsGoWrittenOrFailed() {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("t", TopicConfig.builder().partitions(2).maxRecordBytes(4096).build());
            Producer producer = kafko.producer("t");
            CompletableFuture<RecordPosition> one = producer.sendTo(0, null, new byte[1000]);
            CompletableFuture<List<RecordPosition>> batch = producer.sendBatchTo(1,
                    List.of(OutgoingRecord.of(null, new byte[1000]), OutgoingRecord.of(null, new byte[10])));
            assertThat(one.join().offset()).isZero();
            assertThat(batch.join()).extracting(RecordPosition::offset).containsExactly(0L, 1L);

            assertThat(one).isInstanceOf(SendRequest.class);
            assertThatThrownBy(((SendRequest) one)::record).isInstanceOf(IllegalStateException.class);
            assertThat(batch).isInstanceOf(BatchRequest.class);
            assertThatThrownBy(((BatchRequest) batch)::records).isInstanceOf(IllegalStateException.class);
            assertThat(batch.join()).as("the positions outlive the records").hasSize(2);

            kafko.deleteTopic("t");
        }
    }
}
