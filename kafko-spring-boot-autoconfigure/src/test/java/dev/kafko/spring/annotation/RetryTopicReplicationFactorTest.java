package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * spring-kafka's replication factor of retry and dead-letter topics, as ported code gives it: 1 and -1 (the broker's
 * default) are taken, any other count is refused naming the listener or the setting, as {@code TopicBuilder.replicas}
 * refuses it.
 */
class RetryTopicReplicationFactorTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.copies.partitions=2");

    @Test
    void aReplicationFactorOfOneOrTheBrokersDefaultIsTaken() {
        runner.withPropertyValues("retry.replicas=-1").withBean(OneCopy.class).withBean(BrokerDefault.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                            .contains("one", "one-retry", "one-dlt", "default", "default-retry", "default-dlt");
                });
    }

    @Test
    void anyOtherReplicationFactorFailsTheStartNamingTheListener() {
        runner.withBean(ThreeCopies.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageContaining("@RetryableTopic listener 'three'")
                .hasMessageContaining("replicationFactor '3' cannot be kept: a kafko topic is one copy on one disk"));
        runner.withBean(Unreadable.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageContaining("replicationFactor 'three' is not a whole number"));
    }

    @Test
    void aNumPartitionsOfMinusOneIsTheListenerTopicsCountAsInTheBuilder() {
        // spring-kafka's broker default, -1, ported with the annotation as the builder's autoCreateTopicsWith takes it
        runner.withBean(BrokerDefaultPartitions.class).run(context -> {
            assertThat(context).hasNotFailed();
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("copies-retry").orElseThrow().partitionCount()).isEqualTo(2);
            assertThat(kafko.topic("copies-dlt").orElseThrow().partitionCount()).isEqualTo(2);
        });
        runner.withBean(NoPartitions.class).run(context -> assertThat(context).getFailure().rootCause()
                .isInstanceOf(InvalidKafkoListenerException.class)
                .hasMessageContaining("@RetryableTopic listener 'none'")
                .hasMessageContaining("numPartitions '0' must be at least 1 (or -1, or left out, for the listener"
                        + " topic's count)"));
    }

    @Test
    void theBuildersSpringKafkaOverloadsTakeTheirPartitionsAndOneCopy() {
        RetryTopics three = RetryTopicConfigurationBuilder.newInstance().autoCreateTopicsWith(3, (short) 1).create()
                .plan("t");
        assertThat(three.autoCreateTopics()).isTrue();
        assertThat(three.numPartitions()).isEqualTo(3);
        // null and -1, the broker's default in spring-kafka, are the listener topic's count
        RetryTopics unset = RetryTopicConfigurationBuilder.newInstance().doNotAutoCreateRetryTopics()
                .autoCreateTopicsWith(null, null).create().plan("t");
        assertThat(unset.autoCreateTopics()).isTrue();
        assertThat(unset.numPartitions()).isZero();
        RetryTopics declared = RetryTopicConfigurationBuilder.newInstance()
                .autoCreateTopics(false, -1, (short) -1).create().plan("t");
        assertThat(declared.autoCreateTopics()).isFalse();
        assertThat(declared.numPartitions()).isZero();
        assertThat(RetryTopicConfigurationBuilder.newInstance().autoCreateTopics(null, 4, null).create().plan("t")
                .autoCreateTopics()).isTrue();

        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().autoCreateTopicsWith(3, (short) 3)
                .create()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a replication factor of 3 cannot be kept: a kafko topic is one copy on one disk"
                        + " (1, -1 or null)");
        assertThatThrownBy(() -> RetryTopicConfigurationBuilder.newInstance().autoCreateTopicsWith(-2, null)
                .create()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("numPartitions must not be negative, was -2");
    }

    static class OneCopy {
        @RetryableTopic(replicationFactor = "1")
        @KafkoListener(id = "one", topics = "copies")
        void on(String value) {
        }
    }

    static class BrokerDefault {
        @RetryableTopic(replicationFactor = "${retry.replicas}")
        @KafkoListener(id = "default", topics = "copies")
        void on(String value) {
        }
    }

    static class BrokerDefaultPartitions {
        @RetryableTopic(numPartitions = "-1", replicationFactor = "-1")
        @KafkoListener(id = "partitions", topics = "copies")
        void on(String value) {
        }
    }

    static class NoPartitions {
        @RetryableTopic(numPartitions = "0")
        @KafkoListener(id = "none", topics = "copies")
        void on(String value) {
        }
    }

    static class ThreeCopies {
        @RetryableTopic(replicationFactor = "3")
        @KafkoListener(id = "three", topics = "copies")
        void on(String value) {
        }
    }

    static class Unreadable {
        @RetryableTopic(replicationFactor = "three")
        @KafkoListener(id = "unreadable", topics = "copies")
        void on(String value) {
        }
    }
}
