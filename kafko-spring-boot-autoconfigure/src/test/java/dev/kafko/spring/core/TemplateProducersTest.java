package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Headers;
import dev.kafko.RecordPosition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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

    /**
     * A producer is made outside the cache's lock: making one can wait for a delete of its topic to finish (the
     * backend creates the topic again), and the deleting thread fails the sends it finds in flight, whose
     * completion forgets the topic's producer. Made inside {@code computeIfAbsent}, the forget waited for the
     * producer and the producer for the delete, for ever: {@code Kafko.deleteTopic} and every send to the topic hung.
     */
    @Test
    void aForgetDoesNotWaitForAProducerBeingMade() throws Exception {
        CountDownLatch making = new CountDownLatch(1);
        CountDownLatch deleted = new CountDownLatch(1);
        ListingBackend waiting = new ListingBackend() {
            @Override
            public BackendProducer producer(String topic) {
                making.countDown();
                try {
                    deleted.await(10, TimeUnit.SECONDS); // as the backend waits for the delete to finish
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.producer(topic);
            }
        };
        TemplateProducers cache = new TemplateProducers(waiting);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<BackendProducer> sender = threads.submit(() -> cache.get("t"));
            assertThat(making.await(10, TimeUnit.SECONDS)).isTrue();

            // the deleting thread, failing a send in flight, before its delete finishes
            Future<?> forget = threads.submit(() -> cache.forget("t", null));
            boolean forgotten;
            try {
                forget.get(5, TimeUnit.SECONDS);
                forgotten = true;
            } catch (TimeoutException e) {
                forgotten = false;
            }
            deleted.countDown();
            assertThat(forgotten).as("the forget returned while the producer was being made").isTrue();
            assertThat(sender.get(10, TimeUnit.SECONDS).topic()).isEqualTo("t");
        } finally {
            deleted.countDown();
            threads.shutdownNow();
        }
    }

    /**
     * Threads racing for a topic's first producer each make one, outside the cache's lock (the backend here lets none
     * return before all have begun making theirs): the first one cached is the one every thread sends through, and
     * the cache holds one per topic (a producer holds nothing to close, so the others are dropped).
     */
    @Test
    void threadsRacingForATopicsFirstProducerAllGetTheOneCached() throws Exception {
        int threads = 8;
        AtomicReference<CountDownLatch> allMaking = new AtomicReference<>();
        ListingBackend racing = new ListingBackend() {
            @Override
            public BackendProducer producer(String topic) {
                CountDownLatch making = allMaking.get();
                making.countDown();
                try {
                    assertThat(making.await(10, TimeUnit.SECONDS)).as("all threads making a producer").isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.producer(topic);
            }
        };
        TemplateProducers cache = new TemplateProducers(racing);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 50; round++) {
                String topic = "raced" + round;
                racing.topics.add(topic);
                allMaking.set(new CountDownLatch(threads));
                List<Future<BackendProducer>> got = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    got.add(pool.submit(() -> cache.get(topic)));
                }
                Set<BackendProducer> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
                for (Future<BackendProducer> g : got) {
                    distinct.add(g.get(20, TimeUnit.SECONDS));
                }
                assertThat(distinct).as("round %d", round).hasSize(1);
                BackendProducer cached = distinct.iterator().next();
                assertThat(cached.topic()).isEqualTo(topic);
                assertThat(cache.get(topic)).isSameAs(cached);
                assertThat(cache.size()).isEqualTo(round + 1);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private void makeProducers(int from, int to) {
        for (int i = from; i < to; i++) {
            backend.topics.add("t" + i);
            assertThat(producers.get("t" + i).topic()).isEqualTo("t" + i);
        }
    }

    /** A backend whose topics a test adds and removes, counting the times it is asked for their names. */
    private static class ListingBackend extends SendOnlyBackend {
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
