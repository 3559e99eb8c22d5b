package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Producer#sendBatch(List, int[])}, a batch whose records name their partitions, and {@link Producer#checkRecord}. */
class BatchPartitionsTest {

    @TempDir
    Path dir;

    @Test
    void eachRecordGoesToItsPartitionOrIsRoutedAndEachPartitionKeepsListOrder() {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(3).build());
            Producer p = k.producer("t");
            List<OutgoingRecord> records = new ArrayList<>();
            int[] partitions = new int[30];
            for (int i = 0; i < 30; i++) {
                records.add(OutgoingRecord.of(i % 3 == 0 ? bytes("key-" + i) : null, bytes("v" + i)));
                partitions[i] = i % 3 == 0 ? Producer.ROUTED : i % 2;
            }
            List<RecordPosition> positions = p.sendBatch(records, partitions).join();
            assertThat(positions).hasSize(30);
            for (int i = 0; i < 30; i++) {
                int expected = i % 3 == 0 ? p.partitionFor(bytes("key-" + i)) : i % 2;
                assertThat(positions.get(i).partition()).as("record %d", i).isEqualTo(expected);
            }
            try (Consumer c = k.consumer("t")) {
                List<KafkoRecord> got = Fixtures.pollUntil(c, 30);
                for (int part = 0; part < 3; part++) {
                    int pp = part;
                    List<String> inLog = got.stream().filter(r -> r.partition() == pp).map(r -> text(r.value())).toList();
                    List<String> sent = new ArrayList<>();
                    for (int i = 0; i < 30; i++) {
                        if (positions.get(i).partition() == pp) {
                            sent.add("v" + i);
                        }
                    }
                    assertThat(inLog).as("partition %d", pp).isEqualTo(sent);
                }
            }
        }
    }

    @Test
    void aWrongPartitionOrATooLargeRecordAnywhereRefusesTheWholeBatchAtTheCall() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().partitions(2).maxRecordBytes(100).build());
            Producer p = k.producer("t");
            List<OutgoingRecord> two = List.of(OutgoingRecord.of(null, bytes("a")), OutgoingRecord.of(null, bytes("b")));
            assertThatThrownBy(() -> p.sendBatch(two, new int[] {0, 2})).isInstanceOf(InvalidPartitionException.class)
                    .hasMessageContaining("partition 2 does not exist");
            assertThatThrownBy(() -> p.sendBatch(two, new int[] {1, -2})).isInstanceOf(InvalidPartitionException.class)
                    .hasMessageContaining("partition -2");
            assertThatThrownBy(() -> p.sendBatch(List.of(OutgoingRecord.of(null, bytes("a")),
                    OutgoingRecord.of(null, new byte[200])), new int[] {0, 1}))
                    .isInstanceOf(RecordTooLargeException.class).hasMessageStartingWith("record 1 of the batch");
            assertThatThrownBy(() -> p.sendBatch(two, new int[] {0})).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("partitions has 1 entries for 2 records");
            assertThatThrownBy(() -> p.sendBatch(two, null)).isInstanceOf(NullPointerException.class)
                    .hasMessage("partitions");
            assertThat(t.partition(0).endOffset()).isZero();
            assertThat(t.partition(1).endOffset()).isZero();
            assertThat(p.sendBatch(List.of(), new int[0]).join()).isEmpty();
        }
    }

    @Test
    void checkRecordRefusesWhatASendWouldRefuseAndWritesNothing() {
        try (Kafko k = Kafko.open(dir)) {
            Topic t = k.createTopic("t", TopicConfig.builder().maxRecordBytes(100).build());
            Producer p = k.producer("t");
            p.checkRecord(OutgoingRecord.of(null, new byte[92]));
            p.checkRecord(0, OutgoingRecord.of(null, new byte[92]));
            assertThatThrownBy(() -> p.checkRecord(1, OutgoingRecord.of(null, null)))
                    .isInstanceOf(InvalidPartitionException.class).hasMessageContaining("partition 1 does not exist");
            assertThatThrownBy(() -> p.checkRecord(-1, OutgoingRecord.of(null, null)))
                    .isInstanceOf(InvalidPartitionException.class).hasMessageContaining("partition -1 does not exist");
            assertThatThrownBy(() -> p.checkRecord(0, OutgoingRecord.of(null, new byte[93])))
                    .isInstanceOf(RecordTooLargeException.class);
            assertThatThrownBy(() -> p.checkRecord(OutgoingRecord.of(null, new byte[93])))
                    .isInstanceOf(RecordTooLargeException.class).hasMessageContaining("101 bytes");
            assertThat(t.partition(0).endOffset()).isZero();
            k.deleteTopic("t");
            assertThatThrownBy(() -> p.checkRecord(OutgoingRecord.of(null, null)))
                    .isInstanceOf(UnknownTopicException.class);
        }
    }
}
