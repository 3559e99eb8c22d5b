package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A commit that fails for every record (a full disk) is a WARN line each time, naming the offsets and the cause,
 * with the stack trace once: an edge-buffer tryout logged 5,334 full traces within seconds.
 */
class CommitFailureLogTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(ListenerConsumer.class);

    @Test
    void aCommitFailingForEveryRecordLogsItsTraceOnceAndTheOffsetsAndCauseEachTime() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(FailingCommits.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.ack-mode=record")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    for (int i = 0; i < 5; i++) {
                        template.send("full", "r" + i).join();
                    }
                    await().atMost(Duration.ofSeconds(20)).until(() -> commitFailures().size() >= 5);
                    List<ILoggingEvent> lines = commitFailures();
                    assertThat(lines).allSatisfy(e -> assertThat(e.getFormattedMessage())
                            .contains("Listener 'filler' could not commit {0=").contains("on full (")
                            .contains("No space left on device"));
                    assertThat(lines.get(0).getThrowableProxy()).isNotNull();
                    assertThat(lines.subList(1, lines.size())).allSatisfy(e -> assertThat(e.getThrowableProxy()).isNull());
                });
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
                    throw new KafkoStorageException("write offsets failed: No space left on device");
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
