package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.FsyncPolicy;
import dev.kafko.Kafko;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin calls made on an interrupted thread (a worker of an executor being shut down): {@code createTopic} under
 * {@code EVERY_BATCH}, sends that roll segments, {@code increasePartitions}, a group's commit and close,
 * {@code deleteTopic} and a create of the same name, and {@code Kafko.close()}: each works, keeps the interrupt, and
 * the directory reopens with every topic.
 */
class InterruptedAdminCallsTest {
    @TempDir
    Path tmp;

    @Test
    void adminCallsOnAnInterruptedThreadWorkAndKeepTheInterrupt() throws Exception {
        Kafko k = Kafko.open(tmp.resolve("d"));
        try {
            for (int i = 0; i < 5; i++) {
                Thread.currentThread().interrupt();
                Topic t = k.createTopic("t" + i, TopicConfig.builder().partitions(2).segmentBytes(1024)
                        .fsync(FsyncPolicy.EVERY_BATCH).build());
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
                Producer p = k.producer("t" + i);
                for (int r = 0; r < 30; r++) {
                    p.send(null, new byte[100]).join();
                }
                t.increasePartitions(4);
                Consumer c = k.groupConsumer("t" + i, "g");
                c.poll(Duration.ZERO);
                c.commit();
                c.close();
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
                k.deleteTopic("t" + i);
                k.createTopic("t" + i);
                assertThat(Thread.currentThread().isInterrupted()).isTrue();
                Thread.interrupted();
                k.producer("t" + i).send(null, new byte[10]).join();
            }
            Thread.currentThread().interrupt();
            k.close();
            assertThat(Thread.interrupted()).isTrue();
        } finally {
            Thread.interrupted();
            k.close();
        }
        try (Kafko again = Kafko.open(tmp.resolve("d"))) {
            assertThat(again.topics()).hasSize(5);
        }
    }
}
