package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Kafka's own dotted topic keys ({@code num.partitions}, {@code log.retention}) under a topic without a dot bind
 * unbound as well: the analysis does not tell that user only to declare a topic named {@code orders.num}, which
 * would start, with {@code orders} left at one partition.
 */
class DottedTopicKeyFailureAnalyzerTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aKafkaDottedKeyUnderAPlainTopicIsNamedAsTheOtherReading() {
        runner.withPropertyValues("kafko.topics.orders.num.partitions=3").run(context -> {
            FailureAnalysis analysis = new DottedTopicKeyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getAction()).contains("kafko.topics[orders.num].partitions")
                    .contains("if the topic is 'orders': 'num.partitions' is no key of a topic")
                    .contains("partitions, retention, retention-bytes");
        });
    }
}
