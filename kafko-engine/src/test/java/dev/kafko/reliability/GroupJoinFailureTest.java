package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.TopicConfig;
import dev.kafko.internal.broker.BrokerBridge;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code groupConsumer} call that fails (its group's offsets file cannot be read: too many open files, an I/O
 * error) throws, and the caller holds no consumer it could close: it must not stay in the group as a member
 * holding partitions that nobody reads.
 */
class GroupJoinFailureTest {

    @TempDir
    Path tmp;

    @Test
    void aGroupConsumerThatFailedToStartLeavesNoMemberBehindHoldingPartitions() {
        Path data = tmp.resolve("data");
        RandomFaultIo io = new RandomFaultIo(RandomFaultIo.Kind.IO, 1, 1, 0, false);
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            kafko.createTopic("t", TopicConfig.builder().partitions(2).build());
            for (int i = 0; i < 4; i++) {
                kafko.producer("t").sendTo(i % 2, null, new byte[] {(byte) i}).join();
            }
            try (Consumer c = kafko.groupConsumer("t", "g")) {
                c.commit(java.util.Map.of(0, 1L, 1, 1L));
            }
        }
        try (Kafko kafko = BrokerBridge.open(data, KafkoOptions.DEFAULTS, io)) {
            // the first use of the group after the open reads its offsets file: that read fails once
            io.replay(IoFaultTest.once(s -> s.startsWith("open ") && s.endsWith("/groups/g/offsets")));
            io.arm(true);
            Throwable failed = catchThrowable(() -> kafko.groupConsumer("t", "g"));
            assertThat(failed).isInstanceOf(KafkoStorageException.class);
            io.arm(false);

            assertThat(kafko.groupInfo("t", "g").members()).as("live members after the failed join").isZero();
            try (Consumer retry = kafko.groupConsumer("t", "g")) {
                List<KafkoRecord> got = new ArrayList<>();
                for (int i = 0; i < 20 && got.size() < 2; i++) {
                    got.addAll(retry.poll(Duration.ofMillis(50)));
                }
                assertThat(retry.assignment()).as("the only live member holds every partition").containsExactly(0, 1);
                assertThat(got).as("what the group had not read").hasSize(2);
            }
        }
    }
}
