package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Consumer;
import dev.kafko.ConsumerOptions;
import dev.kafko.Kafko;
import dev.kafko.OutgoingRecord;
import dev.kafko.Producer;
import dev.kafko.Topic;
import dev.kafko.TopicConfig;
import dev.kafko.internal.log.ProcMaps;
import java.lang.ref.Reference;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * B127 item 3: a handle an application keeps to a deleted topic (its {@link Topic}, a {@link Producer}, a closed
 * or open {@link Consumer}), or to a closed instance, must not keep the topic's segment mappings, and so the
 * deleted files' disk space, once a collection ran. Measured in {@code /proc/self/maps}: before the fix, 20
 * topics of 6 segment files each left 120 deleted files mapped for as long as the handles were kept.
 */
class DeletedTopicHandlesTest {

    @TempDir
    Path tmp;

    @Test
    void handlesKeptToDeletedTopicsHoldNoMappingOfTheirFiles() {
        ProcMaps.assumeReadable();
        List<Object> kept = new ArrayList<>();
        try (Kafko k = Kafko.open(tmp)) {
            int topics = 20;
            for (int t = 0; t < topics; t++) {
                String name = "gone-" + t;
                Topic topic = k.createTopic(name, TopicConfig.builder().partitions(2).segmentBytes(64 * 1024).build());
                Producer p = k.producer(name);
                fill(p);
                Consumer closed = k.consumer(name);
                readAll(closed);
                closed.close();
                Consumer open = k.groupConsumer(name, "g");
                readAll(open);
                open.commit();
                assertThat(topic.partitions().get(0).segmentCount()).isGreaterThanOrEqualTo(3);
                kept.add(topic);
                kept.add(p);
                kept.add(closed);
                kept.add(open);
            }
            assertThat(deletedMappings()).isZero();
            for (int t = 0; t < topics; t++) {
                k.deleteTopic("gone-" + t);
            }
            // before the fix: 120 files (20 topics, 2 partitions, 3 segments each) stay mapped after any collection
            assertThat(collectUntilNoDeletedMappings()).as("deleted segment files still mapped").isZero();

            // every handle still answers as before the fix: the topic's partitions as they were when it was deleted,
            // UnknownTopicException from the producer and the open consumer, KafkoClosedException from the closed one
            for (int t = 0; t < topics; t++) {
                List<String> outcomes = new ArrayList<>();
                Topic topic = (Topic) kept.get(4 * t);
                Producer p = (Producer) kept.get(4 * t + 1);
                Consumer closed = (Consumer) kept.get(4 * t + 2);
                Consumer open = (Consumer) kept.get(4 * t + 3);
                outcomes.add(outcome(() -> topic.partitions().size()));
                outcomes.add(outcome(() -> topic.partition(0)));
                outcomes.add(outcome(topic::partitionCount));
                outcomes.add(outcome(() -> p.send(null, new byte[10]).join()));
                outcomes.add(outcome(() -> p.sendTo(1, null, new byte[10])));
                outcomes.add(outcome(() -> { p.flush(); return "flushed"; }));
                outcomes.add(outcome(() -> closed.poll(Duration.ZERO)));
                outcomes.add(outcome(() -> open.poll(Duration.ZERO)));
                outcomes.add(outcome(() -> { open.seekToBeginning(); return "sought"; }));
                outcomes.add(outcome(() -> open.position(0)));
                outcomes.add(outcome(() -> { open.commit(); return "committed"; }));
                outcomes.add(outcome(() -> { open.close(); return "closed"; }));
                assertThat(outcomes).containsExactly("ok:2", "ok:PartitionInfo[topic=gone-" + t + ", partition=0,"
                                + " logStartOffset=0, endOffset=200, sizeBytes=202040, segmentCount=4, state=CLOSED,"
                                + " failure=null]", "ok:2",
                        "threw:UnknownTopicException", "threw:UnknownTopicException", "threw:UnknownTopicException",
                        "threw:KafkoClosedException", "threw:UnknownTopicException", "threw:UnknownTopicException",
                        "threw:UnknownTopicException", "threw:UnknownTopicException", "ok:closed");
            }
        }
        Reference.reachabilityFence(kept);
    }

    @Test
    void handlesKeptToAClosedInstanceHoldNoMappingOfItsFiles() {
        ProcMaps.assumeReadable();
        List<Object> kept = new ArrayList<>();
        Kafko k = Kafko.open(tmp);
        for (int t = 0; t < 5; t++) {
            String name = "kept-" + t;
            Topic topic = k.createTopic(name, TopicConfig.builder().partitions(2).segmentBytes(64 * 1024).build());
            Producer p = k.producer(name);
            fill(p);
            Consumer c = k.consumer(name);
            readAll(c);
            kept.add(topic);
            kept.add(p);
            kept.add(c);
        }
        assertThat(mappingsUnder()).isPositive();
        k.close();
        // before the fix: every segment of the closed instance stays mapped while it is referenced
        ProcMaps.collectUntil(() -> mappingsUnder() == 0);
        assertThat(mappingsUnder()).as("segment files of a closed instance still mapped").isZero();
        Reference.reachabilityFence(k);
        Reference.reachabilityFence(kept);
    }

    private static void fill(Producer p) {
        List<OutgoingRecord> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            batch.add(OutgoingRecord.of(null, new byte[1000]));
        }
        for (int i = 0; i < 4; i++) {
            p.sendBatchTo(0, batch).join();
            p.sendBatchTo(1, batch).join();
        }
    }

    private static void readAll(Consumer c) {
        int read = 0;
        while (read < 400) {
            read += c.poll(Duration.ofSeconds(1)).size();
        }
    }

    private static String outcome(Callable<?> call) {
        try {
            Object r = call.call();
            return "ok:" + r;
        } catch (CompletionException e) {
            return "future:" + e.getCause().getClass().getSimpleName();
        } catch (Exception e) {
            return "threw:" + e.getClass().getSimpleName();
        }
    }

    private int collectUntilNoDeletedMappings() {
        ProcMaps.collectUntil(() -> deletedMappings() == 0);
        return deletedMappings();
    }

    /** Mappings of deleted files under the data directory. */
    private int deletedMappings() {
        return ProcMaps.mappings(tmp, true);
    }

    /** Mappings of any file under the data directory. */
    private int mappingsUnder() {
        return ProcMaps.mappings(tmp, false);
    }
}
