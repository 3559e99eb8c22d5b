package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The README's claim ("Received headers and payload conversion") that a key object is written as JSON and that its
 * partition follows those bytes: the same partition as the JSON text sent as the key's bytes, and another one for
 * the same id once the key class gains a field.
 */
class ReadmeClaimsKeysTest {

    record CustomerKey(String id) {
    }

    record RegionalCustomerKey(String id, String region) {
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.keyed.partitions=8");

    @Test
    void aKeyObjectIsWrittenAsJsonAndItsPartitionFollowsThoseBytes() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            Set<Integer> moved = new HashSet<>();
            for (int i = 0; i < 24; i++) {
                String id = "customer-" + i;
                byte[] json = ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8);
                int asObject = template.send("keyed", new CustomerKey(id), "v").join().partition();
                int asBytes = template.send("keyed", json, "v").join().partition();
                assertThat(asObject).as(id).isEqualTo(asBytes);
                int grown = template.send("keyed", new RegionalCustomerKey(id, "eu"), "v").join().partition();
                if (grown != asObject) {
                    moved.add(i);
                }
            }
            // a class that gains a field writes other bytes: most of its keys land elsewhere (7 in 8 by chance)
            assertThat(moved).isNotEmpty();
            KafkoRecord first = KafkoTestUtils.records(context, "keyed", 72, Duration.ofSeconds(10)).stream()
                    .filter(r -> r.key() != null && new String(r.key(), StandardCharsets.UTF_8).contains("customer-0\""))
                    .findFirst().orElseThrow();
            assertThat(new String(first.key(), StandardCharsets.UTF_8)).isEqualTo("{\"id\":\"customer-0\"}");
        });
    }
}
