package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Kafko;
import dev.kafko.KafkoClosedException;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.TopicConfig;
import dev.kafko.UnknownTopicException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deleteTopic under a consumer that is busy reading: a poll that reads a partition while the delete closes
 * its log must report the topic's deletion ({@link UnknownTopicException}), never kafko's close
 * ({@link KafkoClosedException}), which the starter takes for the end of the instance: a listener's thread
 * would die instead of rejoining the topic once it exists again.
 */
class DeleteTopicUnderPollTest {

    @TempDir
    Path tmp;

    @Test
    void aPollRacingDeleteTopicThrowsUnknownTopicNeverKafkoClosed() throws Exception {
        int rounds = 60;
        int closed = 0;
        int unknown = 0;
        int other = 0;
        String example = null;
        try (Kafko k = Kafko.open(tmp)) {
            byte[] value = new byte[100];
            for (int r = 0; r < rounds; r++) {
                String name = "t" + r;
                k.createTopic(name, TopicConfig.builder().partitions(2).build());
                Producer p = k.producer(name);
                List<OutgoingRecord> batch = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    batch.add(OutgoingRecord.of(null, value));
                }
                for (int i = 0; i < 20; i++) {
                    p.sendBatchTo(0, batch).join();
                    p.sendBatchTo(1, batch).join();
                }
                CountDownLatch reading = new CountDownLatch(1);
                AtomicReference<Throwable> ended = new AtomicReference<>();
                Thread reader = new Thread(() -> {
                    try (Consumer c = k.consumer(name, ConsumerOptions.DEFAULTS.withMaxPollRecords(100_000))) {
                        for (;;) {
                            c.poll(Duration.ofMillis(100));
                            reading.countDown();
                            c.seekToBeginning(); // keep it busy reading
                        }
                    } catch (Throwable t) {
                        ended.set(t);
                    }
                }, "delete-race-reader");
                reader.start();
                reading.await();
                Thread.sleep(5);
                k.deleteTopic(name);
                reader.join(10_000);
                Throwable t = ended.get();
                if (t instanceof UnknownTopicException) {
                    unknown++;
                } else if (t instanceof KafkoClosedException) {
                    closed++;
                    if (example == null) {
                        StringBuilder b = new StringBuilder(t.toString());
                        for (StackTraceElement e : t.getStackTrace()) {
                            b.append("\n    at ").append(e);
                            if (b.length() > 1500) {
                                break;
                            }
                        }
                        example = b.toString();
                    }
                } else {
                    other++;
                }
            }
        }
        assertThat(closed).as("polls racing deleteTopic that failed with KafkoClosedException: %s", example).isZero();
        assertThat(unknown).as("readers that ended with UnknownTopicException (%d others)", other).isEqualTo(rounds);
    }
}
