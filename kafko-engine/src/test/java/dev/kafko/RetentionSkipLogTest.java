package dev.kafko;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader whose position retention passed says what it lost, as Kafka's consumer logs its out-of-range
 * resets: an application that fell behind learnt nothing of the records deleted before it read them.
 */
class RetentionSkipLogTest {

    @TempDir
    Path dir;

    @Test
    void aGroupWhosePositionRetentionPassedIsWarnedNamingTheOffsetsDeletedUnread() throws Exception {
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().segmentBytes(1024).retentionBytes(2048).build());
            Producer p = k.producer("t");
            for (int i = 0; i < 10; i++) {
                p.send(null, new byte[100]).join();
            }
            try (Consumer c = k.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withMaxPollRecords(5))) {
                assertThat(c.poll(Duration.ofSeconds(5))).hasSize(5);
                c.commit();
            }
            for (int i = 0; i < 200; i++) {
                p.send(null, new byte[100]).join();
            }
        }
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Logger jul = Logger.getLogger("dev.kafko.internal.broker.PartitionPositions");
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Level level = jul.getLevel();
        jul.setLevel(Level.ALL); // other suites quiet the engine's loggers for the whole JVM
        jul.addHandler(h);
        long start;
        try (Kafko k = Kafko.open(dir)) {
            // retention runs at open, in the background, a few segments a run
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (k.topic("t").orElseThrow().partition(0).sizeBytes() >= 2048 + 1024 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            start = k.topic("t").orElseThrow().partition(0).logStartOffset();
            assertThat(start).isGreaterThan(5);
            try (Consumer c = k.groupConsumer("t", "g")) {
                assertThat(c.poll(Duration.ofSeconds(5))).first().extracting(KafkoRecord::offset).isEqualTo(start);
            }
            try (Consumer anonymous = k.consumer("t")) {
                assertThat(anonymous.poll(Duration.ofSeconds(5))).isNotEmpty();
            }
        } finally {
            jul.removeHandler(h);
            jul.setLevel(level);
        }
        assertThat(logged).filteredOn(r -> r.getLevel() == Level.WARNING).singleElement()
                .extracting(LogRecord::getMessage).asString()
                .contains("topic 't' partition 0", "position 5 of group 'g'", "below the log start " + start,
                        "offsets 5 to " + (start - 1), "reset to " + start, "EARLIEST");
        // an anonymous consumer starting at offset 0 lost nothing it had read: said at INFO
        assertThat(logged).filteredOn(r -> r.getLevel() == Level.INFO).singleElement()
                .extracting(LogRecord::getMessage).asString().contains("position 0 of an anonymous consumer");
    }
}
