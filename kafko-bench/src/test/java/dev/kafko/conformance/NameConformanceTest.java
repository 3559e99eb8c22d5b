package dev.kafko.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.kafko.InvalidNameException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Names: which topic names each side creates (fixed edge cases and random ones from an alphabet of
 * legal and illegal characters, up to Kafka's 249-character limit and past it), and which group ids
 * each side commits under.
 */
class NameConformanceTest extends AgainstKafka {

    @Test
    void topicNamesAreRefusedExactlyAsKafkaRefusesThem() {
        List<String> names = new ArrayList<>(List.of("", ".", "..", "...", "a", "A", "a".repeat(249), "b".repeat(250),
                "a b", "a/b", "a\\b", "ü", "a\u0000", "a\n", "-", "_", "--", "._", "-leading", "trailing.", ".hidden",
                "lock", "a:b", "a+b", "a@b", "a,b", "CON", "nul", "a*", "ÿ", "a\u200b", "...x", "a..b",
                // names that collide once '.' and '_' count as one character, and Kafka's internal topics
                "a.b", "a_b", "x_y", "x.y", "A.B", "a.B", "mixed.name_x", "mixed_name.x",
                "__transaction_state", "__x"));
        // not __consumer_offsets: Kafka creates it at the first group operation, which another class may have made
        Random random = new Random(5);
        String alphabet = "abcXYZ019._-:/ ü";
        for (int i = 0; i < 60; i++) {
            StringBuilder name = new StringBuilder();
            int length = random.nextInt(8) + (random.nextInt(10) == 0 ? 245 : 0);
            for (int j = 0; j < length; j++) {
                name.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            names.add(name.toString());
        }
        List<String> differences = new ArrayList<>();
        for (String name : names) {
            Throwable kafkoRefusal = catchThrowable(() -> kafko.createTopic(name));
            Throwable kafkaRefusal = catchThrowable(() -> admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get());
            if ((kafkoRefusal == null) != (kafkaRefusal == null)) {
                differences.add("'" + name.replace("\n", "\\n").replace("\u0000", "\\0") + "' (" + name.length()
                        + " chars): kafko " + (kafkoRefusal == null ? "created it" : kafkoRefusal.getMessage())
                        + ", Kafka " + (kafkaRefusal == null ? "created it" : String.valueOf(kafkaRefusal.getCause())));
            }
        }
        assertThat(differences).isEmpty();
        // README, "On disk": ".lock  the instance's exclusive lock (so no topic can be named .lock)"
        assertThat(catchThrowable(() -> kafko.createTopic(".lock"))).isInstanceOf(InvalidNameException.class);
        await(admin.createTopics(List.of(new NewTopic(".lock", 1, (short) 1))).all());
    }

    @Test
    void groupIdsOutsideTheTopicNameRuleAreRefusedByKafkoWhereKafkaTakesThem() {
        createBoth("group-names", 1);
        TopicPartition tp = new TopicPartition("group-names", 0);
        List<String> kafkoTakes = List.of("ok-group", "a".repeat(249), ".lock", "Z_9.x");
        // README, "Names": "Kafka has no such rule for group ids (its broker takes order service, app:orders,
        // ü, . or 1,000 characters)"
        List<String> kafkoRefuses = List.of("order service", "app:orders", "team/app", "ü-gruppe", ".", "..",
                "b".repeat(250), "c".repeat(1000), "a*b", "a\tb", "日本");
        for (String group : concat(kafkoTakes, kafkoRefuses)) {
            try (KafkaConsumer<byte[], byte[]> kc = kafkaConsumer(group, Map.of())) {
                kc.assign(List.of(tp));
                kc.commitSync(Map.of(tp, new OffsetAndMetadata(0)));
                assertThat(kc.committed(Set.of(tp)).get(tp).offset()).as(group).isZero();
            }
            Throwable kafkoRefusal = catchThrowable(() -> {
                try (dev.kafko.Consumer consumer = kafko.groupConsumer("group-names", group)) {
                    consumer.commit(Map.of(0, 0L));
                }
            });
            if (kafkoTakes.contains(group)) {
                assertThat(kafkoRefusal).as(group).isNull();
            } else {
                assertThat(kafkoRefusal).as(group).isInstanceOf(InvalidNameException.class);
            }
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
