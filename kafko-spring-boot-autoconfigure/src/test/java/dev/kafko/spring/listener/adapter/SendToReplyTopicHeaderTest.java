package dev.kafko.spring.listener.adapter;

import static dev.kafko.spring.listener.adapter.ListenerTestSupport.committed;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.template;
import static dev.kafko.spring.listener.adapter.ListenerTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.InvalidPartitionException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.InvalidReplyHeaderException;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;

/**
 * {@code @SendTo} without a topic replies to the topic in each request's {@code kafko_replyTopic}
 * header, and every {@code @SendTo} reply of a record listener carries the request's correlation id to
 * the partition its {@code kafko_replyPartition} names, as in spring-kafka. A request whose headers
 * cannot route the reply fails through the container's error handling, once, naming the listener and
 * the header, and the listener goes on.
 */
class SendToReplyTopicHeaderTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> INVOKED = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Repliers.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=3",
                    "kafko.topics.partitioned-replies.partitions=3", "kafko.topics.spel-replies.partitions=2",
                    "kafko.topics.replies-a.partitions=1", "kafko.topics.replies-b.partitions=1",
                    "kafko.topics.replies-c.partitions=1", "app.replies=named-replies");

    @BeforeEach
    void reset() {
        INVOKED.clear();
    }

    @Test
    void aSendToWithoutATopicRepliesToTheRequestsReplyTopicWithItsKeyAndCorrelationId() {
        runner.run(context -> {
            send(context, "requests", "k-1", "hello", "replies-a", "c-1", null);
            send(context, "requests", "k-2", "world", "replies-b", null, null);
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "replies-a")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("HELLO");
                assertThat(text(r.key())).isEqualTo("k-1");
                assertThat(text(r.headers().lastValue(KafkoHeaders.CORRELATION_ID))).isEqualTo("c-1");
            });
            assertThat(KafkoTestUtils.records(context, "replies-b")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("WORLD");
                assertThat(r.headers().lastValue(KafkoHeaders.CORRELATION_ID)).isNull();
            });
        });
    }

    @Test
    void aReplyCarriesNoOtherHeaderOfTheRequestThanItsCorrelationId() {
        runner.run(context -> {
            template(context).send(MessageBuilder.withPayload("traced").setHeader(KafkoHeaders.TOPIC, "requests")
                    .setHeader(KafkoHeaders.REPLY_TOPIC, "replies-a").setHeader(KafkoHeaders.CORRELATION_ID, "c-11")
                    .setHeader("x-trace", "t-1").build()).join();
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "replies-a")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("TRACED");
                assertThat(r.headers().asList()).extracting(h -> h.key() + "=" + text(h.value()))
                        .containsExactly(KafkoHeaders.CORRELATION_ID + "=c-11");
            });
        });
    }

    @Test
    void anEmptySendToSendsEachElementToTheReplyTopicsNamedPartitionWithTheCorrelationId() {
        runner.run(context -> {
            send(context, "split-requests", null, "a,b,c", "partitioned-replies", "c-9", "2");
            KafkoTestUtils.waitForListeners(context, WAIT);

            List<KafkoRecord> replies = KafkoTestUtils.records(context, "partitioned-replies");
            assertThat(replies).extracting(r -> text(r.value())).containsExactly("a", "b", "c");
            assertThat(replies).allSatisfy(r -> {
                assertThat(r.partition()).isEqualTo(2);
                assertThat(text(r.headers().lastValue(KafkoHeaders.CORRELATION_ID))).isEqualTo("c-9");
            });
        });
    }

    @Test
    void aSendToNamingItsTopicByPlaceholderOrSpelStillSendsThereWithTheCorrelationId() {
        runner.run(context -> {
            send(context, "named-requests", null, "by placeholder", "ignored-replies", "c-2", null);
            send(context, "spel-requests", null, "by spel", "ignored-replies", "c-3", "1");
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "named-replies")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("BY PLACEHOLDER");
                assertThat(text(r.headers().lastValue(KafkoHeaders.CORRELATION_ID))).isEqualTo("c-2");
            });
            assertThat(KafkoTestUtils.records(context, "spel-replies")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("BY SPEL");
                assertThat(r.partition()).isEqualTo(1);
            });
            assertThat(context.getBean(Kafko.class).topic("ignored-replies")).isEmpty();
        });
    }

    @Test
    void aReturnedMessageNamingItsTopicNeedsNoReplyTopicHeaderAndGetsTheCorrelationId() {
        runner.run(context -> {
            send(context, "routed-requests", null, "routed", null, "c-4", null);
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "routed-replies")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("routed");
                assertThat(text(r.headers().lastValue(KafkoHeaders.CORRELATION_ID))).isEqualTo("c-4");
            });
        });
    }

    @Test
    void aRequestThatCannotRouteItsReplyIsDeadLetteredOnceNamingTheListenerAndTheHeaderAndTheListenerGoesOn() {
        runner.withPropertyValues("kafko.listener.dead-letter.enabled=true").run(context -> {
            send(context, "requests", null, "no header", null, "c-5", null);
            send(context, "requests", null, "bad partition", "replies-c", null, "two");
            send(context, "requests", null, "bad topic", "no/slash", null, null);
            send(context, "requests", null, "fine", "replies-c", null, null);
            send(context, "requests", null, "no such topic", "nowhere", null, null);
            send(context, "requests", null, "no such partition", "replies-c", null, "5");
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(INVOKED).as("each invoked once: no retries").containsExactly("no header", "bad partition",
                    "bad topic", "fine", "no such topic", "no such partition");
            assertThat(KafkoTestUtils.records(context, "replies-c")).extracting(r -> text(r.value()))
                    .containsExactly("FINE");
            List<KafkoRecord> dead = KafkoTestUtils.records(context, "requests.DLT");
            assertThat(dead).extracting(r -> text(r.value()))
                    .containsExactly("no header", "bad partition", "bad topic", "no such topic", "no such partition");
            assertThat(dead.subList(0, 4)).allSatisfy(r -> assertThat(text(r.headers().lastValue(
                    KafkoHeaders.DLT_EXCEPTION_FQCN))).isEqualTo(InvalidReplyHeaderException.class.getName()));
            assertThat(text(dead.get(4).headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                    .isEqualTo(InvalidPartitionException.class.getName());
            assertThat(text(dead.get(0).headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).isEqualTo(
                    "Listener 'echo' cannot send its reply to the record at requests-0@0: its @SendTo names no topic"
                            + " and the record has no kafko_replyTopic header: set the header on the request, or name"
                            + " the topic in @SendTo");
            assertThat(text(dead.get(1).headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).startsWith(
                    "Listener 'echo' cannot send its reply to the record at requests-0@1: its kafko_replyPartition"
                            + " header 'two' is not a partition number");
            assertThat(text(dead.get(2).headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).startsWith(
                    "Listener 'echo' cannot send its reply to the record at requests-0@2: its kafko_replyTopic header"
                            + " names no valid topic");
            // a record cannot make the application create a topic: one a request names must exist
            assertThat(text(dead.get(3).headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).isEqualTo(
                    "Listener 'echo' cannot send its reply to the record at requests-0@4: its kafko_replyTopic header"
                            + " names topic 'nowhere', which does not exist; a reply topic that a request names is"
                            + " never created on first use: declare it (kafko.topics), or let the requester's"
                            + " listener on it create it; a NewTopic bean declares a topic too");
            assertThat(context.getBean(Kafko.class).topic("nowhere")).isEmpty();
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("echo").isRunning())
                    .isTrue();
            assertThat(context.getBean(Kafko.class).groupInfo("requests", "echo").committed()).containsEntry(0, 6L);
        });
    }

    @Test
    void aBatchListenerWhoseSendToNamesNoTopicFailsTheStartNamingIt() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(BatchReplier.class).withPropertyValues("kafko.ephemeral=true")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "Batch listener 'batch-replier' has a @SendTo that names no topic; a batch has no one"
                                + " kafko_replyTopic header to reply to: name the topic"));
    }

    @Test
    void aReturnedMessageGoesToThePartitionItsRequestNamesUnlessItNamesItsOwnAndPartitionZeroIsAPartition() {
        runner.run(context -> {
            // keyless replies: without the request's partition they would go round-robin from partition 0
            send(context, "framed-requests", null, "to-2", "partitioned-replies", "c-6", "2");
            send(context, "framed-requests", null, "to-1", "partitioned-replies", "c-7", "1");
            send(context, "pinned-requests", null, "pinned", "partitioned-replies", "c-8", "2");
            send(context, "requests", null, "zero", "partitioned-replies", "c-10", "0");
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "partitioned-replies")).extracting(r -> text(r.value()) + "@"
                    + r.partition() + " " + text(r.headers().lastValue(KafkoHeaders.CORRELATION_ID)))
                    .containsExactlyInAnyOrder("to-2@2 c-6", "to-1@1 c-7", "pinned@0 c-8", "ZERO@0 c-10");
        });
    }

    @Test
    void aReturnedMessageNamingItsTopicGoesToThePartitionARequestWithoutCorrelationIdNames() {
        runner.run(context -> {
            send(context, "self-routed-requests", null, "alone", null, null, "1");
            KafkoTestUtils.waitForListeners(context, WAIT);

            assertThat(KafkoTestUtils.records(context, "partitioned-replies")).singleElement().satisfies(r -> {
                assertThat(text(r.value())).isEqualTo("alone");
                assertThat(r.partition()).isEqualTo(1);
                assertThat(r.headers().lastValue(KafkoHeaders.CORRELATION_ID)).isNull();
            });
        });
    }

    private static void send(ApplicationContext context, String topic, @Nullable String key, String value,
                             @Nullable String replyTopic, @Nullable String correlationId,
                             @Nullable String replyPartition) {
        Message<String> request = MessageBuilder.withPayload(value).setHeader(KafkoHeaders.TOPIC, topic)
                .setHeader(KafkoHeaders.KEY, key).setHeader(KafkoHeaders.REPLY_TOPIC, replyTopic)
                .setHeader(KafkoHeaders.CORRELATION_ID, correlationId)
                .setHeader(KafkoHeaders.REPLY_PARTITION, replyPartition).build();
        template(context).send(request).join();
    }

    static class Repliers {
        @KafkoListener(id = "echo", topics = "requests")
        @SendTo
        String echo(String text) {
            INVOKED.add(text);
            return text.toUpperCase();
        }

        @KafkoListener(id = "split", topics = "split-requests")
        @SendTo("")
        List<String> split(String text) {
            return List.of(text.split(","));
        }

        @KafkoListener(id = "named", topics = "named-requests")
        @SendTo("${app.replies}")
        String named(String text) {
            return text.toUpperCase();
        }

        @KafkoListener(id = "spel", topics = "spel-requests")
        @SendTo("#{'spel-' + 'replies'}")
        String spel(String text) {
            return text.toUpperCase();
        }

        @KafkoListener(id = "routed", topics = "routed-requests")
        @SendTo
        Message<String> routed(String text) {
            return MessageBuilder.withPayload(text).setHeader(KafkoHeaders.TOPIC, "routed-replies").build();
        }

        @KafkoListener(id = "framed", topics = "framed-requests")
        @SendTo
        Message<String> framed(String text) {
            return MessageBuilder.withPayload(text).build();
        }

        @KafkoListener(id = "pinned", topics = "pinned-requests")
        @SendTo
        Message<String> pinned(String text) {
            return MessageBuilder.withPayload(text).setHeader(KafkoHeaders.PARTITION, 0).build();
        }

        @KafkoListener(id = "self-routed", topics = "self-routed-requests")
        @SendTo
        Message<String> selfRouted(String text) {
            return MessageBuilder.withPayload(text).setHeader(KafkoHeaders.TOPIC, "partitioned-replies").build();
        }
    }

    static class BatchReplier {
        @KafkoListener(id = "batch-replier", topics = "batch-requests", batch = "true")
        @SendTo
        String replies(List<String> texts) {
            return String.join(",", texts);
        }
    }
}
