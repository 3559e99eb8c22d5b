package dev.kafko.spring.listener;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A pause of the whole container asked for while a record waits out its retry's back-off ends the back-off: the
 * member takes the pause into effect at once, the record waits for the resume, and is delivered again after it
 * (not recovered), as with a pause of the record's partition.
 */
class ContainerPauseEndsARetryBackOffTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The values delivered, and those recovered ("recovered:value"). */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    static class Failing {
        @KafkoListener(id = "backoff", topics = "backoff")
        void on(String value) {
            SEEN.add(value);
            throw new IllegalStateException("refused " + value);
        }
    }

    @Test
    void aContainerPauseEndsTheBackOffAndTheRecordIsDeliveredAgainAfterTheResume() {
        SEEN.clear();
        // a back-off far longer than the test: without the pause the record would wait in it, then be recovered
        DefaultErrorHandler handler = new DefaultErrorHandler(new FixedBackOff(600_000, 2),
                (record, failure, invocation) -> SEEN.add("recovered:" + new String(record.value(), UTF_8)));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true")
                .withBean(Failing.class).withBean(KafkoErrorHandler.class, () -> handler).run(context -> {
                    MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("backoff");
                    await().atMost(WAIT).until(() -> !container.getAssignedPartitions().isEmpty());
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("backoff", "bad").join();
                    await().atMost(WAIT).until(() -> SEEN.contains("bad")); // failed once: its back-off began

                    container.pause();
                    await().atMost(WAIT).until(container::isPaused);
                    assertThat(SEEN).containsExactly("bad");

                    container.resume();
                    await().atMost(WAIT).until(() -> SEEN.size() == 2);
                    assertThat(SEEN).containsExactly("bad", "bad");
                });
    }
}
