package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordPosition;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code EVERY_BATCH} the backend's seek to the end (behind {@code ConsumerSeekCallback.seekToEnd} and
 * {@code seekRelative} from the end) stops before a record not yet fsynced: it is read once it is, and a commit of
 * the position sought never passes it.
 */
class EveryBatchSeekToEndTest {

    @TempDir
    Path dir;

    static final class Hold implements KafkoObserver {
        final CountDownLatch held = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);

        @Override
        public void onAppend(String topic, int partition, int records, long bytes, long nanos) {
            held.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void backendSeekToEndStopsBeforeARecordNotYetFsynced() throws Exception {
        Hold hold = new Hold();
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(hold).build())) {
            kafko.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true));
            BackendConsumer c = backend.groupConsumer("t", "g", 100, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<Integer> partitions) {
                }

                @Override
                public void onPartitionsAssigned(Collection<Integer> partitions) {
                }
            });
            try {
                assertThat(c.poll(Duration.ZERO)).isEmpty();
                CompletableFuture<RecordPosition> sent = CompletableFuture.supplyAsync(
                        () -> kafko.producer("t").send(null, new byte[] {1}).join());
                assertThat(hold.held.await(10, TimeUnit.SECONDS)).isTrue();
                try {
                    c.seekToEnd(List.of(0));
                    assertThat(c.position(0)).as("the readable end, as Consumer.seekToEnd now").isZero();
                } finally {
                    hold.released.countDown();
                }
                sent.get(10, TimeUnit.SECONDS);
                List<KafkoRecord> got = c.poll(Duration.ofSeconds(5));
                assertThat(got).as("the record appended before the seek, fsynced after").hasSize(1);
            } finally {
                c.close();
            }
        }
    }
}
