package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.PartitionInfo;
import dev.kafko.PartitionState;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code KafkoTemplate.partitionsFor}, as spring-kafka's: the topic's partitions in order, their end offsets counting
 * the template's sends; a topic that does not exist is an error, and the call creates none.
 */
class PartitionsForTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.three.partitions=3");

    @Test
    @SuppressWarnings("unchecked")
    void theTopicsPartitionsInOrderWithEveryEarlierSendCounted() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int i = 0; i < 5; i++) {
                template.send("three", 1, null, "v" + i); // not waited for: a send may linger
            }
            template.send("three", 2, null, "w");

            assertThat(template.partitionsFor("three")).extracting(PartitionInfo::topic, PartitionInfo::partition,
                            PartitionInfo::logStartOffset, PartitionInfo::endOffset, PartitionInfo::state)
                    .containsExactly(
                            tuple("three", 0, 0L, 0L, PartitionState.RUNNING),
                            tuple("three", 1, 0L, 5L, PartitionState.RUNNING),
                            tuple("three", 2, 0L, 1L, PartitionState.RUNNING));
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aTopicThatDoesNotExistIsAnErrorAndIsNotCreatedEvenWhereTopicsAreCreatedOnUse() {
        runner.withPropertyValues("kafko.auto-create-topics=true").run(context -> {
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);

            assertThatThrownBy(() -> template.partitionsFor("missing")).isInstanceOf(UnknownTopicException.class)
                    .hasMessageContaining("'missing'");
            assertThatThrownBy(() -> template.partitionsFor("no/slashes")).isInstanceOf(InvalidNameException.class);
            assertThatThrownBy(() -> template.partitionsFor(null)).isInstanceOf(NullPointerException.class)
                    .hasMessageContaining("topic");
            assertThat(context.getBean(Kafko.class).topic("missing")).isEmpty();
        });
    }
}
