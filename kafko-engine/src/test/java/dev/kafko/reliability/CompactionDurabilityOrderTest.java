package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.TopicConfig;
import dev.kafko.internal.io.FaultyFileIo;
import dev.kafko.internal.log.CompactionPlan;
import dev.kafko.internal.log.MutableClock;
import dev.kafko.internal.log.PartitionLog;
import dev.kafko.internal.log.ReadResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compaction removes a record of a key only for a later record of that key; a power loss must never keep the
 * removal and lose the later record. The later record may sit in a rolled segment whose background seal (its fsync)
 * has not run yet: a flushed record removed for it, the rewrite and its directory fsync made durable, and then a power
 * loss, left the key with no value at all, the flushed one included.
 */
class CompactionDurabilityOrderTest {

    /** Runs nothing until told: the seals of rolled segments stay pending. */
    private static final class HeldExecutor implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.addLast(task);
        }
    }

    @Test
    void aFlushedRecordIsNeverRemovedDurablyForALaterOneNotYetDurable(@TempDir Path tmp) throws Exception {
        Path live = Files.createDirectories(tmp.resolve("live"));
        PowerLossDisk disk = new PowerLossDisk(live);
        disk.afterFsyncDirectory(live);
        HookedFileIo io = new HookedFileIo(disk, new FaultyFileIo().syncs(false));
        TopicConfig config = TopicConfig.builder().segmentBytes(1024).indexIntervalBytes(128).retention(null)
                .compact().minCompactionLag(Duration.ZERO).build();
        MutableClock clock = new MutableClock(1_700_000_000_000L);
        try (PartitionLog log = PartitionLog.open("t", 0, live, config, clock, io, new HeldExecutor())) {
            log.append(List.of(record("k", "first", 600)));
            log.flush(); // the first value of k is durable
            log.append(List.of(record("k", "second", 600))); // rolls: its segment is the one after the first's
            log.append(List.of(record("other", "third", 600))); // rolls again: the second's seal is pending
            clock.advance(Duration.ofSeconds(1));

            CompactionPlan plan = log.compaction().prepare(config, clock.millis(), true, () -> false);
            assertThat(plan.removedRecords()).as("the first value of k, removed for the second").isEqualTo(1);
            log.applyCompaction(plan, true);

            Path image = tmp.resolve("image");
            disk.crashInto(image);
            assertThat(valuesOf("k", image, config)).as("the values of k after a power loss")
                    .isNotEmpty().last().isIn("first", "second");
        }
    }

    private static List<String> valuesOf(String key, Path dir, TopicConfig config) {
        List<String> values = new ArrayList<>();
        try (PartitionLog log = PartitionLog.open("t", 0, dir, config, new MutableClock(1_800_000_000_000L),
                new FaultyFileIo().syncs(false))) {
            long next = log.logStartOffset();
            while (next < log.endOffset()) {
                ReadResult r = log.read(next, 1000, 1 << 20);
                for (KafkoRecord rec : r.records()) {
                    if (key.equals(new String(rec.key(), StandardCharsets.UTF_8))) {
                        String v = new String(rec.value(), StandardCharsets.UTF_8);
                        values.add(v.substring(0, v.indexOf('.')));
                    }
                }
                next = r.nextOffset();
            }
        }
        return values;
    }

    private static OutgoingRecord record(String key, String value, int size) {
        byte[] v = new byte[size];
        java.util.Arrays.fill(v, (byte) '.');
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(text, 0, v, 0, text.length);
        return OutgoingRecord.of(key.getBytes(StandardCharsets.UTF_8), v);
    }
}
