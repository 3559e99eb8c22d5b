package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A multiplied back-off without {@code maxDelay} grows without bound, as spring-kafka 4.0's does (its retry topics
 * named after every back-off), and a wait too long to add to the clock is the longest there is, never one in the
 * past.
 */
class RetryBackOffWithoutBoundTest {

    static final AtomicInteger CALLS = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.grows.partitions=1",
                    "kafko.topics.forever.partitions=1");

    @Test
    void aMultipliedBackOffWithoutMaxDelayIsNotCappedAndItsTopicsAreNamedAsSpringKafkas() {
        runner.withBean(Grows.class).run(context -> {
            assertThat(context).hasNotFailed();
            // spring-kafka 4.0: 20 s, 40 s, 80 s (a cap of 30 s would read -20000 and -30000 only)
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .contains("grows-retry-20000", "grows-retry-40000", "grows-retry-80000")
                    .doesNotContain("grows-retry-30000");
        });
    }

    @Test
    void aBackOffTooLongToAddToTheClockIsDueAtTheLastMillisecondNotAtOnce() {
        CALLS.set(0);
        runner.withBean(Forever.class).run(context -> {
            assertThat(context).hasNotFailed();
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("forever", 0, "k", "fails").join();
            KafkoRecord forwarded = KafkoTestUtils.singleRecord(context, "forever-retry", Duration.ofSeconds(30));
            byte[] due = forwarded.headers().lastValue(KafkoHeaders.RETRY_BACKOFF_TIMESTAMP);
            assertThat(new String(due, StandardCharsets.UTF_8)).isEqualTo(Long.toString(Long.MAX_VALUE));
            // the retry container holds it back (a due in the past would have it delivered again at once, and
            // dead-lettered): within a second, the listener ran for the first delivery alone
            assertThatThrownBy(() -> KafkoTestUtils.records(context, "forever-dlt", 1, Duration.ofSeconds(1)))
                    .isInstanceOf(AssertionError.class);
            assertThat(CALLS).hasValue(1);
        });
    }

    static class Grows {
        @RetryableTopic(attempts = "4", backOff = @BackOff(delay = 20_000, multiplier = 2))
        @KafkoListener(id = "grows", topics = "grows")
        void on(String value) {
        }
    }

    static class Forever {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = Long.MAX_VALUE))
        @KafkoListener(id = "forever", topics = "forever")
        void on(String value) {
            CALLS.incrementAndGet();
            throw new IllegalStateException("fails");
        }
    }
}
