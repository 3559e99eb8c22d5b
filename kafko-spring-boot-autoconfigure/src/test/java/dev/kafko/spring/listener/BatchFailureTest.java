package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A batch listener that names its failed record: only that record is retried and dead-lettered. */
class BatchFailureTest {

    static final List<List<String>> BATCHES = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Batcher.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.dead-letter.enabled=true",
                    "kafko.listener.retry.max-attempts=2");

    @BeforeEach
    void reset() {
        BATCHES.clear();
    }

    @Test
    void theRecordsBeforeTheFailedOneAreDoneItAloneIsRetriedAndDeadLetteredAndTheRestDeliveredAgain() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (String v : List.of("v0", "v1", "bad", "v3", "v4")) {
                template.send("batches", v).join();
            }
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("batcher").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(BATCHES).containsExactly(
                    List.of("v0", "v1", "bad", "v3", "v4"), // the first delivery fails at index 2
                    List.of("bad"),                         // the one retry (2 attempts in all)
                    List.of("v3", "v4"));                   // the rest, delivered again
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "batches.DLT");
            assertThat(dead).singleElement().satisfies(r -> {
                assertThat(new String(r.value())).isEqualTo("bad");
                assertThat(new String(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                        .isEqualTo(IllegalStateException.class.getName());
            });
            assertThat(context.getBean(Kafko.class).groupInfo("batches", "batcher").committed())
                    .containsEntry(0, 5L);
        });
    }

    @Test
    void aNegativeIndexIsRefused() {
        assertThatThrownBy(() -> new BatchListenerFailedException("x", -1)).isInstanceOf(IllegalArgumentException.class);
    }

    static class Batcher {
        @KafkoListener(id = "batcher", topics = "batches", batch = "true", autoStartup = "false")
        void on(List<String> values) {
            BATCHES.add(List.copyOf(values));
            int bad = values.indexOf("bad");
            if (bad >= 0) {
                throw new BatchListenerFailedException("cannot take it", new IllegalStateException("bad record"), bad);
            }
        }
    }
}
