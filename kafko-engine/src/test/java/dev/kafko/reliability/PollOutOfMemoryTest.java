package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Compression;
import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A poll that reads a partition's records and then runs out of heap reading another (a large record that a small
 * heap cannot decompress) threw the {@link OutOfMemoryError} with the first partition's position moved past records
 * it never returned: the next polls went on after them, and the group's next commit passed them, so they were
 * never processed. The poll now puts the positions it moved back. The heap runs out for real, deterministically: a
 * 48 MiB record of zeros (compressed to a few KiB) read in a child JVM of 32 MiB.
 */
class PollOutOfMemoryTest {

    /** The child: {@code <data dir>}; polls five times and commits, prints what partition 0 gave and committed. */
    public static void main(String[] args) throws Exception {
        int seen = 0;
        int outOfMemory = 0;
        try (Kafko kafko = Kafko.open(Path.of(args[0])); Consumer consumer = kafko.groupConsumer("t", "g")) {
            for (int i = 0; i < 5; i++) {
                try {
                    for (KafkoRecord r : consumer.poll(Duration.ofMillis(200))) {
                        if (r.partition() == 0) {
                            seen++;
                        }
                    }
                } catch (OutOfMemoryError e) {
                    outOfMemory++;
                }
                consumer.commit();
            }
            System.out.println("outOfMemory=" + outOfMemory);
            System.out.println("seen=" + seen);
            System.out.println("committed=" + consumer.committed(0).orElse(0));
        }
    }

    @Test
    void aPollThatRunsOutOfHeapSkipsNoRecordOfThePartitionsItReadBefore(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("data");
        try (Kafko kafko = Kafko.open(dir)) {
            kafko.createTopic("t", TopicConfig.builder().partitions(2).compression(Compression.ZSTD)
                    .maxRecordBytes(TopicConfig.MAX_RECORD_BYTES_LIMIT).build());
            Producer producer = kafko.producer("t");
            for (int i = 0; i < 3; i++) {
                producer.sendTo(0, null, ("small-" + i).getBytes()).join();
            }
            producer.sendTo(1, null, new byte[48 << 20]).join();
        }
        String log = ChildJvm.run(tmp.resolve("child.out"), List.of("-Xmx32m"), PollOutOfMemoryTest.class,
                dir.toString());
        assertThat(value(log, "outOfMemory")).as(log).isPositive();
        // every record of partition 0 the group committed past was returned by a poll
        assertThat(value(log, "committed")).as(log).isLessThanOrEqualTo(value(log, "seen"));
    }

    private static long value(String log, String name) {
        return Long.parseLong(log.replaceAll("(?s).*" + name + "=(\\d+).*", "$1"));
    }
}
