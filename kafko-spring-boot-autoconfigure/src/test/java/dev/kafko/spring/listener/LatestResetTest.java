package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.OffsetResetPolicy;
import dev.kafko.Producer;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code kafko.offset-reset=latest}: a group without a commit starts at the end, so what the topic held
 * before the group first ran is skipped; from then on nothing is. A member commits that start when first
 * assigned (as spring-kafka does by default), so records appended while the application is down, or while
 * the listener is stopped, are read when it runs again.
 */
class LatestResetTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    @TempDir
    Path dir;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Late.class)
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.offset-reset=latest", "kafko.topics.late.partitions=2");
    }

    @Test
    void recordsAppendedWhileNoMemberRunsAreReadByTheNextRunWhatCameBeforeTheGroupIsNot() {
        SEEN.clear();
        send("before-the-group-0", "before-the-group-1"); // creates the topic, 2 partitions
        runner().run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            // the members' starts, committed when they were assigned: the ends of both partitions
            await().atMost(Duration.ofSeconds(20)).until(() -> kafko.groupInfo("late", "late").committed().size() == 2);
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // stopped: what is sent now waits for the listener
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("late").stop();
            kafko.producer("late").send(null, bytes("while-stopped")).join();
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("late").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
        });
        assertThat(SEEN).containsExactly("while-stopped");
        send("while-down-0", "while-down-1", "while-down-2");
        runner().run(context -> KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20)));
        assertThat(SEEN).containsExactlyInAnyOrder("while-stopped", "while-down-0", "while-down-1", "while-down-2");
    }

    private void send(String... values) {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().offsetReset(OffsetResetPolicy.LATEST).build())) {
            if (kafko.topic("late").isEmpty()) {
                kafko.createTopic("late", dev.kafko.TopicConfig.builder().partitions(2).build());
            }
            Producer producer = kafko.producer("late");
            for (String v : values) {
                producer.send(null, bytes(v)).join();
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static class Late {
        @KafkoListener(id = "late", topics = "late", concurrency = "2")
        void on(String value) {
            SEEN.add(value);
        }
    }
}
