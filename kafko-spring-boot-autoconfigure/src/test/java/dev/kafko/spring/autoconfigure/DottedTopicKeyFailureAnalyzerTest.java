package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.SystemEnvironmentPropertySource;

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

    @Test
    void anEnvironmentVariableIsNotToldToUseBracketsItCannotHold() {
        runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource("test-systemEnvironment",
                                Map.of("KAFKO_TOPICS_MY_TOPIC_PARTITIONS", "2"))))
                .run(context -> {
                    FailureAnalysis analysis = new DottedTopicKeyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription()).contains("KAFKO_TOPICS_MY_TOPIC_PARTITIONS")
                            .contains("an environment variable cannot name a topic with a dot, a dash or an underscore");
                    assertThat(analysis.getAction()).doesNotContain("Write the topic's name in brackets")
                            .contains("SPRING_APPLICATION_JSON")
                            .contains("{\"kafko\":{\"topics\":{\"[my_topic]\":{\"partitions\":2}}}}")
                            .contains("if the topic is 'my': 'topic.partitions' is no key of a topic");
                });
    }
}
