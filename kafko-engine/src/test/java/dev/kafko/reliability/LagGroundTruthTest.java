package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.GroupInfo;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.PartitionInfo;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GroupInfo's lag and PartitionInfo against what was written, committed and retained. */
class LagGroundTruthTest {

    @TempDir
    Path dir;

    @Test
    void lagIsEndMinusWhereTheGroupReadsNextThroughRetentionSeeksAndGroupsWithoutMembers() throws Exception {
        KafkoOptions options = KafkoOptions.builder().retentionCheckInterval(Duration.ofMillis(50)).build();
        try (Kafko kafko = Kafko.open(dir, options)) {
            kafko.createTopic("t", TopicConfig.builder().partitions(2).segmentBytes(4096).retentionBytes(8192).build());
            try (Consumer c = kafko.groupConsumer("t", "early")) {
                c.poll(Duration.ofMillis(10));
                c.commit(Map.of(0, 3L));
            }
            try (Consumer c = kafko.groupConsumer("t", "late")) {
                c.poll(Duration.ofMillis(10));
                c.commit(Map.of(0, 0L));
            }
            for (int i = 0; i < 300; i++) {
                kafko.producer("t").sendTo(0, null, new byte[100]).join();
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while ((kafko.topic("t").get().partition(0).logStartOffset() <= 3
                    || kafko.topic("t").get().partition(0).sizeBytes() > 8192 + 4096) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(kafko.topic("t").get().partition(0).logStartOffset()).isGreaterThan(3);
            try (Consumer c = kafko.groupConsumer("t", "late")) {
                c.poll(Duration.ofMillis(10));
                c.commit(Map.of(0, 280L));
                c.seek(0, 10); // a seek without a commit changes no lag
            }
            PartitionInfo p = kafko.topic("t").get().partition(0);
            assertThat(p.endOffset()).isEqualTo(300);
            GroupInfo early = kafko.groupInfo("t", "early");
            assertThat(early.members()).isZero();
            assertThat(early.lag()).containsEntry(0, p.endOffset() - p.logStartOffset()).containsEntry(1, 0L);
            assertThat(kafko.groupInfo("t", "late").lag()).containsEntry(0, 20L);
            assertThat(kafko.groupInfo("t", "never").lag()).containsEntry(0, p.endOffset() - p.logStartOffset());
            assertThat(p.sizeBytes()).isLessThanOrEqualTo(8192 + 4096);
        }
    }

    @Test
    void underEveryBatchTheEndOffsetAndTheLagCountTheSameRecords() {
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("t", TopicConfig.builder().fsync(FsyncPolicy.EVERY_BATCH).build());
            for (int i = 0; i < 50; i++) {
                kafko.producer("t").send(null, new byte[10]).join();
            }
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                c.poll(Duration.ofMillis(10));
                c.commit(Map.of(0, 7L));
            }
            assertThat(kafko.groupInfo("t", "g").lag()).containsEntry(0, 43L);
            assertThat(kafko.topic("t").get().partition(0).endOffset()).isEqualTo(50);
        }
    }
}
