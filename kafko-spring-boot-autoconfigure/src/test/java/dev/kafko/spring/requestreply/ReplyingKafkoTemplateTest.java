package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.RecordMessageConverter;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * Request and reply: a {@link ReplyingKafkoTemplate} request is answered by a {@code @SendTo} listener, and
 * each future completes with its own reply (matched by correlation id), also when requests overlap and
 * when two templates share a reply topic; no reply in time, a stopped template and a template not started
 * fail typed.
 */
class ReplyingKafkoTemplateTest {

    /** Holds the echo listener's replies until it opens. */
    static volatile java.util.concurrent.CountDownLatch echoGate = new java.util.concurrent.CountDownLatch(0);

    record Quote(String sku, int quantity) {
    }

    record Price(String sku, BigDecimal total) {
    }

    static class Pricing {
        @KafkoListener(id = "pricing", topics = "quotes", concurrency = "2")
        @SendTo
        Price price(Quote quote) {
            return new Price(quote.sku(), BigDecimal.valueOf(quote.quantity()).multiply(new BigDecimal("1.5")));
        }

        @KafkoListener(id = "echo", topics = "echo")
        @SendTo
        String echo(String text) throws InterruptedException {
            echoGate.await(30, TimeUnit.SECONDS);
            return "echo " + text;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {
        @Bean
        Pricing pricing() {
            return new Pricing();
        }

        @Bean
        ReplyingKafkoTemplate<String, Quote, Price> prices(KafkoTemplate<String, Quote> kafkoTemplate,
                                                           LogBackend backend, RecordMessageConverter converter) {
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "prices", Price.class);
        }

        @Bean
        ReplyingKafkoTemplate<String, String, String> echoes(KafkoTemplate<String, String> kafkoTemplate,
                                                             LogBackend backend, RecordMessageConverter converter) {
            // shares the reply topic with the other template: each must see only its own replies
            return new ReplyingKafkoTemplate<>(kafkoTemplate, backend, converter, "prices", String.class);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Config.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.quotes.partitions=4");

    @Test
    @SuppressWarnings("unchecked")
    void overlappingRequestsEachGetTheirOwnReplyAlsoWithASharedReplyTopic() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            ReplyingKafkoTemplate<String, Quote, Price> prices = context.getBean("prices", ReplyingKafkoTemplate.class);
            ReplyingKafkoTemplate<String, String, String> echoes = context.getBean("echoes", ReplyingKafkoTemplate.class);
            assertThat(prices.isRunning()).isTrue();
            List<RequestReplyFuture<String, Quote, Price>> quoted = new ArrayList<>();
            List<RequestReplyFuture<String, String, String>> echoed = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                quoted.add(prices.sendAndReceive("quotes", "sku-" + i, new Quote("sku-" + i, i)));
                echoed.add(echoes.sendAndReceive("echo", "m" + i));
            }
            for (int i = 0; i < 200; i++) {
                Price p = quoted.get(i).get(10, TimeUnit.SECONDS);
                assertThat(p.sku()).isEqualTo("sku-" + i);
                assertThat(p.total()).isEqualByComparingTo(new BigDecimal(i).multiply(new BigDecimal("1.5")));
                assertThat(quoted.get(i).getSendFuture().get().topic()).isEqualTo("quotes");
                assertThat(echoed.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("echo m" + i);
            }
            assertThat(prices.pendingReplies()).isZero();
            assertThat(echoes.pendingReplies()).isZero();
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void noReplyInTimeAStoppedTemplateAndOneNotStartedFailTyped() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, Quote, Price> prices = context.getBean("prices", ReplyingKafkoTemplate.class);
            // nobody answers on this topic
            RequestReplyFuture<String, Quote, Price> unanswered = prices.sendAndReceive("nobody-listens", null, null,
                    new Quote("x", 1), Duration.ofMillis(200));
            assertThatThrownBy(() -> unanswered.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(KafkoReplyTimeoutException.class).hasMessageContaining("nobody-listens")
                    .hasMessageContaining("PT0.2S");
            assertThat(unanswered.getSendFuture().get().offset()).isZero();
            assertThat(prices.pendingReplies()).isZero();

            RequestReplyFuture<String, Quote, Price> waiting = prices.sendAndReceive("nobody-listens", null, null,
                    new Quote("y", 1), Duration.ofMinutes(1));
            prices.stop();
            assertThat(prices.isRunning()).isFalse();
            assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).cause().hasMessageContaining("stopped");
            assertThatThrownBy(() -> prices.sendAndReceive("quotes", new Quote("z", 1)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("not running");
            assertThatThrownBy(() -> prices.sendAndReceive("quotes", null, null, new Quote("z", 1), Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class);
            // started again, it answers as before
            prices.start();
            assertThat(prices.sendAndReceive("quotes", new Quote("again", 2)).get(10, TimeUnit.SECONDS).sku())
                    .isEqualTo("again");
        });
    }

    /** A timeout longer than a Duration's nanoseconds hold (292 years) waits for ever; it threw after the send. */
    @Test
    @SuppressWarnings("unchecked")
    void aTimeoutBeyondWhatNanosecondsHoldWaitsForTheReply() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, Quote, Price> prices = context.getBean("prices", ReplyingKafkoTemplate.class);
            prices.setDefaultReplyTimeout(Duration.ofDays(365_000));
            assertThat(prices.sendAndReceive("quotes", new Quote("long", 4)).get(10, TimeUnit.SECONDS).sku())
                    .isEqualTo("long");
            RequestReplyFuture<String, Quote, Price> unanswered = prices.sendAndReceive("nobody-listens", null, null,
                    new Quote("x", 1), Duration.ofSeconds(Long.MAX_VALUE));
            assertThat(unanswered.getSendFuture().get(10, TimeUnit.SECONDS).offset()).isZero();
            assertThat(unanswered).isNotDone();
            assertThat(prices.pendingReplies()).isEqualTo(1);
            prices.stop();
            assertThatThrownBy(() -> unanswered.get(10, TimeUnit.SECONDS)).cause().hasMessageContaining("stopped");
            assertThat(prices.pendingReplies()).isZero();
        });
    }

    /**
     * A callback on the reply thread that waits for another reply: stop() fails that request first, so the
     * thread is free and ends before stop() returns (it waited out its 10 s join for a thread still blocked).
     */
    @Test
    @SuppressWarnings("unchecked")
    void stopFreesAReplyThreadWhoseCallbackWaitsForAnotherReply() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> echoes = context.getBean("echoes", ReplyingKafkoTemplate.class);
            echoes.setDefaultReplyTimeout(Duration.ofMinutes(5));
            java.util.concurrent.CountDownLatch waiting = new java.util.concurrent.CountDownLatch(1);
            echoGate = new java.util.concurrent.CountDownLatch(1); // the reply comes after the callback is added
            RequestReplyFuture<String, String, String> first = echoes.sendAndReceive("echo", "first");
            java.util.concurrent.atomic.AtomicReference<String> callbackThread = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.CompletableFuture<String> chained = first.thenApply(reply -> {
                callbackThread.set(Thread.currentThread().getName());
                RequestReplyFuture<String, String, String> unanswered = echoes.sendAndReceive("nobody-listens", "x");
                waiting.countDown();
                return unanswered.join(); // on the reply thread: documented to hold up the replies
            });
            echoGate.countDown();
            assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(callbackThread.get()).startsWith("kafko-replies-");
            long t0 = System.nanoTime();
            echoes.stop();
            // a liveness check, not a speed goal: the old order waited out its whole 10 s join
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("stop() with a blocked reply thread")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(replyThreads()).as("reply threads right after stop()").isEqualTo(1); // the other template's
            assertThatThrownBy(() -> chained.get(10, TimeUnit.SECONDS)).cause().hasMessageContaining("stopped");
        });
    }

    @Test
    void aThreadReadsTheRepliesOnlyWhileTheTemplateRuns() {
        runner.run(context -> {
            assertThat(replyThreads()).isEqualTo(2);
        });
        assertThat(replyThreads()).isZero();
    }

    private static long replyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("kafko-replies-") && t.isAlive()).count();
    }
}
