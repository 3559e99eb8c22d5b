package dev.kafko.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.TopicExistsException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KafkoObserver#onTopicDeleted} tells that a topic's partitions and groups are gone and that "a topic created
 * later under the same name starts anew": an observer that keeps state per topic name (the starter's metrics
 * remove the topic's gauges there) must hear of the deletion before it hears of the topic created again, or it
 * drops what belongs to the new topic. A create of the name waits for the deletion; it must wait for its event too.
 */
class TopicDeletedEventOrderTest {

    @TempDir
    Path dir;

    @Test
    void aTopicCreatedAgainWhileTheDeletionIsToldIsToldAfterTheDeletion() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch recreated = new CountDownLatch(2); // the first creation, then the one again
        KafkoObserver observer = new KafkoObserver() {
            @Override
            public void onTopicCreated(String topic) {
                events.add("created " + topic);
                recreated.countDown();
            }

            @Override
            public void onTopicDeleted(String topic) {
                events.add("deleted " + topic);
                try {
                    // a slow observer (an audit write, say): a creation may come meanwhile
                    recreated.await(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                events.add("deletion told " + topic);
            }
        };
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().observer(observer).fsyncMetadata(false).build())) {
            kafko.createTopic("t");
            events.clear();
            // another thread creates the name again as soon as it may (a template creating on first use)
            Thread creator = new Thread(() -> {
                while (true) {
                    try {
                        kafko.createTopic("t");
                        return;
                    } catch (TopicExistsException e) {
                        try {
                            Thread.sleep(1);
                        } catch (InterruptedException ie) {
                            return;
                        }
                    }
                }
            }, "creator");
            creator.start();
            kafko.deleteTopic("t");
            creator.join(10_000);
            assertThat(kafko.topics()).contains("t");
            assertThat(events).containsExactly("deleted t", "deletion told t", "created t");
        }
    }
}
