package dev.kafko.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the public API: a partition of many tiny segments (the shape that took a process to the
 * kernel's {@code vm.max_map_count} and aborted the JVM) reads back whole under a budget of a few
 * windows, never maps more than the budget allows, and gives the windows back when its topic is deleted.
 */
class LowMappingBudgetTest {

    private static final int LOW = 4;
    private static final int RECORDS = 50;
    private static final int VALUE = 1100;

    @TempDir
    Path dir;

    private int baseline;

    @AfterEach
    void restoreTheLimit() {
        MappingBudget.setLimit(-1);
    }

    /** Windows counted since the test began. */
    private int used() {
        return MappingBudget.used() - baseline;
    }

    @Test
    void fiftySegmentsReadBackWholeUnderABudgetOfFourWindowsAndDeletingTheTopicReturnsThem() {
        ProcMaps.assumeReadable();
        baseline = ProcMaps.settledBudget();
        MappingBudget.setLimit(baseline + LOW);
        Path data = dir.resolve("data");
        writeAndRead(data);
        // the closed log's mappings are unmapped by the garbage collector (its sealed segments were not
        // released), and their windows go back with them
        assertThat(ProcMaps.collectUntil(() -> ProcMaps.mappedSegments(data).isEmpty())).isTrue();
        assertThat(ProcMaps.collectUntil(() -> used() == 0)).as("windows returned, %d held", used()).isTrue();

        reopenReadAndDelete(data);
        assertThat(ProcMaps.collectUntil(() -> used() == 0)).as("windows returned, %d held", used()).isTrue();
        assertThat(ProcMaps.collectUntil(() -> ProcMaps.mappedSegments(data).isEmpty())).isTrue();
    }

    /** One method per Kafko instance: a closed one is garbage once its frame is gone. */
    private void writeAndRead(Path data) {
        try (Kafko k = Kafko.open(data)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(1024).build());
            Producer p = k.producer("t");
            for (int i = 0; i < RECORDS; i++) {
                p.send(key(i), Logs.value(i, VALUE)).join();
                // a segment sealed over the limit drops its windows; the active one's is never refused, and
                // a rolled segment keeps its windows until its seal, which may be pending in the background
                assertThat(used()).as("after record %d", i).isLessThanOrEqualTo(LOW + 1 + Seals.MAX_PENDING);
            }
            // the seals pending in the background run: the rolled segments sealed over the limit drop their windows
            assertThat(ProcMaps.collectUntil(() -> used() <= LOW + 1)).as("used %d", used()).isTrue();
            readEveryRecord(k, LOW + 1);
            assertThat(ProcMaps.collectUntil(() -> ProcMaps.mappedSegments(data).size() <= LOW + 1))
                    .as("mapped: %s; used %d, baseline %d, limit %d", ProcMaps.mappedSegments(data), used(), baseline,
                            MappingBudget.limit()).isTrue();
        }
    }

    private void reopenReadAndDelete(Path data) {
        try (Kafko k = Kafko.open(data)) {
            assertThat(ProcMaps.mappedSegments(data)).as("an open maps the active segment only").hasSize(1);
            assertThat(used()).isEqualTo(1);
            readEveryRecord(k, LOW);
            readEveryRecord(k, LOW);
            assertThat(ProcMaps.mappedSegments(data)).as("mapped").hasSize(LOW);
            assertThat(used()).isEqualTo(LOW);
            k.deleteTopic("t");
        }
    }

    /** Polls the topic from its beginning: every record, in order, whole; the budget within {@code most}. */
    private void readEveryRecord(Kafko k, int most) {
        List<KafkoRecord> got = new ArrayList<>();
        try (Consumer c = k.consumer("t")) {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (got.size() < RECORDS && System.nanoTime() < deadline) {
                got.addAll(c.poll(Duration.ofMillis(100)));
                assertThat(used()).as("after %d records", got.size()).isLessThanOrEqualTo(most);
            }
        }
        assertThat(got).hasSize(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            KafkoRecord r = got.get(i);
            assertThat(r.offset()).isEqualTo(i);
            assertThat(r.key()).isEqualTo(key(i));
            assertThat(r.value()).isEqualTo(Logs.value(i, VALUE));
        }
    }

    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.UTF_8);
    }
}
