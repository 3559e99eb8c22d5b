package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.RecordPosition;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * When {@link TemplateProducers} looks through its cache for the producers of deleted topics: once it holds
 * {@value TemplateProducers#FORGET_DELETED_FROM} producers, then each time it has doubled since, so that a template
 * with many topics lists the backend's topics once per doubling, not at every new topic. (Found by mutation testing:
 * each assertion fails with the change it names.)
 */
class TemplateProducersTest {

    private final ListingBackend backend = new ListingBackend();
    private final TemplateProducers producers = new TemplateProducers(backend);

    @Test
    void theCacheIsLookedThroughFromThirtyTwoProducersOnAndAgainEachTimeItHasDoubled() {
        makeProducers(0, TemplateProducers.FORGET_DELETED_FROM);
        // looked through before the cache reaches 32 (">" for ">="), or at every new producer below it (negated)
        assertThat(backend.listings).isZero();
        assertThat(producers.size()).isEqualTo(32);

        makeProducers(32, 33);
        assertThat(backend.listings).as("the 33rd finds 32 cached").isEqualTo(1);

        makeProducers(33, 64);
        // half the size instead of twice: looked through at every new producer from then on
        assertThat(backend.listings).as("not again before the cache has doubled").isEqualTo(1);
        makeProducers(64, 65);
        assertThat(backend.listings).isEqualTo(2);
        assertThat(producers.size()).isEqualTo(65);
    }

    @Test
    void aLookThroughDropsTheProducersOfDeletedTopicsOnlyAndCountsFromWhatIsLeft() {
        makeProducers(0, 32);
        for (int i = 0; i < 30; i++) {
            backend.topics.remove("t" + i);
        }
        makeProducers(32, 33);
        assertThat(producers.size()).as("2 live, and the new one").isEqualTo(3);
        assertThat(backend.producersMade).isEqualTo(33);
        producers.get("t30");
        assertThat(backend.producersMade).as("a live topic's producer is kept").isEqualTo(33);

        makeProducers(33, 62);
        // 32 cached again: the next looks through again (twice 3 is under the floor of 32)
        makeProducers(62, 63);
        assertThat(backend.listings).isEqualTo(2);
    }

    private void makeProducers(int from, int to) {
        for (int i = from; i < to; i++) {
            backend.topics.add("t" + i);
            assertThat(producers.get("t" + i).topic()).isEqualTo("t" + i);
        }
    }

    /** A backend whose topics a test adds and removes, counting the times it is asked for their names. */
    private static final class ListingBackend extends SendOnlyBackend {
        final Set<String> topics = ConcurrentHashMap.newKeySet();
        volatile int listings;
        volatile int producersMade;

        @Override
        public Set<String> topicNames() {
            listings++;
            return Set.copyOf(topics);
        }

        @Override
        public BackendProducer producer(String topic) {
            producersMade++;
            return new BackendProducer() {
                @Override
                public String topic() {
                    return topic;
                }

                @Override
                public CompletableFuture<RecordPosition> send(@Nullable Integer partition, byte @Nullable [] key,
                                                              byte @Nullable [] value, Headers headers,
                                                              long timestamp) {
                    return CompletableFuture.completedFuture(new RecordPosition(0, 0));
                }

                @Override
                public void flush() {
                }
            };
        }
    }
}
