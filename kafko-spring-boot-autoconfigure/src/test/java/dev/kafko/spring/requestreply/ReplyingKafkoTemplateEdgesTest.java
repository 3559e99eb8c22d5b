package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.KafkoException;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.requestreply.ReplyingKafkoTemplateTest.Price;
import dev.kafko.spring.requestreply.ReplyingKafkoTemplateTest.Quote;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.SendResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What {@link ReplyingKafkoTemplateTest} leaves unchecked: the checks of the reply topic and the timeout, the settings
 * read back, a keyed request's key, a request that cannot be sent, and a reply reader that ends on its own. (Found by
 * mutation testing: each test fails with the change it names.)
 */
class ReplyingKafkoTemplateEdgesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(ReplyingKafkoTemplateTest.Config.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.quotes.partitions=4",
                    "kafko.defaults.max-record-size=1KB");

    @Test
    @SuppressWarnings("unchecked")
    void anIllegalReplyTopicAndATimeoutThatIsNotPositiveAreRefusedAndTheSettingsReadBack() {
        runner.run(context -> {
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            LogBackend backend = context.getBean(LogBackend.class);
            RecordMessageConverter converter = context.getBean(RecordMessageConverter.class);
            assertThatThrownBy(() -> new ReplyingKafkoTemplate<>(template, backend, converter, "prices/eu",
                    String.class)).isInstanceOf(InvalidNameException.class).hasMessageContaining("prices/eu");

            ReplyingKafkoTemplate<String, Quote, Price> prices = context.getBean("prices", ReplyingKafkoTemplate.class);
            assertThatThrownBy(() -> prices.setDefaultReplyTimeout(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
            assertThatThrownBy(() -> prices.setDefaultReplyTimeout(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(prices.getDefaultReplyTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(prices.getReplyTopic()).isEqualTo("prices");
            assertThat(prices.getPhase()).isZero();
            prices.setPhase(7);
            assertThat(prices.getPhase()).isEqualTo(7);
            // a template never stopped must not keep the JVM from exiting
            assertThat(Thread.getAllStackTraces().keySet()).filteredOn(t -> t.getName().equals("kafko-replies-prices"))
                    .isNotEmpty().allSatisfy(t -> assertThat(t.isDaemon()).isTrue());
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aKeyedRequestIsSentWithItsKey() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, Quote, Price> prices = context.getBean("prices", ReplyingKafkoTemplate.class);
            RequestReplyFuture<String, Quote, Price> future = prices.sendAndReceive("quotes", "sku-7", new Quote("sku-7", 2));
            assertThat(future.get(10, TimeUnit.SECONDS).sku()).isEqualTo("sku-7");

            SendResult<String, Quote> sent = future.getSendFuture().get();
            assertThat(sent.key()).isEqualTo("sku-7");
            KafkoRecord request = context.getBean(KafkoTemplate.class).receive("quotes", sent.partition(), sent.offset());
            assertThat(request).isNotNull();
            assertThat(new String(request.key(), StandardCharsets.UTF_8)).isEqualTo("sku-7");
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRequestThatCannotBeSentFailsWithTheSendsOwnFailureNotAWrapperOfIt() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, String, String> echoes = context.getBean("echoes", ReplyingKafkoTemplate.class);
            RequestReplyFuture<String, String, String> future = echoes.sendAndReceive("echo", "x".repeat(2000));

            // what a whenComplete or handle callback is given: the failure itself, as for any other future
            assertThat(future.handle((reply, failure) -> failure).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(RecordTooLargeException.class);
            assertThat(future.getSendFuture().handle((result, failure) -> failure).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(RecordTooLargeException.class);
            assertThat(echoes.pendingReplies()).isZero();
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aReplyReaderThatEndsOnItsOwnFailsTheWaitingRequestsAndTheNextRequestSaysWhy() {
        runner.run(context -> {
            ReplyingKafkoTemplate<String, Quote, Price> prices = context.getBean("prices", ReplyingKafkoTemplate.class);
            RequestReplyFuture<String, Quote, Price> waiting = prices.sendAndReceive("nobody-listens", null, null,
                    new Quote("w", 1), Duration.ofMinutes(1));
            waiting.getSendFuture().get(10, TimeUnit.SECONDS);

            context.getBean(Kafko.class).close(); // the reply reader's poll fails: the instance is gone

            assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(KafkoException.class).hasMessageContaining("the reply reader of 'prices' ended");
            assertThat(prices.isRunning()).isFalse();
            assertThat(prices.pendingReplies()).isZero();
            assertThatThrownBy(() -> prices.sendAndReceive("quotes", new Quote("z", 1)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("its reply reader ended");
        });
    }
}
