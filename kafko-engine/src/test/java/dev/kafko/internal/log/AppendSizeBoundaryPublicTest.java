package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.OutgoingRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** README: a sendBatch puts at most 256 MiB before compression on one partition; exactly that is accepted and written. */
class AppendSizeBoundaryPublicTest {

    @Test
    void aSendBatchToOfExactlyTheDocumentedMostIsWritten(@TempDir Path dir) {
        List<OutgoingRecord> batch = AppendSizeBoundaryTest.batchOfExactly(AppendSizes.MAX_APPEND_BYTES, 20,
                new byte[1 << 20]);
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().maxRecordBytes(2 << 20).build());
            Producer p = k.producer("t");
            assertThat(p.sendBatchTo(0, batch).join()).hasSize(batch.size());
            assertThat(t.partition(0).endOffset()).isEqualTo(batch.size());
        }
    }
}
