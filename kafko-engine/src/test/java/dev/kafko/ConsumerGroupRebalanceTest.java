package dev.kafko;

import static dev.kafko.Fixtures.bytes;
import static dev.kafko.Fixtures.text;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Members join and leave a group while a producer writes; every record must arrive exactly once, in key order. */
class ConsumerGroupRebalanceTest {

    @TempDir
    Path dir;

    record Delivery(long seq, String member, int partition, long offset, String key, int keySeq) { }

    private final AtomicLong order = new AtomicLong();
    private final ConcurrentLinkedQueue<Delivery> deliveries = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    /** The members that were delivered a record. */
    private final Set<String> delivering = ConcurrentHashMap.newKeySet();

    /** A member polling on its own thread, committing after each poll and in its revoke callback. */
    final class Member implements Runnable {
        final String name;
        final Kafko kafko;
        final AtomicBoolean stop = new AtomicBoolean();
        final Thread thread;
        Consumer consumer;

        Member(String name, Kafko kafko) {
            this.name = name;
            this.kafko = kafko;
            this.thread = new Thread(this, "member-" + name);
        }

        @Override
        public void run() {
            try {
                ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<Integer> partitions) {
                        consumer.commit();
                    }
                };
                consumer = kafko.groupConsumer("t", "g", ConsumerOptions.DEFAULTS.withRebalanceListener(listener)
                        .withMaxPollRecords(50));
                while (!stop.get()) {
                    for (KafkoRecord r : consumer.poll(Duration.ofMillis(20))) {
                        String[] kv = text(r.value()).split(":");
                        deliveries.add(new Delivery(order.getAndIncrement(), name, r.partition(), r.offset(), kv[0],
                                Integer.parseInt(kv[1])));
                        delivering.add(name);
                    }
                    consumer.commit();
                }
                consumer.close();
            } catch (Throwable t) {
                errors.add(t);
            }
        }

        void stopAndJoin() throws InterruptedException {
            stop.set(true);
            thread.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(thread.isAlive()).as("member %s stopped", name).isFalse();
        }
    }

    @Test
    void rebalancingOneToThreeToOneUnderProduceDeliversEveryRecordOnceInKeyOrder() throws Exception {
        long seed = 7;
        System.out.println("ConsumerGroupRebalanceTest seed " + seed);
        java.util.Random rnd = new java.util.Random(seed);
        int total = 12_000;
        try (Kafko k = Kafko.open(dir)) {
            k.createTopic("t", TopicConfig.builder().partitions(6).build());
            Producer p = k.producer("t");
            Map<String, Integer> perKey = new HashMap<>();
            Member a = new Member("a", k);
            a.thread.start();
            List<Member> extra = List.of(new Member("b", k), new Member("c", k));
            int sent = 0;
            long joinDeadline = 0;
            // the extra members join at a quarter and leave once past half, and not before each of them was
            // delivered something (on a slow machine they take longer to join than the producer to get there)
            while (sent < total || !extra.get(0).stop.get()) {
                if (sent == total / 4) {
                    extra.forEach(m -> m.thread.start());
                    joinDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                }
                if (sent >= total / 2 && !extra.get(0).stop.get()) {
                    if (delivering.containsAll(List.of("b", "c"))) {
                        for (Member m : extra) {
                            m.stopAndJoin();
                        }
                    } else {
                        Thread.sleep(1);
                    }
                }
                assertThat(sent < total / 2 || extra.get(0).stop.get() || System.nanoTime() < joinDeadline)
                        .as("members b and c each delivered a record within 30 s of joining").isTrue();
                String key = "k" + rnd.nextInt(50);
                int n = perKey.merge(key, 1, Integer::sum) - 1;
                p.send(bytes(key), bytes(key + ":" + n));
                sent++;
                if (sent % 500 == 0) {
                    Thread.sleep(5); // let the members interleave with the producer
                }
            }
            p.send(bytes("k0"), bytes("k0:" + (perKey.merge("k0", 1, Integer::sum) - 1))).join();
            int expected = sent + 1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (deliveries.size() < expected && System.nanoTime() < deadline && errors.isEmpty()) {
                Thread.sleep(10);
            }
            a.stopAndJoin();
            assertThat(errors).isEmpty();

            Map<String, Delivery> seen = new HashMap<>();
            Map<String, Integer> nextPerKey = new HashMap<>();
            Set<String> members = new HashSet<>();
            List<Delivery> sorted = new ArrayList<>(deliveries);
            sorted.sort((x, y) -> Long.compare(x.seq(), y.seq()));
            for (Delivery d : sorted) {
                Delivery before = seen.put(d.partition() + "@" + d.offset(), d);
                assertThat(before).as("delivered twice: %s after %s", d, before).isNull();
                int want = nextPerKey.merge(d.key(), 1, Integer::sum) - 1;
                assertThat(d.keySeq()).as("key order of %s", d).isEqualTo(want);
                members.add(d.member());
            }
            assertThat(sorted).hasSize(expected);
            assertThat(members).contains("a", "b", "c");
            GroupInfo info = k.groupInfo("t", "g");
            assertThat(info.lag().values()).allMatch(l -> l == 0);
            assertThat(info.members()).isZero();
        }
    }
}
