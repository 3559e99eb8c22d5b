package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
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

    @RegisterExtension
    final LogCapture containersLog = new LogCapture(RetryableTopicContainers.class);

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
            // the retry container holds it back: within a second, the listener ran for the first delivery alone (so it
            // did without the saturation too, what was left, the header minus the clock, wrapping back to the wait)
            assertThatThrownBy(() -> KafkoTestUtils.records(context, "forever-dlt", 1, Duration.ofSeconds(1)))
                    .isInstanceOf(AssertionError.class);
            assertThat(CALLS).hasValue(1);
        });
    }

    @Test
    void anApplicationThatRanWithTheThirtySecondCapIsWarnedOfTheRecordsLeftInItsCappedTopic(@TempDir Path dir) {
        // an earlier kafko capped @BackOff(delay = 20_000, multiplier = 2) at 30 s: its retries waited in
        // grows-retry-20000 and grows-retry-30000, which this one no longer reads
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.grows.partitions=1");
        onDisk.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("grows-retry-30000", 0, "k", "left behind").join();
        });

        onDisk.withBean(Grows.class).run(context -> assertThat(context).hasNotFailed());
        assertThat(containersLog.events()).filteredOn(e -> e.getLevel() == Level.WARN)
                .map(ILoggingEvent::getFormattedMessage).singleElement().satisfies(w -> assertThat(w)
                        .contains("reads the retry topics [grows-retry-20000, grows-retry-40000, grows-retry-80000],"
                                + " not 'grows-retry-30000' (1), which hold 1 record(s)"));
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
