package dev.kafko.spring.parity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoOptionsCustomizer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The dead letters kafko's {@code DeadLetterPublishingRecoverer} writes, against spring-kafka's: the dead letter is
 * stamped when it is published (the original timestamp goes in {@code kafko_dlt-original-timestamp}), and an
 * exception without a message has no message header.
 */
class DeadLetterParityTest {

    private static final long TWO_DAYS_MILLIS = Duration.ofDays(2).toMillis();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Failing.class)
            .withBean(KafkoOptionsCustomizer.class, () -> b -> b.retentionCheckInterval(Duration.ofMillis(100)))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.dead-letter.enabled=true",
                    "kafko.listener.retry.max-attempts=1",
                    // the source topic keeps its records for ever; its dead letters are kept for a day
                    "kafko.topics[ledger.DLT].retention=1d");

    @Test
    void aDeadLetterOfAnOldRecordIsStampedWhenPublishedSoTheDeadLetterTopicsRetentionKeepsIt() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            long old = System.currentTimeMillis() - TWO_DAYS_MILLIS; // a replay of last week's ledger, say
            // before the send: the listener may fail the record and publish its dead letter before join() returns
            long beforeFailure = System.currentTimeMillis();
            template.send("ledger", 0, old, "k", "entry").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
            Thread.sleep(500); // a few retention checks of the dead-letter topic

            List<KafkoRecord> dead = KafkoTestUtils.records(context, "ledger.DLT");
            assertThat(dead).as("the dead letter is still in its topic, a day's retention after it was published")
                    .singleElement().satisfies(r -> {
                        assertThat(r.timestamp()).as("stamped when published, as spring-kafka's are")
                                .isGreaterThanOrEqualTo(beforeFailure);
                        assertThat(new String(r.headers().lastValue(KafkoHeaders.DLT_ORIGINAL_TIMESTAMP)))
                                .isEqualTo(Long.toString(old));
                    });
        });
    }

    @Test
    void anExceptionWithoutAMessageHasNoMessageHeader() {
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            template.send("silent", "k", "entry").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));

            assertThat(KafkoTestUtils.records(context, "silent.DLT")).singleElement().satisfies(r -> {
                assertThat(new String(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                        .isEqualTo(IllegalStateException.class.getName());
                assertThat(r.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))
                        .as("no message, no header (not the text \"null\")").isNull();
            });
        });
    }

    static class Failing {
        @KafkoListener(id = "ledger", topics = "ledger")
        void ledger(String entry) {
            throw new IllegalStateException("cannot post " + entry);
        }

        @KafkoListener(id = "silent", topics = "silent")
        void silent(String entry) {
            throw new IllegalStateException();
        }
    }
}
