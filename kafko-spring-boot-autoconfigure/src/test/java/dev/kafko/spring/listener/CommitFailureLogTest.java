package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.KafkoStorageException;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A commit that fails for every record (a full disk) is one WARN line with the stack trace at most once a minute, DEBUG
 * lines between, and an INFO line once commits succeed again: an edge-buffer tryout logged 5,334 full traces within
 * seconds, a payments tryout 50,785 warnings in three seconds.
 */
class CommitFailureLogTest {

    static final AtomicBoolean FULL = new AtomicBoolean();
    static final AtomicInteger FAILED = new AtomicInteger();

    @RegisterExtension
    final LogCapture log = new LogCapture(ListenerConsumer.class);

    /** A context whose commits fail until {@link #FULL} is lowered, each record's under the {@code record} ack mode. */
    private static ApplicationContextRunner fullDiskRunner() {
        FULL.set(true);
        FAILED.set(0);
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(FailingCommits.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.ack-mode=record");
    }

    @Test
    void aCommitFailingForEveryRecordWarnsOnceWithItsTraceAndSaysWhenCommitsWorkAgain() {
        fullDiskRunner().run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    for (int i = 0; i < 5; i++) {
                        template.send("full", "r" + i).join();
                    }
                    await().atMost(Duration.ofSeconds(20)).until(() -> FAILED.get() >= 5);
                    List<ILoggingEvent> lines = commitFailures();
                    assertThat(lines).singleElement().satisfies(e -> {
                        assertThat(e.getLevel()).isEqualTo(Level.WARN);
                        assertThat(e.getFormattedMessage()).contains("Listener 'filler' could not commit {0=")
                                .contains("on full (").contains("No space left on device")
                                .doesNotContain("more commits failed");
                        assertThat(e.getThrowableProxy()).isNotNull();
                    });

                    FULL.set(false);
                    template.send("full", "after").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    await().atMost(Duration.ofSeconds(20)).until(() -> log.events().stream()
                            .anyMatch(e -> e.getFormattedMessage().contains("commits on full again")));
                    assertThat(log.events()).filteredOn(e -> e.getFormattedMessage().contains("commits on full again"))
                            .singleElement().satisfies(e -> {
                                assertThat(e.getLevel()).isEqualTo(Level.INFO);
                                assertThat(e.getFormattedMessage()).isEqualTo("Listener 'filler' commits on full"
                                        + " again, after " + (FAILED.get() - 1) + " more failed commits logged at"
                                        + " DEBUG");
                            });
                    assertThat(context.getBean(Kafko.class).groupInfo("full", "filler").committed())
                            .containsEntry(0, 6L);
                });
    }

    /**
     * Commits that fail again after the INFO line saying they work again are warned at once: the last line a user sees
     * at INFO must not say that commits work while they fail (a disk filling again within the minute of the last
     * warning was only logged at DEBUG).
     */
    @Test
    void aCommitFailingAgainAfterCommitsWorkedAgainIsWarnedAtOnce() {
        fullDiskRunner().run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("full", "r0").join();
                    await().atMost(Duration.ofSeconds(20)).until(() -> warnings().size() == 1);

                    FULL.set(false);
                    template.send("full", "r1").join();
                    // the line comes with the commit, which may follow the listener's return that the wait sees
                    await().atMost(Duration.ofSeconds(20)).until(() -> log.events().stream()
                            .anyMatch(e -> e.getFormattedMessage().contains("commits on full again")));
                    assertThat(log.events()).filteredOn(e -> e.getFormattedMessage().contains("commits on full again"))
                            .singleElement().satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.INFO));

                    FULL.set(true);
                    template.send("full", "r2").join();
                    await().atMost(Duration.ofSeconds(20)).until(() -> warnings().size() >= 2);
                    assertThat(FAILED).hasValue(2);
                    assertThat(warnings()).hasSize(2).last().satisfies(e -> assertThat(e.getFormattedMessage())
                            .contains("Listener 'filler' could not commit {0=3}").contains("No space left on device"));
                });
    }

    private List<ILoggingEvent> warnings() {
        return commitFailures().stream().filter(e -> e.getLevel() == Level.WARN).toList();
    }

    private List<ILoggingEvent> commitFailures() {
        return log.events().stream().filter(e -> e.getFormattedMessage().contains("could not commit")).toList();
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingCommits {
        @Bean
        Filler filler() {
            return new Filler();
        }

        /** The real backend, but for commits, which fail as a full disk makes them. */
        @Bean
        LogBackend failingCommitsBackend(Kafko kafko, KafkoTopicProvisioner topics) {
            return new DelegatingBackend(new KafkoBackend(kafko, topics), c -> new DelegatingBackend.DelegatingConsumer(c) {
                @Override
                public void commit(Map<Integer, Long> offsets) {
                    if (FULL.get()) {
                        FAILED.incrementAndGet();
                        throw new KafkoStorageException("write offsets failed: No space left on device");
                    }
                    super.commit(offsets);
                }
            });
        }
    }

    static class Filler {
        @KafkoListener(id = "filler", topics = "full")
        void on(String value) {
        }
    }
}
