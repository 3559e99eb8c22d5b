package dev.kafko.spring.retrytopic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What an outside port of a spring-kafka application's non-blocking retries found: a listener that an application
 * restarted on its data directory takes out of its retry topics (its topic excluded from the
 * {@link RetryTopicConfiguration} bean, the bean or its {@code @RetryableTopic} removed) left the records waiting
 * in those topics unread without a word, where a listener whose retry topics merely changed is warned of them; and two
 * listeners of one topic in different groups under one bean shared its retry topics, each delivered the records the
 * other failed on, without a word.
 */
@ExtendWith(OutputCaptureExtension.class)
class MigrationTryoutTest {

    @Test
    void recordsLeftInRetryTopicsByAListenerThatNoLongerHasAnyAreNamedAtTheStart(@TempDir Path dir,
            CapturedOutput output) {
        ApplicationContextRunner onDisk = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.data-dir=" + dir, "kafko.topics.orders.partitions=1",
                        "kafko.listener.retry.max-attempts=1");
        // a minute's back-off: the two failed records wait in orders-retry-60000 when the context closes
        onDisk.withUserConfiguration(EveryTopicSlowly.class).withBean(Failing.class).run(context -> {
            assertThat(context).hasNotFailed();
            template(context).send("orders", "k", "a").join();
            template(context).send("orders", "k", "b").join();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> KafkoTestUtils.records(context, "orders-retry-60000").size() == 2);
        });
        int before = output.getAll().length();
        // the port excludes the topic from the bean: the listener keeps blocking retries only; a listener of the
        // topic in another group, which forwarded nothing, is not warned of records that are not its own
        onDisk.withUserConfiguration(EveryTopicButOrders.class).withBean(Failing.class).withBean(Audit.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                            .getListenerContainerIds()).contains("orders", "audit").doesNotContain("orders-retry-60000");
                });
        String second = output.getAll().substring(before);
        assertThat(second).contains("Listener 'orders' of topic 'orders' has no retry topics, but 'orders-retry-60000' (2)"
                + " hold 2 record(s) that its group 'orders' forwarded there");
        assertThat(second).doesNotContain("Listener 'audit'");
    }

    @Test
    void twoListenersOfATopicInOtherGroupsUnderOneBeanAreWarnedThatTheyShareItsRetryTopics(CapturedOutput output) {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=1")
                .withUserConfiguration(EveryTopicSlowly.class).withBean(Failing.class).withBean(Audit.class)
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("Listeners 'orders' (group 'orders') and 'audit' (group 'audit') of topic 'orders'"
                + " share the retry topic 'orders-retry-60000'");
    }

    @Test
    void twoListenersOfATopicInOneGroupAreNotWarnedOf(CapturedOutput output) {
        // the first read has an id ('again') other than its group ('orders'): the groups are compared, not the ids
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=1")
                .withUserConfiguration(EveryTopicSlowly.class).withBean(SameGroup.class).withBean(Failing.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                            .getListenerContainerIds()).contains("orders-retry-60000", "again-retry-60000");
                });
        assertThat(output).doesNotContain("share the retry topic");
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<String, String> template(org.springframework.context.ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Failing {
        @KafkoListener(id = "orders", topics = "orders")
        void on(String value) {
            throw new IllegalStateException("fails " + value);
        }
    }

    static class Audit {
        @KafkoListener(id = "audit", topics = "orders", groupId = "audit")
        void on(String value) {
        }
    }

    static class SameGroup {
        @KafkoListener(id = "again", topics = "orders", groupId = "orders")
        void on(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EveryTopicSlowly {
        @Bean
        RetryTopicConfiguration everyTopicSlowly() {
            return RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(60_000, 2, 120_000).maxAttempts(3)
                    .create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EveryTopicButOrders {
        @Bean
        RetryTopicConfiguration everyTopicButOrders() {
            return RetryTopicConfigurationBuilder.newInstance().exponentialBackoff(60_000, 2, 120_000).maxAttempts(3)
                    .excludeTopic("orders").create();
        }
    }
}
