package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionFailedException;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.RecordPosition;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A frame of 32 KiB or more is written with {@code pwrite} from a direct staging buffer; under a small
 * {@code -XX:MaxDirectMemorySize} (or a heap that ran out) taking that buffer throws an {@link OutOfMemoryError}
 * before a byte is written. That failed the partition for good: every later send, however small, failed with
 * {@code PartitionFailedException} until the instance was reopened (a real run at {@code MaxDirectMemorySize=1m}:
 * all 8 partitions of a topic FAILED on their first large frame). Nothing the readers see changed (the frame lies
 * past the published end, as with a thread out of stack there): the send fails, the partition goes on. The Error is
 * injected at the frame's first write, where the staging buffer's allocation fails.
 */
class OutOfMemoryWriteTest {

    @TempDir
    Path tmp;

    @Test
    void anOutOfMemoryErrorWritingALargeFrameFailsTheSendOnly() throws Exception {
        AtomicInteger inject = new AtomicInteger(1);
        HookedFileIo io = new HookedFileIo(new HookedFileIo.Hooks() {
            @Override
            public void beforeWrite(Path path, long bytes) {
                if (path.toString().endsWith(".log") && bytes >= 32 * 1024 && inject.getAndDecrement() > 0) {
                    throw new OutOfMemoryError("Cannot reserve 1048576 bytes of direct buffer memory (injected)");
                }
            }
        });
        byte[] large = new byte[200_000];
        Arrays.fill(large, (byte) 7);
        List<byte[]> acked = new ArrayList<>();
        try (Kafko kafko = BrokerBridge.open(tmp, KafkoOptions.DEFAULTS, io)) {
            Topic topic = kafko.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            Producer producer = kafko.producer("t");
            assertThatThrownBy(() -> producer.send(null, large).join())
                    .isInstanceOf(CompletionException.class)
                    .cause().isInstanceOf(KafkoException.class).isNotInstanceOf(PartitionFailedException.class)
                    .hasMessageContaining("nothing of it was written")
                    .hasRootCauseInstanceOf(OutOfMemoryError.class);
            assertThat(topic.partitions().get(0).state()).isEqualTo(PartitionState.RUNNING);
            byte[] small = "small".getBytes();
            RecordPosition first = producer.send(null, small).join();
            acked.add(small);
            RecordPosition second = producer.send(null, large).join();
            acked.add(large);
            assertThat(first.offset()).isZero();
            assertThat(second.offset()).isEqualTo(1);
        }
        try (Kafko kafko = Kafko.open(tmp); Consumer consumer = kafko.consumer("t")) {
            List<byte[]> read = new ArrayList<>();
            for (List<KafkoRecord> polled = consumer.poll(Duration.ofSeconds(1)); !polled.isEmpty();
                    polled = consumer.poll(Duration.ofMillis(200))) {
                polled.forEach(r -> read.add(r.value()));
            }
            assertThat(read).containsExactlyElementsOf(acked);
        }
    }
}
