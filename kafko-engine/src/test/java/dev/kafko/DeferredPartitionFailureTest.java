package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A poll that read records from some partitions keeps the error of one it could not read for the next
 * poll. That error is about where the consumer stood in that partition: once the consumer has moved
 * (a seek past the damage) the next poll reads on from there, as Kafka's consumer does, instead of
 * throwing an error about a position it has left.
 */
class DeferredPartitionFailureTest {

    @TempDir
    Path dir;

    @BeforeEach
    void twoPartitionsTheFirstFrameOfPartitionZeroDamaged() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(2).compression(Compression.LZ4).build());
            Producer p = k.producer("t");
            for (int partition = 0; partition < 2; partition++) {
                for (int f = 0; f < 3; f++) {
                    List<OutgoingRecord> batch = new ArrayList<>();
                    for (int i = 0; i < 3; i++) {
                        batch.add(OutgoingRecord.of(null, ("p" + partition + "-" + (f * 3 + i)).getBytes()));
                    }
                    p.sendBatchTo(partition, batch).join();
                }
            }
        }
        Path segment = dir.resolve("t/0/00000000000000000000.log");
        byte[] b = Files.readAllBytes(segment);
        b[16 + 44 + 2] ^= 0x55; // in the first frame's compressed records: its CRC fails
        Files.write(segment, b);
    }

    @Test
    void aSeekPastTheDamageBeforeTheNextPollReadsOnInsteadOfThrowingTheOldError() {
        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
            List<KafkoRecord> first = c.poll(Duration.ofSeconds(2));
            assertThat(first).extracting(KafkoRecord::partition).containsOnly(1); // partition 0 failed at offset 0
            c.seek(0, 3); // past the damaged frame
            List<KafkoRecord> next = c.poll(Duration.ofSeconds(2));
            assertThat(next).extracting(KafkoRecord::partition).containsOnly(0);
            assertThat(next.get(0).offset()).isEqualTo(3);
        }
    }

    @Test
    void withoutASeekTheNextPollStillReportsTheDamage() {
        try (Kafko k = Kafko.open(dir); Consumer c = k.consumer("t")) {
            assertThat(c.poll(Duration.ofSeconds(2))).extracting(KafkoRecord::partition).containsOnly(1);
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(2))).isInstanceOf(CorruptLogException.class);
            c.seek(0, 0); // the same position again: the damage is still there
            assertThatThrownBy(() -> c.poll(Duration.ofSeconds(2))).isInstanceOf(CorruptLogException.class);
        }
    }
}
