package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.TopicConfig;
import dev.kafko.TopicExistsException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * "A topic created while the application runs shows its partitions' gauges before its first record", and "a topic
 * created again under the name gets new ones": also when it is created again the moment the deletion lets it (a
 * template or a listener creating it on first use, on another thread), while the deletion's observers are told.
 */
class RecreatedTopicMetersTest {

    /** An application's observer that takes a while over a deletion (it records it in an audit table, say). */
    static class Auditing implements KafkoObserver {
        @Override
        public void onTopicDeleted(String topic) {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void aTopicCreatedAgainAsSoonAsItsDeletionEndsHasItsGauges() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoMetricsAutoConfiguration.class))
                .withBean(SimpleMeterRegistry.class).withBean("audit", KafkoObserver.class, Auditing::new)
                .withPropertyValues("kafko.ephemeral=true").run(context -> {
            Kafko kafko = context.getBean(Kafko.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            kafko.createTopic("tenant", TopicConfig.builder().partitions(2).build());
            Thread creator = new Thread(() -> {
                while (true) {
                    try {
                        kafko.createTopic("tenant", TopicConfig.builder().partitions(2).build());
                        return;
                    } catch (TopicExistsException e) {
                        try {
                            Thread.sleep(1);
                        } catch (InterruptedException ie) {
                            return;
                        }
                    }
                }
            });
            creator.start();
            kafko.deleteTopic("tenant");
            creator.join(10_000);
            assertThat(kafko.topics()).contains("tenant");
            assertThat(registry.find("kafko.log.end.offset").tag("topic", "tenant").gauges())
                    .as("the gauges of the topic created again").hasSize(2);
        });
    }
}
