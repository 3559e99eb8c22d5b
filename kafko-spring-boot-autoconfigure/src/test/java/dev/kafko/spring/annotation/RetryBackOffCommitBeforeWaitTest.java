package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A retry container's member commits what it processed of a poll before it waits for the back-off of the records it
 * holds back, not after: a long poll timeout does not leave the other partitions' records uncommitted meanwhile.
 */
class RetryBackOffCommitBeforeWaitTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.held.partitions=2",
                    "kafko.topics.held-retry.partitions=2", "kafko.listener.poll-timeout=60s")
            .withBean(Held.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class Held {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 600_000))
        @KafkoListener(id = "held", topics = "held", autoStartup = "false")
        void on(String value) {
            SEEN.add(value);
        }
    }

    /**
     * Not under {@code time} alone: there a commit is due once {@code ack-time} passed since the last one, which the
     * member looks at as each poll returns (the README's {@code kafko.listener.ack-time}), so with the partition held
     * for ten minutes the due record's commit comes within 1 ms, or at the next 60 s poll timeout, by the clock.
     */
    @ParameterizedTest
    @ValueSource(strings = {"batch", "count", "count-time"})
    void theDueRecordOfAnotherPartitionIsCommittedWhileTheMemberWaits(String ackMode) {
        runner.withPropertyValues("kafko.listener.ack-mode=" + ackMode, "kafko.listener.ack-time=1ms").run(context -> {
            // one poll reads both: the due record is processed, the later one held back ten minutes
            MessageListenerContainer retry = RetryBackOffHoldTest.laterAndDue(context, "held-retry");

            await().atMost(Duration.ofSeconds(30)).until(() -> SEEN.contains("due"));
            LogBackend backend = context.getBean(LogBackend.class);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> backend.committedOffsets("held-retry", retry.getGroupId()).getOrDefault(1, 0L) == 1L);
            assertThat(backend.committedOffsets("held-retry", retry.getGroupId()).getOrDefault(0, 0L)).isZero();
            assertThat(SEEN).containsExactly("due");
        });
    }
}
