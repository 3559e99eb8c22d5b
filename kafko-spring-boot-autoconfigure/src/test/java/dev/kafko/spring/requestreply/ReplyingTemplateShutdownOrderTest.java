package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.SendResult;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Under {@code server.shutdown=graceful} Spring Boot drains the web server's requests in the stop of a lifecycle
 * bean of phase {@code Integer.MAX_VALUE - 1024}, and starts the server at {@code Integer.MAX_VALUE - 2048}: a
 * replying template that stops before that drain fails the requests the drain waits for, and one that starts after
 * the server refuses the first requests. As spring-kafka's (phase 0), it runs across both.
 */
class ReplyingTemplateShutdownOrderTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    /**
     * Stands for Boot's web server: started at its phase, drained at its graceful-shutdown phase. It looks the
     * templates up when it runs, as a web server reaches its handlers: a bean it depended on would be started
     * before it and stopped after it whatever the phases.
     */
    static class WebServerLike implements SmartLifecycle {
        private final ApplicationContext context;
        private final int phase;
        private volatile boolean running;

        WebServerLike(ApplicationContext context, int phase) {
            this.context = context;
            this.phase = phase;
        }

        @SuppressWarnings("unchecked")
        private ReplyingKafkoTemplate<String, String, String> replying() {
            return context.getBean(ReplyingKafkoTemplate.class);
        }

        @Override
        public void start() {
            running = true;
            SEEN.add("start " + phase + ": template running " + replying().isRunning());
        }

        @Override
        @SuppressWarnings("unchecked")
        public void stop() {
            running = false;
            if (phase != Integer.MAX_VALUE - 1024) {
                return;
            }
            ReplyingKafkoTemplate<String, String, String> replying = replying();
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            // a request in flight during the drain, answered by a responder that is still there
            try {
                RequestReplyFuture<String, String, String> future = replying.sendAndReceive("questions", "k", "q");
                SendResult<String, String> sent = future.getSendFuture().get(5, TimeUnit.SECONDS);
                KafkoRecord request = template.receive("questions", sent.partition(), sent.offset());
                template.send(MessageBuilder.withPayload("answer").setHeader(KafkoHeaders.TOPIC, "answers")
                        .setHeader(KafkoHeaders.CORRELATION_ID,
                                request.headers().lastValue(KafkoHeaders.CORRELATION_ID)).build()).get();
                SEEN.add("drain: " + future.get(5, TimeUnit.SECONDS));
            } catch (Exception e) {
                SEEN.add("drain: " + e);
            }
        }

        @Override
        public boolean isRunning() {
            return running;
        }

        @Override
        public int getPhase() {
            return phase;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        ReplyingKafkoTemplate<String, String, String> replying(KafkoTemplate<String, String> template,
                                                               LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(template, backend, converter, "answers", String.class);
        }

        @Bean
        WebServerLike webServerStart(ApplicationContext context) {
            return new WebServerLike(context, Integer.MAX_VALUE - 2048);
        }

        @Bean
        WebServerLike webServerGracefulShutdown(ApplicationContext context) {
            return new WebServerLike(context, Integer.MAX_VALUE - 1024);
        }
    }

    @Test
    void runsFromBeforeTheWebServerStartsUntilItsGracefulShutdownDrained() {
        SEEN.clear();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(Config.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.questions.partitions=1")
                .run(context -> assertThat(context).hasNotFailed());
        System.out.println("SEEN " + SEEN);
        assertThat(SEEN).contains("start " + (Integer.MAX_VALUE - 2048) + ": template running true", "drain: answer");
    }

    @Test
    void phaseCanBeSet() {
        ReplyingKafkoTemplate<String, String, String>[] holder = new ReplyingKafkoTemplate[1];
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(Config.class)
                .withPropertyValues("kafko.ephemeral=true")
                .run(context -> {
                    ReplyingKafkoTemplate<String, String, String> t = context.getBean(ReplyingKafkoTemplate.class);
                    assertThat(t.getPhase()).isEqualTo(0);
                    // SETPHASE
                    // GETPHASE2
                });
    }
}
