package dev.kafko.conformance;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.TopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.kafka.test.EmbeddedKafkaBroker;

/**
 * What every conformance test class shares: an {@link Admin} of the embedded Kafka broker, a kafko
 * instance in a temporary directory of its own, and helpers that create a topic in both, make Kafka
 * clients, and turn records of either side into one comparable {@link Seen}.
 *
 * <p>The broker is one for the whole run (started by spring-kafka-test's
 * {@code GlobalEmbeddedKafkaTestExecutionListener}, see {@code junit-platform.properties}), so topic and
 * group names must differ across all test classes. Every wait is a bounded poll.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AgainstKafka {

    /** The longest a test polls for records it expects. */
    static final Duration PATIENCE = Duration.ofSeconds(20);

    Admin admin;

    Kafko kafko;

    @BeforeAll
    void openBoth(@TempDir Path dir) {
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brokers()));
        kafko = Kafko.open(dir);
    }

    @AfterAll
    void closeBoth() {
        kafko.close();
        admin.close();
    }

    static String brokers() {
        String brokers = System.getProperty(EmbeddedKafkaBroker.SPRING_EMBEDDED_KAFKA_BROKERS);
        if (brokers == null) {
            throw new IllegalStateException("no embedded Kafka broker: run with -Pkafka-conformance, whose"
                    + " junit-platform.properties starts one");
        }
        return brokers;
    }

    /** Creates the topic in kafko with {@code config} and in Kafka with as many partitions. */
    void createBoth(String topic, TopicConfig config) {
        kafko.createTopic(topic, config);
        await(admin.createTopics(List.of(new NewTopic(topic, config.partitions(), (short) 1))).all());
    }

    void createBoth(String topic, int partitions) {
        createBoth(topic, TopicConfig.builder().partitions(partitions).build());
    }

    /** A producer that sends at once ({@code linger.ms=0}) and in order, with {@code extra} settings on top. */
    static KafkaProducer<byte[], byte[]> kafkaProducer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // one request in flight keeps each partition's order through retries; the idempotent producer's own
        // ordering got stuck here on OUT_OF_ORDER_SEQUENCE_NUMBER after a new partition's first NOT_LEADER_OR_FOLLOWER
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        // a send Kafka cannot complete fails in 20 s, not the default 2 min
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        config.putAll(extra);
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** A consumer without auto-commit, of {@code group} if not null, with {@code extra} settings on top. */
    static KafkaConsumer<byte[], byte[]> kafkaConsumer(@Nullable String group, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers());
        if (group != null) {
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.putAll(extra);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static List<TopicPartition> partitions(String topic, int count) {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            out.add(new TopicPartition(topic, p));
        }
        return out;
    }

    /**
     * One record as the two sides are compared: key, value and header values in hex ({@code <null>} for a
     * missing one), and the timestamp only where the sender gave one (else kafko's append time and Kafka's
     * producer time differ by design).
     */
    record Seen(int partition, long offset, String key, String value, List<String> headers, @Nullable Long timestamp) {
    }

    static String hex(byte @Nullable [] bytes) {
        return bytes == null ? "<null>" : "[" + HexFormat.of().formatHex(bytes) + "]";
    }

    static Seen seen(KafkoRecord r, boolean withTimestamp) {
        List<String> headers = new ArrayList<>();
        for (dev.kafko.Header h : r.headers()) {
            headers.add(h.key() + "=" + hex(h.value()));
        }
        return new Seen(r.partition(), r.offset(), hex(r.key()), hex(r.value()), headers,
                withTimestamp ? r.timestamp() : null);
    }

    static Seen seen(ConsumerRecord<byte[], byte[]> r, boolean withTimestamp) {
        List<String> headers = new ArrayList<>();
        for (Header h : r.headers()) {
            headers.add(h.key() + "=" + hex(h.value()));
        }
        return new Seen(r.partition(), r.offset(), hex(r.key()), hex(r.value()), headers,
                withTimestamp ? r.timestamp() : null);
    }

    /** {@code partition@offset}, the key of a position in sets and messages. */
    static String at(int partition, long offset) {
        return partition + "@" + offset;
    }

    /** Every record of the topic in Kafka, read from the log start by an assigned consumer. */
    static List<ConsumerRecord<byte[], byte[]>> readAllFromKafka(String topic, int partitions, int expected) {
        try (KafkaConsumer<byte[], byte[]> c = kafkaConsumer(null, Map.of())) {
            List<TopicPartition> all = partitions(topic, partitions);
            c.assign(all);
            c.seekToBeginning(all);
            return pollKafka(c, expected);
        }
    }

    /** Every record of the topic in kafko, read by an anonymous consumer (from offset 0). */
    List<KafkoRecord> readAllFromKafko(String topic, int expected) {
        try (dev.kafko.Consumer c = kafko.consumer(topic)) {
            return pollKafko(c, expected);
        }
    }

    /** Polls until {@code expected} records came or {@link #PATIENCE} passed. */
    static List<ConsumerRecord<byte[], byte[]>> pollKafka(KafkaConsumer<byte[], byte[]> c, int expected) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (out.size() < expected && System.nanoTime() < deadline) {
            c.poll(Duration.ofMillis(100)).forEach(out::add);
        }
        return out;
    }

    /** Polls until {@code expected} records came or {@link #PATIENCE} passed. */
    static List<KafkoRecord> pollKafko(dev.kafko.Consumer c, int expected) {
        List<KafkoRecord> out = new ArrayList<>();
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (out.size() < expected && System.nanoTime() < deadline) {
            out.addAll(c.poll(Duration.ofMillis(100)));
        }
        return out;
    }

    /** Sorted by partition, then offset: the order two sides agree on when they read several partitions. */
    static List<Seen> sorted(List<Seen> records) {
        List<Seen> out = new ArrayList<>(records);
        out.sort(Comparator.comparingInt(Seen::partition).thenComparingLong(Seen::offset));
        return out;
    }

    /** A pause between two attempts of a bounded poll. */
    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw new AssertionError("Kafka refused: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static final String[] WORDS = {"a", "user-42", "ü", "€uro", "日本語", "𝄞music", "\u0000nul", "key with space"};

    /** A key: empty, a word with a number, or random bytes. */
    static byte[] randomKey(Random random) {
        int kind = random.nextInt(10);
        if (kind == 0) {
            return new byte[0];
        }
        if (kind < 5) {
            return (WORDS[random.nextInt(WORDS.length)] + random.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
        }
        byte[] key = new byte[1 + random.nextInt(40)];
        random.nextBytes(key);
        return key;
    }
}
