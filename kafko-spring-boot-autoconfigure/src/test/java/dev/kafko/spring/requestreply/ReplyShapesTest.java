package dev.kafko.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.InvalidNameException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordTooLargeException;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.requestreply.RequestReplyAcceptanceTest.Strict;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;

/**
 * What a requester of a {@link ReplyingKafkoTemplate} gets from a listener's shapes (an error handler's result,
 * a failure without one, null, a future, a message), from a reply it cannot convert, from reply routing headers,
 * and from bad input. Uses the listeners and templates of {@link RequestReplyAcceptanceTest}.
 */
class ReplyShapesTest {

    @Test
    void aListenerErrorHandlersResultIsTheReplyAndAFailureWithoutOneTimesOut() {
        RequestReplyAcceptanceTest.RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = RequestReplyAcceptanceTest.requester(context);
            assertThat(rr.sendAndReceive("rr.throws", "a").get(10, TimeUnit.SECONDS)).isEqualTo("fallback:refused a");
            RequestReplyFuture<String, String, String> bare = rr.sendAndReceive("rr.throws.bare", null, null, "b",
                    Duration.ofMillis(300));
            assertThatThrownBy(() -> bare.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(KafkoReplyTimeoutException.class);
        });
    }

    /**
     * A reply whose conversion throws an {@link Error} (an {@code AssertionError} of the reply type's constructor)
     * fails its own request and no other. It escaped the reply thread: that request's future, already taken from
     * the pending map, never completed (not even at its timeout), and the reader ended, failing every request.
     */
    @Test
    @SuppressWarnings("unchecked")
    void aReplyWhoseConversionThrowsAnErrorFailsItsRequestOnly() {
        RequestReplyAcceptanceTest.RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, Strict> strict = context.getBean("strictRequester",
                    ReplyingKafkoTemplate.class);
            RequestReplyFuture<String, String, Strict> bad = strict.sendAndReceive("rr.strict", null, null, "bad one",
                    Duration.ofSeconds(5));
            assertThatThrownBy(() -> bad.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(AssertionError.class).hasMessage("refused bad one");
            assertThat(strict.isRunning()).isTrue();
            assertThat(strict.sendAndReceive("rr.strict", "good").get(10, TimeUnit.SECONDS)).isEqualTo(new Strict("good"));
            assertThat(strict.pendingReplies()).isZero();
        });
    }

    @Test
    void nullSendsNoReplyAFutureRepliesWithItsValueAndAMessageKeepsTheCorrelation() throws Exception {
        RequestReplyAcceptanceTest.RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = RequestReplyAcceptanceTest.requester(context);
            RequestReplyFuture<String, String, String> none = rr.sendAndReceive("rr.null", null, null, "n",
                    Duration.ofMillis(300));
            assertThatThrownBy(() -> none.get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(KafkoReplyTimeoutException.class);
            assertThat(rr.sendAndReceive("rr.future", "f").get(10, TimeUnit.SECONDS)).isEqualTo("async:f");
            assertThat(rr.sendAndReceive("rr.message", "m").get(10, TimeUnit.SECONDS)).isEqualTo("msg:m");
        });
    }

    @Test
    void aReplyPartitionHeaderAndTheRequestsKeyRouteTheReply() {
        RequestReplyAcceptanceTest.RUNNER.run(context -> {
            ReplyingKafkoTemplate<String, String, String> rr = RequestReplyAcceptanceTest.requester(context);
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            Message<String> toTwo = MessageBuilder.withPayload("p").setHeader(KafkoHeaders.TOPIC, "rr.requests")
                    .setHeader(KafkoHeaders.KEY, "k1").setHeader(KafkoHeaders.REPLY_PARTITION, 2).build();
            assertThat(rr.sendAndReceive(toTwo).get(10, TimeUnit.SECONDS)).isEqualTo("R:p");
            KafkoRecord reply = template.receive("rr.replies", 2, 0, Duration.ofSeconds(5));
            assertThat(reply).isNotNull();
            assertThat(new String(reply.value(), StandardCharsets.UTF_8)).isEqualTo("R:p");
            assertThat(new String(reply.key(), StandardCharsets.UTF_8)).isEqualTo("k1");
            assertThat(reply.headers().lastValue(KafkoHeaders.CORRELATION_ID)).isNotNull();
        });
    }

    /** A request without a topic header goes to the default topic, which its timeout names (it said 'null'). */
    @Test
    void aTimeoutNamesTheDefaultTopicARequestWithoutATopicHeaderWentTo() {
        RequestReplyAcceptanceTest.RUNNER.withPropertyValues("kafko.template.default-topic=rr.nobody").run(context -> {
            RequestReplyFuture<String, String, String> f = RequestReplyAcceptanceTest.requester(context)
                    .sendAndReceive(MessageBuilder.withPayload("no topic header").build(), Duration.ofMillis(100));
            assertThat(f.getSendFuture().get(10, TimeUnit.SECONDS).topic()).isEqualTo("rr.nobody");
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(KafkoReplyTimeoutException.class)
                    .hasMessageEndingWith("sent to 'rr.nobody'");
        });
    }

    @Test
    void badInputIsRefusedAtTheCallNamingTheProblemAndKeepsNothing() {
        RequestReplyAcceptanceTest.RUNNER.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics[rr.replies].partitions=1",
                        "kafko.topics[rr.requests].partitions=1", "kafko.topics[rr.gated].partitions=1",
                        "kafko.topics[rr.throws].partitions=1", "kafko.topics[rr.throws.bare].partitions=1",
                        "kafko.topics[rr.null].partitions=1", "kafko.topics[rr.future].partitions=1",
                        "kafko.topics[rr.message].partitions=1", "kafko.topics[rr.small].max-record-size=64",
                        "kafko.topics[rr.strict].partitions=1", "kafko.topics[rr.strict.replies].partitions=1")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    ReplyingKafkoTemplate<String, String, String> rr = RequestReplyAcceptanceTest.requester(context);
                    assertThatThrownBy(() -> rr.sendAndReceive((Message<?>) null))
                            .isInstanceOf(NullPointerException.class).hasMessageContaining("request");
                    assertThatThrownBy(() -> rr.sendAndReceive(null, "v"))
                            .isInstanceOf(NullPointerException.class).hasMessageContaining("topic");
                    assertThatThrownBy(() -> rr.sendAndReceive("rr.requests", null, null, "v", Duration.ofSeconds(-1)))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT-1S");
                    assertThatThrownBy(() -> rr.sendAndReceive("no.such.topic", "v"))
                            .isInstanceOf(UnknownTopicException.class).hasMessageContaining("no.such.topic");
                    assertThatThrownBy(() -> rr.sendAndReceive("bad/name", "v"))
                            .isInstanceOf(InvalidNameException.class);
                    assertThatThrownBy(() -> rr.sendAndReceive("rr.requests", 5, null, "v", Duration.ofSeconds(5)))
                            .isInstanceOf(InvalidPartitionException.class).hasMessageContaining("partition 5");
                    // a request the log refuses fails its future, and its send future, with the send's failure
                    RequestReplyFuture<String, String, String> large = rr.sendAndReceive("rr.small", "x".repeat(200));
                    assertThatThrownBy(() -> large.get(10, TimeUnit.SECONDS)).cause()
                            .isInstanceOf(RecordTooLargeException.class);
                    assertThatThrownBy(() -> large.getSendFuture().get(10, TimeUnit.SECONDS)).cause()
                            .isInstanceOf(RecordTooLargeException.class);
                    assertThat(rr.pendingReplies()).isZero();
                });
    }
}
