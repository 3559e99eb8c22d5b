package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.GroupInfo;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.Topic;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reopens a data directory after a crash and checks it against what was acknowledged: every
 * acknowledged record is there at its offset with its value, offsets run from the log start to
 * the end without a gap or a repeat, every record holds the value its key implies, and committed
 * offsets are within the data and not behind an acknowledged commit. Test thread only.
 */
final class LogVerifier {

    /** What one verification read. */
    record Figures(long records, long acked, long[] endOffsets, Map<Integer, Long> committed) {
    }

    private LogVerifier() {
    }

    /**
     * @param ackedCommits per partition, the highest offset whose commit call returned before the crash
     * @param group the group whose offsets are checked, or {@code null}
     */
    static Figures verify(Path dataDir, Collection<Ack> acked, Map<Integer, Long> ackedCommits,
            @org.jspecify.annotations.Nullable String group) {
        try (Kafko kafko = Kafko.open(dataDir)) {
            Topic topic = kafko.topic(Workload.TOPIC).orElse(null);
            if (topic == null) {
                assertThat(acked).as("records were acknowledged but the topic is gone").isEmpty();
                return new Figures(0, 0, new long[0], Map.of());
            }
            Map<Long, KafkoRecord>[] byOffset = readAll(kafko, topic);
            long[] ends = new long[topic.partitionCount()];
            long total = 0;
            for (PartitionInfo p : topic.partitions()) {
                ends[p.partition()] = p.endOffset();
                Map<Long, KafkoRecord> m = byOffset[p.partition()];
                assertThat(m.size()).as("partition %d: records from %d to %d without gaps", p.partition(),
                        p.logStartOffset(), p.endOffset()).isEqualTo((int) (p.endOffset() - p.logStartOffset()));
                total += m.size();
            }
            for (Ack a : acked) {
                KafkoRecord r = byOffset[a.partition()].get(a.offset());
                assertThat(r).as("acknowledged %s", a).isNotNull();
                assertThat(new String(r.key(), StandardCharsets.US_ASCII)).as("key at %s", a).isEqualTo(a.key());
                assertThat(Workload.checksum(r.value())).as("value at %s", a).isEqualTo(a.checksum());
            }
            Map<Integer, Long> committed = new HashMap<>();
            if (group != null) {
                GroupInfo g = kafko.groupInfo(Workload.TOPIC, group);
                committed.putAll(g.committed());
                for (Map.Entry<Integer, Long> c : g.committed().entrySet()) {
                    assertThat(c.getValue()).as("committed offset of partition %d within the data", c.getKey())
                            .isBetween(0L, ends[c.getKey()]);
                }
                for (Map.Entry<Integer, Long> c : ackedCommits.entrySet()) {
                    assertThat(g.committed().get(c.getKey())).as("acknowledged commit of partition %d", c.getKey())
                            .isNotNull().isGreaterThanOrEqualTo(c.getValue());
                }
            }
            return new Figures(total, acked.size(), ends, committed);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<Long, KafkoRecord>[] readAll(Kafko kafko, Topic topic) {
        int n = topic.partitionCount();
        Map<Long, KafkoRecord>[] out = new Map[n];
        long[] want = new long[n];
        long remaining = 0;
        for (PartitionInfo p : topic.partitions()) {
            out[p.partition()] = new HashMap<>();
            want[p.partition()] = p.endOffset() - p.logStartOffset();
            remaining += want[p.partition()];
        }
        try (Consumer c = kafko.consumer(Workload.TOPIC)) {
            int idle = 0;
            while (remaining > 0 && idle < 20) {
                List<KafkoRecord> batch = c.poll(Duration.ofMillis(100));
                idle = batch.isEmpty() ? idle + 1 : 0;
                for (KafkoRecord r : batch) {
                    KafkoRecord before = out[r.partition()].put(r.offset(), r);
                    assertThat(before).as("offset %d of partition %d returned twice", r.offset(), r.partition())
                            .isNull();
                    assertThat(Workload.checksum(r.value()))
                            .as("value of %s at %d/%d is the one its key implies", new String(r.key(),
                                    StandardCharsets.US_ASCII), r.partition(), r.offset())
                            .isEqualTo(Workload.checksum(Workload.value(r.key())));
                    remaining--;
                }
            }
        }
        return out;
    }
}
