package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.ConsumerRebalanceListener;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.KafkoStorageException;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.BackendConsumer;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
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

        @Bean
        LogBackend failingCommitsBackend(Kafko kafko, KafkoTopicProvisioner topics) {
            return new FailingCommitsBackend(new KafkoBackend(kafko, topics));
        }
    }

    static class Filler {
        @KafkoListener(id = "filler", topics = "full")
        void on(String value) {
        }
    }

    /** The real backend, but for commits, which fail as a full disk makes them. */
    private record FailingCommitsBackend(LogBackend real) implements LogBackend {

        @Override
        public BackendProducer producer(String topic) {
            return real.producer(topic);
        }

        @Override
        public BackendConsumer groupConsumer(String topic, String group, int maxPollRecords,
                                             ConsumerRebalanceListener rebalanceListener) {
            BackendConsumer c = real.groupConsumer(topic, group, maxPollRecords, rebalanceListener);
            return new BackendConsumer() {
                @Override
                public List<KafkoRecord> poll(Duration timeout) {
                    return c.poll(timeout);
                }

                @Override
                public void commit(Map<Integer, Long> offsets) {
                    throw new KafkoStorageException("write offsets failed: No space left on device");
                }

                @Override
                public void seek(int partition, long offset) {
                    c.seek(partition, offset);
                }

                @Override
                public long position(int partition) {
                    return c.position(partition);
                }

                @Override
                public Set<Integer> assignment() {
                    return c.assignment();
                }

                @Override
                public void wakeup() {
                    c.wakeup();
                }

                @Override
                public void close() {
                    c.close();
                }
            };
        }

        @Override
        public void ensureTopic(String topic, int minPartitions) {
            real.ensureTopic(topic, minPartitions);
        }

        @Override
        public void checkTopicName(String topic) {
            real.checkTopicName(topic);
        }

        @Override
        public int partitionCount(String topic) {
            return real.partitionCount(topic);
        }

        @Override
        public Map<Integer, Long> endOffsets(String topic) {
            return real.endOffsets(topic);
        }

        @Override
        public @Nullable Object topicId(String topic) {
            return real.topicId(topic);
        }

        @Override
        public Map<Integer, Long> committedOffsets(String topic, String group) {
            return real.committedOffsets(topic, group);
        }

        @Override
        public long currentTimeMillis() {
            return real.currentTimeMillis();
        }
    }
}
