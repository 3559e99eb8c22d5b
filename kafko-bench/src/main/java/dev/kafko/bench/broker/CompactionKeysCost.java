package dev.kafko.bench.broker;

import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.PartitionInfo;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one {@code Topic.compact()} of a partition of many distinct keys costs: {@code keys} keys of 12 bytes with
 * values of about 17 bytes, then every other key written again, into one compacted partition of 64 MiB segments;
 * then {@code compact()}, timed, with the partition's size before and after and the heap in use after it. Run it
 * under a small heap ({@code -Xmx256m}) to see whether a compaction's memory follows the partition's keys or its
 * buffer ({@code KafkoOptions.compactionBufferBytes}).
 *
 * <p>Usage: {@code java -Xmx256m -cp benchmarks.jar dev.kafko.bench.broker.CompactionKeysCost [keys]}
 * (default 3,000,000).
 */
public final class CompactionKeysCost {

    private CompactionKeysCost() {
    }

    public static void main(String[] args) {
        int keys = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
        Path dir = BenchDirs.create();
        try (Kafko k = Kafko.open(dir)) {
            Topic topic = k.createTopic("state", TopicConfig.builder().compact().segmentBytes(64L << 20).build());
            Producer p = k.producer("state");
            for (int round = 0; round < 2; round++) {
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int i = 0; i < keys; i += round == 0 ? 1 : 2) {
                    batch.add(OutgoingRecord.of(String.format(Locale.ROOT, "key-%08d", i).getBytes(StandardCharsets.UTF_8),
                            ("value-" + round + "-" + i).getBytes(StandardCharsets.UTF_8)));
                    if (batch.size() == 1024) {
                        p.sendBatch(batch).join();
                        batch = new ArrayList<>();
                    }
                }
                if (!batch.isEmpty()) {
                    p.sendBatch(batch).join();
                }
            }
            PartitionInfo before = topic.partition(0);
            long start = System.nanoTime();
            long removed = topic.compact();
            double seconds = (System.nanoTime() - start) / 1e9;
            PartitionInfo after = topic.partition(0);
            Runtime rt = Runtime.getRuntime();
            System.out.printf(Locale.ROOT, "%,d records, %,d bytes in %d segments; compact() removed %,d records in"
                    + " %.1f s; %,d bytes left; heap in use after it %d MB (max %d MB)%n", before.endOffset(),
                    before.sizeBytes(), before.segmentCount(), removed, seconds, after.sizeBytes(),
                    (rt.totalMemory() - rt.freeMemory()) >> 20, rt.maxMemory() >> 20);
        } finally {
            BenchDirs.delete(dir);
        }
    }
}
