package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.OutgoingRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.annotation.KafkoHandler;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.util.MimeType;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Claims of the README's sections on listener methods, class-level listeners, return values, listener attributes,
 * received headers, containers at run time, seeking, values and keys and send results, each test quoting the
 * sentence it checks.
 */
class ReadmeClaimsListenersTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    /** Three attempts, then the dead-letter topic; a {@link RetryListener} bean hears every failed attempt. */
    private final ApplicationContextRunner retrying = runner.withPropertyValues("kafko.listener.retry.max-attempts=3",
            "kafko.listener.dead-letter.enabled=true").withBean(Attempts.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    // Listener methods

    /**
     * "A batch listener's {@code @Valid List} is handed to the validator whole, as in spring-kafka: ... a
     * {@code Validator} of your own is called with the list, not its elements (one that refuses it fails the batch as
     * a conversion failure)". The README said the list was not validated at all: a validator that refuses it
     * dead-letters every batch.
     */
    @Test
    void aBatchListenersValidListIsHandedToTheValidatorWhole() {
        retrying.withBean(RefusingValidator.class).withBean(ValidatedBatch.class).run(context -> {
            template(context).send("validated-batch", "refused").join();
            assertThat(KafkoTestUtils.records(context, "validated-batch.DLT", 1, WAIT)).hasSize(1);
            assertThat(SEEN).containsExactly("validate ArrayList", "attempt");
        });
    }

    /**
     * "Topic, group and {@code @SendTo} names are checked against the naming rule when the listener is registered,
     * before anything starts: a bad one fails start-up naming the listener."
     */
    @Test
    void aSendToNameOutsideTheNamingRuleFailsStartUpNamingTheListener() {
        runner.withBean(BadSendTo.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("badReply").hasStackTraceContaining("no good"));
    }

    // Class-level listeners

    /**
     * "a record sent as a {@code String} or {@code byte[]} (no such header) to a {@code String} handler, else a
     * {@code byte[]} one".
     */
    @Test
    void aRecordWithoutATypeHeaderGoesToTheByteArrayHandlerWhenThereIsNoStringOne() {
        runner.withBean(BytesHandler.class).run(context -> {
            template(context).send("bytes-handler", "plain text").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("bytes plain text");
        });
    }

    /**
     * "one that takes only a {@code KafkoRecord} has no payload, and is called only as the default" and "The default
     * id is the bean name."
     */
    @Test
    void aHandlerOfOnlyAKafkoRecordIsCalledOnlyAsTheDefaultAndTheIdIsTheBeanName() {
        runner.withBean("recordsByDefault", RecordDefault.class).run(context -> {
            assertThat(context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainerIds())
                    .containsExactly("recordsByDefault");
            template(context).send("record-default", "text").join();
            template(context).send("record-default", 42L).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("text text", "record 42");
        });
    }

    /**
     * "A record whose {@code kafko_type} names a class no longer on the class path goes to the default handler (JSON
     * is not tried against the other handlers)."
     */
    @Test
    void aRecordOfAClassNoLongerOnTheClassPathGoesToTheDefaultHandler() {
        runner.withBean(GoneClassHandlers.class).run(context -> {
            Headers renamed = Headers.of(dev.kafko.Header.of(KafkoHeaders.TYPE, "com.example.Renamed"));
            context.getBean(Kafko.class).producer("gone-class").send(OutgoingRecord.of(null, bytes("{\"id\":\"o1\"}"),
                    renamed)).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("default {\"id\":\"o1\"}");
        });
    }

    // Return values, @SendTo and asynchronous listeners

    /**
     * "{@code @SendTo} sends a returned collection (any {@code Iterable}) as a record per element ({@code null}
     * elements skipped)".
     */
    @Test
    void aReturnedCollectionIsSentARecordPerElementSkippingNulls() {
        runner.withBean(ReturnsList.class).run(context -> {
            template(context).send("list-in", "x").join();
            assertThat(values(KafkoTestUtils.records(context, "list-out", 2, WAIT))).containsExactly("a", "b");
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(KafkoTestUtils.records(context, "list-out")).hasSize(2);
        });
    }

    /**
     * "A method that returns {@code null} sends nothing (a filter: no tombstone is written), and an {@code Optional}
     * is sent as its value (an empty one sends nothing)."
     */
    @Test
    void nullAndAnEmptyOptionalSendNothingAndAnOptionalIsSentAsItsValue() {
        runner.withBean(ReturnsOptional.class).run(context -> {
            template(context).send("optional-in", "keep").join();
            template(context).send("optional-in", "drop").join();
            template(context).send("nullable-in", "drop").join();
            template(context).send("nullable-in", "keep").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(values(KafkoTestUtils.records(context, "optional-out"))).containsExactly("KEEP");
            assertThat(values(KafkoTestUtils.records(context, "nullable-out"))).containsExactly("KEEP");
        });
    }

    /**
     * "a method declared to return a {@code Flux} fails start-up, and one declared as {@code Object} that returns one
     * fails the record".
     */
    @Test
    void aFluxReturnedAsAnObjectFailsTheRecord() {
        retrying.withBean(ObjectFlux.class).run(context -> {
            assertThat(context).hasNotFailed();
            template(context).send("object-flux", "x").join();
            assertThat(KafkoTestUtils.records(context, "object-flux.DLT", 1, WAIT)).hasSize(1);
            assertThat(context.getBean(Kafko.class).topics()).doesNotContain("object-flux-out");
        });
    }

    /**
     * "treats a stage that fails like a throw with the stage's cause (retries, then recovery)".
     */
    @Test
    void aFailedCompletableFutureIsRetriedThenRecoveredWithItsCause() {
        retrying.withBean(FailingFuture.class).run(context -> {
            template(context).send("failing-future", "x").join();
            KafkoRecord dead = KafkoTestUtils.records(context, "failing-future.DLT", 1, WAIT).get(0);
            assertThat(text(dead.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_FQCN)))
                    .isEqualTo(IllegalArgumentException.class.getName());
            assertThat(text(dead.headers().lastValue(KafkoHeaders.DLT_EXCEPTION_MESSAGE))).isEqualTo("bad x");
            assertThat(SEEN).containsExactly("attempt", "attempt", "attempt");
        });
    }

    /** "a batch listener's replies have no key." */
    @Test
    void aBatchListenersRepliesHaveNoKey() {
        runner.withBean(BatchReplier.class).run(context -> {
            template(context).send("batch-reply-in", "k", "v").join();
            KafkoRecord reply = KafkoTestUtils.records(context, "batch-reply-out", 1, WAIT).get(0);
            assertThat(reply.key()).isNull();
            assertThat(text(reply.value())).isEqualTo("1");
        });
    }

    /**
     * "A returned {@code Message} has the key of its own {@code KafkoHeaders.KEY} header, and none without one, as in
     * spring-kafka".
     */
    @Test
    void aReturnedMessageHasTheKeyOfItsOwnKeyHeaderAndNoneWithout() {
        runner.withBean(MessageReplier.class).run(context -> {
            template(context).send("message-reply-in", "in-key", "keyed").join();
            template(context).send("message-reply-in", "in-key", "plain").join();
            List<KafkoRecord> replies = KafkoTestUtils.records(context, "message-reply-out", 2, WAIT);
            assertThat(text(replies.get(0).key())).isEqualTo("own-key");
            assertThat(replies.get(1).key()).isNull();
        });
    }

    // Listener attributes

    /**
     * "{@code info = "..."} ... every message the listener is given (a batch's too) carries it as the
     * {@code KafkoHeaders.LISTENER_INFO} header ... the header's value is a {@code String}".
     */
    @Test
    void aBatchListenersMessageCarriesTheListenerInfoAsAString() {
        runner.withBean(InfoBatch.class).run(context -> {
            template(context).send("info-batch", "v").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("info java.lang.String tenant-7");
        });
    }

    /**
     * "spring-kafka also registers a {@code List} of the group's containers as the bean {@code <name>}; kafko does
     * not."
     */
    @Test
    void aContainerGroupIsNotRegisteredAsAListBeanUnderItsName() {
        runner.withBean(Grouped.class).run(context -> {
            assertThat(context).hasBean("tenants.group");
            assertThat(context.containsBean("tenants")).isFalse();
        });
    }

    /** "An unknown bean name fails start-up naming the listener and the beans of that type there are." */
    @Test
    void anUnknownFilterBeanFailsStartUpNamingTheListenerAndTheFiltersThereAre() {
        runner.withBean("dropAll", RecordFilterStrategy.class, () -> record -> true).withBean(UnknownFilter.class)
                .run(context -> assertThat(context).getFailure().hasStackTraceContaining("filtered")
                        .hasStackTraceContaining("nope").hasStackTraceContaining("dropAll"));
    }

    /**
     * "A batch listener gets its batch without the discarded records ..., and is not invoked when all are discarded,
     * under the manual modes too, where spring-kafka hands it an empty list to acknowledge".
     */
    @Test
    void aManualBatchListenerIsNotInvokedWhenEveryRecordIsDiscarded() {
        runner.withBean("dropSome", RecordFilterStrategy.class, () -> record -> {
            String value = text(record.value());
            SEEN.add("filter " + value);
            return value.startsWith("drop");
        }).withBean(FilteredManualBatch.class).run(context -> {
            template(context).send("filtered-batch", "drop-1").join();
            template(context).send("filtered-batch", "drop-2").join();
            await().atMost(WAIT).until(() -> SEEN.contains("filter drop-2"));
            template(context).send("filtered-batch", "keep").join();
            await().atMost(WAIT).until(() -> SEEN.contains("batch [keep]"));
            assertThat(SEEN).containsExactly("filter drop-1", "filter drop-2", "filter keep", "batch [keep]");
            await().atMost(WAIT).until(() -> position(context, "filtered-batch", "filteredBatch") == 3);
        });
    }

    /**
     * "{@code properties = {...}} ... each entry ... is read as a {@code .properties} file: {@code key=value},
     * {@code key:value} or {@code key value} a line, comments skipped ...; a key given twice takes the last value".
     */
    @Test
    void listenerPropertiesAreReadAsAPropertiesFile() {
        runner.withBean(PropertiesSyntax.class).run(context -> {
            assertThat(context).hasNotFailed();
            ConcurrentMessageListenerContainer container = (ConcurrentMessageListenerContainer) context
                    .getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("propsSyntax");
            assertThat(container.getContainerProperties().maxPollRecords()).isEqualTo(7);
        });
    }

    /**
     * "The factory's {@code setBatchListener(true)} makes its listeners without a {@code batch} attribute batch
     * listeners ...; one with {@code @RetryableTopic}, or a class-level one, then fails start-up until given
     * {@code batch = "false"}."
     */
    @Test
    void aClassLevelListenerOfABatchFactoryStartsWhenGivenBatchFalse() {
        runner.withUserConfiguration(BatchFactory.class).withBean(ClassLevelOnBatchFactory.class).run(context -> {
            assertThat(context).hasNotFailed();
            template(context).send("class-on-batch", "hello").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("text hello");
        });
        runner.withUserConfiguration(BatchFactory.class).withBean(ClassLevelOnBatchFactoryNoAttribute.class)
                .run(context -> assertThat(context).hasFailed());
    }

    // Received headers and payload conversion

    /**
     * "(a header named {@code id} or {@code timestamp}, which only another producer writes, is its bytes too, so
     * {@code MessageHeaders.getId()} and {@code getTimestamp()} throw for such a record, as with spring-kafka: read it
     * with {@code @Header("id") String})".
     */
    @Test
    void aForeignIdHeaderIsBytesAndReadsAsText() {
        runner.withBean(IdHeaderReader.class).run(context -> {
            context.getBean(Kafko.class).producer("id-header").send(OutgoingRecord.of(null, bytes("v"),
                    Headers.of(dev.kafko.Header.of("id", "order-17")))).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("id order-17 byte[]");
        });
    }

    /**
     * "A parameter declared {@code Object}, and the payload of a {@code Message<?>}, get the stored bytes
     * ({@code byte[]}): kafko does not guess a type."
     */
    @Test
    void anObjectParameterGetsTheStoredBytes() {
        runner.withBean(ObjectPayload.class).run(context -> {
            template(context).send("object-payload", new ObjectMarker("x")).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("object byte[] {\"name\":\"x\"}");
        });
    }

    // Containers at run time

    /**
     * "{@code factory.createListenerContainer(id, groupId, topics, ...)} ... topic and group names are checked here".
     */
    @Test
    void aContainerMadeInCodeChecksItsTopicAndGroupNames() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            assertThatThrownBy(() -> factory.createListenerContainer("coded", "g", List.of("no good"),
                    (records, ack) -> { })).hasMessageContaining("no good");
            assertThatThrownBy(() -> factory.createListenerContainer("coded", "bad group", List.of("fine"),
                    (records, ack) -> { })).hasMessageContaining("bad group");
        });
    }

    /**
     * "{@code registry.unregisterListenerContainer(id)} stops it and removes it with its meters ..., so that its id
     * can be used again".
     */
    @Test
    void anUnregisteredContainersIdCanBeUsedAgain() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.registerListenerContainer(factory.createListenerContainer("tenant-1", "tenant-1",
                    List.of("tenant-in"), (records, ack) -> { }), true);
            registry.unregisterListenerContainer("tenant-1");
            ConcurrentMessageListenerContainer again = factory.createListenerContainer("tenant-1", "tenant-1",
                    List.of("tenant-in"), (records, ack) -> records.forEach(r -> SEEN.add(text(r.value()))));
            registry.registerListenerContainer(again, true);
            template(context).send("tenant-in", "second").join();
            await().atMost(WAIT).until(() -> SEEN.contains("second"));
            assertThat(registry.getListenerContainer("tenant-1")).isSameAs(again);
        });
    }

    /**
     * "a request is not checked against the container's topics and their partitions (one for a partition the
     * container never reads is kept, and {@code isPartitionPauseRequested} says so, but pauses nothing), and
     * {@code isPartitionPaused} is false while the container is stopped."
     */
    @Test
    void aPartitionPauseOfAPartitionNeverReadIsKeptAndNothingIsPausedWhileStopped() {
        runner.withBean(Pausable.class).run(context -> {
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("pausable");
            container.pausePartition("elsewhere", 3);
            container.pausePartition("pausable", 0);
            assertThat(container.isPartitionPauseRequested("elsewhere", 3)).isTrue();
            await().atMost(WAIT).until(() -> container.isPartitionPaused("pausable", 0));
            template(context).send("pausable", "held").join();
            container.stop();
            assertThat(container.isPartitionPauseRequested("pausable", 0)).isTrue();
            assertThat(container.isPartitionPaused("pausable", 0)).isFalse();
            assertThat(SEEN).isEmpty();
        });
    }

    // Seeking and replay

    /**
     * "each member of its group hands it a callback through {@code registerSeekCallback} when it starts, which seeks
     * from any thread until the member stops ({@code unregisterSeekCallback}; later seeks throw
     * {@code IllegalStateException})" and "a partition the topic does not have is refused when asked for".
     */
    @Test
    void aSeekCallbackRefusesAPartitionTheTopicLacksAndEverySeekOnceItsMemberStopped() {
        runner.withBean(Seeker.class).run(context -> {
            Seeker seeker = context.getBean(Seeker.class);
            await().atMost(WAIT).until(() -> seeker.callback != null);
            ConsumerSeekAware.ConsumerSeekCallback callback = seeker.callback;
            assertThatThrownBy(() -> callback.seek("seeker", 5, 0)).isInstanceOf(RuntimeException.class);
            context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("seeker").stop();
            assertThat(seeker.unregistered).isTrue();
            assertThatThrownBy(() -> callback.seek("seeker", 0, 0)).isInstanceOf(IllegalStateException.class);
        });
    }

    // Values and keys

    /**
     * "a key that is a number, boolean, character, enum (by {@code name()}) or {@code UUID} is stored as its text,
     * which {@code @Header(RECEIVED_KEY)} of that type parses back ({@code "SECONDS"}, not the JSON
     * {@code "\"SECONDS\""})".
     */
    @Test
    void characterAndBooleanKeysAreStoredAsTextAndParsedBack() {
        runner.withBean(SimpleKeys.class).run(context -> {
            template(context).send("char-key", 'x', "v").join();
            template(context).send("bool-key", true, "v").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(text(KafkoTestUtils.records(context, "char-key").get(0).key())).isEqualTo("x");
            assertThat(text(KafkoTestUtils.records(context, "bool-key").get(0).key())).isEqualTo("true");
            assertThat(SEEN).containsExactlyInAnyOrder("char x", "bool true");
        });
    }

    /**
     * "a required payload parameter, and a typed {@code Message<String>} (or {@code Message<Order>}), refuse it as a
     * conversion failure (no retries)".
     */
    @Test
    void aTypedMessageRefusesATombstoneWithoutRetries() {
        retrying.withBean(TypedMessage.class).run(context -> {
            context.getBean(Kafko.class).producer("typed-message").send(bytes("k"), null).join();
            assertThat(KafkoTestUtils.records(context, "typed-message.DLT", 1, WAIT)).hasSize(1);
            assertThat(SEEN).as("one failed attempt, no retries").containsExactly("attempt");
        });
    }

    /**
     * "a {@code contentType} (a {@code MimeType} or its text) is written as its text, as spring-kafka writes it, and
     * Spring's {@code id} and {@code timestamp} are not written."
     */
    @Test
    void aMimeTypeIsWrittenAsItsTextAndSpringsIdAndTimestampAreNot() {
        runner.run(context -> {
            template(context).send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "mime")
                    .setHeader("contentType", MimeType.valueOf("text/plain")).build()).join();
            KafkoRecord record = KafkoTestUtils.records(context, "mime").get(0);
            assertThat(text(record.headers().lastValue("contentType"))).isEqualTo("text/plain");
            assertThat(record.headers().lastValue("id")).isNull();
            assertThat(record.headers().lastValue("timestamp")).isNull();
        });
    }

    // Send results, producer listeners and deleted topics

    /**
     * "Argument errors (a value the converter cannot write, a topic name outside the naming rule, a partition out of
     * range, no default topic), an unknown topic when {@code kafko.auto-create-topics} is false
     * ({@code UnknownTopicException}) ... are thrown by the call itself."
     */
    @Test
    void argumentErrorsAndAnUnknownTopicAreThrownByTheCall() {
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.known.partitions=2").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            assertThatThrownBy(() -> template.send("no good", "v")).isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> template.send("known", 2, null, "v")).isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> template.sendDefault("v")).isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> template.send("unknown", "v")).isInstanceOf(UnknownTopicException.class);
        });
    }

    /**
     * "Received headers ({@code kafko_received*}, the offset, the acknowledgment) are never written, so a received
     * {@code Message} can be forwarded by setting {@code KafkoHeaders.TOPIC} (and {@code KafkoHeaders.KEY} to keep a
     * key: the received key is not reused)."
     */
    @Test
    void aForwardedReceivedMessageCarriesNoReceivedHeadersAndNoKey() {
        runner.withBean(Forwarder.class).run(context -> {
            template(context).send(MessageBuilder.withPayload(new Ordered("o-1")).setHeader(KafkoHeaders.TOPIC,
                    "forward-in").setHeader(KafkoHeaders.KEY, "k").setHeader("own", "mine").build()).join();
            KafkoRecord forwarded = KafkoTestUtils.records(context, "forward-out", 1, WAIT).get(0);
            assertThat(forwarded.key()).isNull();
            assertThat(text(forwarded.value())).isEqualTo("{\"id\":\"o-1\"}");
            assertThat(text(forwarded.headers().lastValue(KafkoHeaders.TYPE))).isEqualTo(Ordered.class.getName());
            assertThat(forwarded.headers().lastValue(KafkoHeaders.LISTENER_INFO)).as("info is not carried on").isNull();
            assertThat(text(forwarded.headers().lastValue("own"))).isEqualTo("mine");
            assertThat(forwarded.headers().asList()).extracting(dev.kafko.Header::key)
                    .noneMatch(k -> k.startsWith("kafko_received") || k.equals(KafkoHeaders.OFFSET)
                            || k.equals(KafkoHeaders.ACKNOWLEDGMENT));
        });
    }

    /**
     * "A {@code KafkoTemplate} of the application's own (which makes the auto-configured one back off) gets neither
     * the {@code ProducerListener} bean nor the {@code kafko.template.send} timer by itself".
     */
    @Test
    void anApplicationsOwnTemplateDoesNotGetTheProducerListenerBean() {
        runner.withUserConfiguration(OwnTemplate.class).run(context -> {
            template(context).send("own-template", "v").join();
            assertThat(SEEN).isEmpty();
            context.getBean(KafkoTemplate.class).setProducerListener(context.getBean(Heard.class));
            template(context).send("own-template", "w").join();
            assertThat(SEEN).containsExactly("success own-template");
        });
    }

    /**
     * "its {@code onError(topic, partition, key, value, exception)} [hears] every one that failed" and "Argument
     * errors ... are thrown by the call itself".
     */
    @Test
    void aProducerListenerHearsASendThatTheCallRefused() {
        runner.withBean(Heard.class).run(context -> {
            assertThatThrownBy(() -> template(context).send("no good", "v")).isInstanceOf(RuntimeException.class);
            assertThat(SEEN).containsExactly("error no good");
        });
    }

    /**
     * "as a batch listener's {@code @Header(RECEIVED_KEY) List<T>} does each key (a key that does not convert is a
     * conversion failure of the batch: no retries)".
     */
    @Test
    void aBatchKeyThatDoesNotConvertFailsTheBatchWithoutRetries() {
        retrying.withBean(BatchIntKeys.class).run(context -> {
            template(context).send("int-keys", "abc", "v").join();
            assertThat(KafkoTestUtils.records(context, "int-keys.DLT", 1, WAIT)).hasSize(1);
            assertThat(SEEN).containsExactly("attempt");
        });
    }

    /**
     * "{@code errorHandler} ... with the delivery's message: a record's value as {@code byte[]} ({@code KafkoNull}
     * for a tombstone) with every received header".
     */
    @Test
    void aListenerErrorHandlerGetsKafkoNullForATombstoneWhoseRequiredPayloadFailed() {
        runner.withBean("noteTombstone", KafkoListenerErrorHandler.class, () -> (message, exception) -> {
            SEEN.add("handler " + message.getPayload().getClass().getSimpleName() + " "
                    + text((byte[]) message.getHeaders().get(KafkoHeaders.RECEIVED_KEY)));
            return null;
        }).withBean(TombstoneRefused.class).run(context -> {
            context.getBean(Kafko.class).producer("tombstone-refused").send(bytes("gone"), null).join();
            context.getBean(Kafko.class).producer("tombstone-refused").send(bytes("here"), bytes("v")).join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("handler KafkoNull gone", "value v");
        });
    }

    /**
     * "{@code KafkoListenerContainerFactory.setRecordFilterStrategy} sets one for every listener of a factory (the
     * plain listeners it builds containers for included)".
     */
    @Test
    void aFactorysFilterAppliesToAContainerMadeInCode() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class).copy();
            factory.setRecordFilterStrategy(record -> text(record.value()).startsWith("drop"));
            ConcurrentMessageListenerContainer container = factory.createListenerContainer("coded-filtered",
                    "coded-filtered", List.of("coded-filtered"),
                    (records, ack) -> records.forEach(r -> SEEN.add(text(r.value()))));
            context.getBean(KafkoListenerEndpointRegistry.class).registerListenerContainer(container, true);
            template(context).send("coded-filtered", "drop-1").join();
            template(context).send("coded-filtered", "keep").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(SEEN).containsExactly("keep");
        });
    }

    // support

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static @Nullable String text(byte @Nullable [] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    static List<String> values(List<KafkoRecord> records) {
        List<String> out = new ArrayList<>();
        for (KafkoRecord r : records) {
            out.add(text(r.value()));
        }
        return out;
    }

    static long position(ApplicationContext context, String topic, String group) {
        return context.getBean(Kafko.class).groupInfo(topic, group).committed().getOrDefault(0, 0L);
    }

    /** Hears each failed attempt of a record. */
    static class Attempts implements RetryListener {
        @Override
        public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
            SEEN.add("attempt");
        }
    }

    static class RefusingValidator implements Validator {
        @Override
        public boolean supports(Class<?> clazz) {
            return true;
        }

        @Override
        public void validate(Object target, Errors errors) {
            SEEN.add("validate " + target.getClass().getSimpleName());
            errors.reject("refused", "refused by the test");
        }
    }

    static class ValidatedBatch {
        @KafkoListener(id = "validatedBatch", topics = "validated-batch", batch = "true")
        void on(@jakarta.validation.Valid List<@jakarta.validation.Valid String> values) {
            SEEN.add("batch " + values);
        }
    }

    static class BadSendTo {
        @KafkoListener(id = "badReply", topics = "bad-reply-in")
        @SendTo("no good")
        String on(String value) {
            return value;
        }
    }

    @KafkoListener(id = "bytesHandler", topics = "bytes-handler")
    static class BytesHandler {
        @KafkoHandler
        void bytes(byte[] value) {
            SEEN.add("bytes " + text(value));
        }

        @KafkoHandler
        void number(Long value) {
            SEEN.add("number " + value);
        }
    }

    @KafkoListener(topics = "record-default")
    static class RecordDefault {
        @KafkoHandler
        void text(String value) {
            SEEN.add("text " + value);
        }

        @KafkoHandler(isDefault = true)
        void record(KafkoRecord record) {
            SEEN.add("record " + ReadmeClaimsListenersTest.text(record.value()));
        }
    }

    record Ordered(String id) {
    }

    @KafkoListener(id = "goneClass", topics = "gone-class")
    static class GoneClassHandlers {
        @KafkoHandler
        void ordered(Ordered order) {
            SEEN.add("ordered " + order.id());
        }

        @KafkoHandler(isDefault = true)
        void fallback(byte[] raw) {
            SEEN.add("default " + text(raw));
        }
    }

    static class ReturnsList {
        @KafkoListener(id = "listIn", topics = "list-in")
        @SendTo("list-out")
        List<@Nullable String> on(String value) {
            return Arrays.asList("a", null, "b");
        }
    }

    static class ReturnsOptional {
        @KafkoListener(id = "optionalIn", topics = "optional-in")
        @SendTo("optional-out")
        Optional<String> optional(String value) {
            return "keep".equals(value) ? Optional.of("KEEP") : Optional.empty();
        }

        @KafkoListener(id = "nullableIn", topics = "nullable-in")
        @SendTo("nullable-out")
        @Nullable String nullable(String value) {
            return "keep".equals(value) ? "KEEP" : null;
        }
    }

    static class ObjectFlux {
        @KafkoListener(id = "objectFlux", topics = "object-flux")
        @SendTo("object-flux-out")
        Object on(String value) {
            return reactor.core.publisher.Flux.just("a", "b");
        }
    }

    static class FailingFuture {
        @KafkoListener(id = "failingFuture", topics = "failing-future")
        CompletableFuture<String> on(String value) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("bad " + value));
        }
    }

    static class BatchReplier {
        @KafkoListener(id = "batchReplier", topics = "batch-reply-in", batch = "true")
        @SendTo("batch-reply-out")
        String on(List<String> values) {
            return String.valueOf(values.size());
        }
    }

    static class MessageReplier {
        @KafkoListener(id = "messageReplier", topics = "message-reply-in")
        @SendTo("message-reply-out")
        Message<String> on(String value) {
            MessageBuilder<String> reply = MessageBuilder.withPayload(value);
            return "keyed".equals(value) ? reply.setHeader(KafkoHeaders.KEY, "own-key").build() : reply.build();
        }
    }

    static class InfoBatch {
        @KafkoListener(id = "infoBatch", topics = "info-batch", batch = "true", info = "tenant-${tenant.id:7}")
        void on(List<Message<String>> messages, @Header(KafkoHeaders.LISTENER_INFO) Object info) {
            SEEN.add("info " + info.getClass().getName() + " " + info);
        }
    }

    static class Grouped {
        @KafkoListener(id = "grouped", topics = "grouped", containerGroup = "tenants")
        void on(String value) {
        }
    }

    static class UnknownFilter {
        @KafkoListener(id = "filtered", topics = "filtered", filter = "nope")
        void on(String value) {
        }
    }

    static class FilteredManualBatch {
        @KafkoListener(id = "filteredBatch", topics = "filtered-batch", batch = "true", ackMode = "manual",
                filter = "dropSome")
        void on(List<String> values, Acknowledgment ack) {
            SEEN.add("batch " + values);
            ack.acknowledge();
        }
    }

    static class PropertiesSyntax {
        @KafkoListener(id = "propsSyntax", topics = "props-syntax",
                properties = {"max.poll.records:3", "# a comment\nauto.offset.reset earliest", "max.poll.records=7"})
        void on(String value) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BatchFactory {
        @Bean
        KafkoListenerContainerFactory batchFactory(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            KafkoListenerContainerFactory factory = kafkoListenerContainerFactory.copy();
            factory.setBatchListener(true);
            return factory;
        }
    }

    @KafkoListener(id = "classOnBatch", topics = "class-on-batch", containerFactory = "batchFactory", batch = "false")
    static class ClassLevelOnBatchFactory {
        @KafkoHandler
        void text(String value) {
            SEEN.add("text " + value);
        }
    }

    @KafkoListener(id = "classOnBatchNoAttribute", topics = "class-on-batch", containerFactory = "batchFactory")
    static class ClassLevelOnBatchFactoryNoAttribute {
        @KafkoHandler
        void text(String value) {
        }
    }

    static class IdHeaderReader {
        @KafkoListener(id = "idHeader", topics = "id-header")
        void on(@Header("id") String id, Message<?> message) {
            Object raw = message.getHeaders().get("id");
            SEEN.add("id " + id + " " + (raw instanceof byte[] ? "byte[]" : String.valueOf(raw)));
        }
    }

    record ObjectMarker(String name) {
    }

    static class ObjectPayload {
        @KafkoListener(id = "objectPayload", topics = "object-payload")
        void on(Object value) {
            SEEN.add("object " + (value instanceof byte[] raw ? "byte[] " + text(raw) : value.getClass().getName()));
        }
    }

    static class Pausable {
        @KafkoListener(id = "pausable", topics = "pausable")
        void on(String value) {
            SEEN.add(value);
        }
    }

    static class Seeker implements ConsumerSeekAware {
        volatile ConsumerSeekAware.@Nullable ConsumerSeekCallback callback;
        volatile boolean unregistered;

        @Override
        public void registerSeekCallback(ConsumerSeekCallback callback) {
            this.callback = callback;
        }

        @Override
        public void unregisterSeekCallback() {
            unregistered = true;
        }

        @KafkoListener(id = "seeker", topics = "seeker")
        void on(String value) {
        }
    }

    static class SimpleKeys {
        @KafkoListener(id = "charKey", topics = "char-key")
        void charKey(String value, @Header(KafkoHeaders.RECEIVED_KEY) Character key) {
            SEEN.add("char " + key);
        }

        @KafkoListener(id = "boolKey", topics = "bool-key")
        void boolKey(String value, @Header(KafkoHeaders.RECEIVED_KEY) boolean key) {
            SEEN.add("bool " + key);
        }
    }

    static class TypedMessage {
        @KafkoListener(id = "typedMessage", topics = "typed-message")
        void on(Message<String> message) {
            SEEN.add("message " + message.getPayload());
        }
    }

    static class Forwarder {
        @KafkoListener(id = "forwarder", topics = "forward-in", info = "forwarding")
        @SendTo("forward-out")
        Message<?> on(Message<?> message) {
            return message;
        }
    }

    /** A producer listener that notes each send it hears. */
    static class Heard implements ProducerListener<Object, Object> {
        @Override
        public void onSuccess(SendResult<Object, Object> result) {
            SEEN.add("success " + result.topic());
        }

        @Override
        public void onError(String topic, @Nullable Integer partition, @Nullable Object key, @Nullable Object value,
                            Throwable exception) {
            SEEN.add("error " + topic);
        }
    }

    static class BatchIntKeys {
        @KafkoListener(id = "intKeys", topics = "int-keys", batch = "true")
        void on(List<String> values, @Header(KafkoHeaders.RECEIVED_KEY) List<Integer> keys) {
            SEEN.add("keys " + keys);
        }
    }

    static class TombstoneRefused {
        @KafkoListener(id = "tombstoneRefused", topics = "tombstone-refused", errorHandler = "noteTombstone")
        void on(String value) {
            SEEN.add("value " + value);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnTemplate {
        @Bean
        Heard heard() {
            return new Heard();
        }

        @Bean
        KafkoTemplate<Object, Object> ownTemplate(dev.kafko.spring.core.LogBackend backend,
                dev.kafko.spring.support.RecordMessageConverter converter) {
            return new KafkoTemplate<>(backend, converter);
        }
    }
}
