package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.RecordMessageConverter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * A reply topic deleted while the application runs: the replying template reads it again once it exists, as
 * the template and the listeners do with their topics. Its reply reader died at the delete with an ERROR, and
 * every later request was refused ("not running") until the application restarted.
 */
class DeletedReplyTopicTest {

    static class Service {
        @KafkoListener(id = "dr-upper", topics = "dr.requests")
        @SendTo
        String upper(String text) {
            return text.toUpperCase();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Service service() {
            return new Service();
        }

        @Bean
        ReplyingKafkoTemplate<String, String, String> requester(KafkoTemplate<String, String> kafkoTemplate,
                                                                LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "dr.replies", String.class);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    @SuppressWarnings("unchecked")
    void aDeletedReplyTopicIsCreatedAgainAndItsRepliesReadWhereTopicsAreCreatedOnUse() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = context.getBean(ReplyingKafkoTemplate.class);
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(rr.sendAndReceive("dr.requests", "before").get(10, TimeUnit.SECONDS)).isEqualTo("BEFORE");
            kafko.deleteTopic("dr.replies");
            // the reply reader finds the topic gone at its next poll, and creates it again
            await().atMost(Duration.ofSeconds(10)).until(() -> kafko.topic("dr.replies").isPresent());
            assertThat(rr.sendAndReceive("dr.requests", "after").get(10, TimeUnit.SECONDS)).isEqualTo("AFTER");
            assertThat(rr.isRunning()).isTrue();
            assertThat(rr.pendingReplies()).isZero();
        });
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().startsWith("kafko-replies-"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void withoutCreationOnUseTheReplyTopicIsReadAgainOnceSomeoneCreatesItAndAStopEndsTheWait() {
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics[dr.requests].partitions=1",
                        "kafko.topics[dr.replies].partitions=1")
                .run(context -> {
                    Kafko kafko = context.getBean(Kafko.class);
                    kafko.createTopic("dr.manual");
                    ReplyingKafkoTemplate<String, String, String> rr = new ReplyingKafkoTemplate<>(
                            context.getBean(KafkoTemplate.class), context.getBean(LogBackend.class),
                            context.getBean(RecordMessageConverter.class), "dr.manual", String.class);
                    rr.start();
                    try {
                        assertThat(rr.sendAndReceive("dr.requests", "one").get(10, TimeUnit.SECONDS)).isEqualTo("ONE");
                        kafko.deleteTopic("dr.manual");
                        kafko.createTopic("dr.manual");
                        assertThat(rr.sendAndReceive("dr.requests", "two").get(10, TimeUnit.SECONDS)).isEqualTo("TWO");
                        kafko.deleteTopic("dr.manual");
                        // nobody creates it: the template waits for it, and its stop ends the wait
                        assertThat(rr.isRunning()).isTrue();
                    } finally {
                        rr.stop();
                    }
                    assertThat(Thread.getAllStackTraces().keySet())
                            .noneMatch(t -> t.getName().equals("kafko-replies-dr.manual") && t.isAlive());
                });
    }
}
