package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import dev.kafko.internal.io.FaultyFileIo;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A create that fails while its partitions open leaves no directory behind (it warned at every later open). */
class CreateTopicFailureTest {

    @TempDir
    Path dir;

    @Test
    void aCreateThatFailsOpeningAPartitionLeavesNothingBehind() {
        FaultyFileIo io = new FaultyFileIo().syncs(false);
        try (Kafko k = BrokerBridge.open(dir, KafkoOptions.DEFAULTS, io)) {
            long before = io.writes();
            k.createTopic("probe", TopicConfig.builder().partitions(8).build());
            long writesPerCreate = io.writes() - before;
            assertThat(writesPerCreate).as("writes of a create of 8 partitions").isGreaterThan(4);
            // fail a write half-way through the partitions of the next create
            io.failNthWrite(writesPerCreate / 2);
            assertThatThrownBy(() -> k.createTopic("t", TopicConfig.builder().partitions(8).build()))
                    .isInstanceOf(KafkoStorageException.class);
            assertThat(dir.resolve("t")).doesNotExist();
            assertThat(k.topic("t")).isEmpty();
            k.createTopic("t", TopicConfig.builder().partitions(8).build());
        }
        try (Kafko k = Kafko.open(dir)) {
            assertThat(k.topics()).containsExactlyInAnyOrder("probe", "t");
        }
        assertThat(Files.exists(dir.resolve("t").resolve("topic.conf"))).isTrue();
    }
}
