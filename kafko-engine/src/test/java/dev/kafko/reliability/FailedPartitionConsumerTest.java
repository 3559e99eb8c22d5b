package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionFailedException;
import dev.kafko.PartitionState;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One failed partition does not stop a consumer of several: the others' records keep coming, none is
 * skipped, and the failure is reported by every other poll. (Every poll threw before, and a poll that
 * had read another partition first lost those records: its position had moved past them.)
 */
class FailedPartitionConsumerTest {

    @TempDir
    Path dir;

    @Test
    void theHealthyPartitionsAreReadInFullWhileTheFailedOneIsReported() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 3; i++) {
                p.sendTo(1, null, "before".getBytes(StandardCharsets.UTF_8)).join();
            }
            io.failNthWrite(1);
            // a large value is one pwrite: the failed write fails partition 1
            assertThatThrownBy(() -> p.sendTo(1, null, new byte[64 * 1024]).join()).hasCauseInstanceOf(
                    dev.kafko.KafkoStorageException.class);
            assertThat(k.topic("t").orElseThrow().partition(1).state()).isEqualTo(PartitionState.FAILED);
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                String v = "r" + i;
                p.sendTo(i % 2 == 0 ? 0 : 2, null, v.getBytes(StandardCharsets.UTF_8)).join();
                sent.add(v);
            }
            try (Consumer c = k.consumer("t", new dev.kafko.ConsumerOptions(4, null, dev.kafko.ConsumerRebalanceListener.NOOP))) {
                List<String> got = new ArrayList<>();
                int failures = 0;
                for (int poll = 0; poll < 40 && got.size() < sent.size(); poll++) {
                    try {
                        for (KafkoRecord r : c.poll(Duration.ofMillis(100))) {
                            got.add(new String(r.value(), StandardCharsets.UTF_8));
                        }
                    } catch (PartitionFailedException e) {
                        assertThat(e).hasMessageContaining("t-1");
                        failures++;
                    }
                }
                assertThat(got).containsExactlyInAnyOrderElementsOf(sent);
                assertThat(failures).as("reported, not hidden").isPositive();
                // with every healthy record read, each poll reports the failed partition
                assertThatThrownBy(() -> c.poll(Duration.ofMillis(10))).isInstanceOf(PartitionFailedException.class);
            }
        }
    }
}
