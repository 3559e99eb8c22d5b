package dev.kafko.spring.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Header;
import dev.kafko.Headers;
import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.RecordPosition;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.SendResult;
import dev.kafko.spring.support.micrometer.KafkoRecordSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.support.MessageBuilder;

/**
 * The template's own decisions, against a {@link LogBackend} double whose producers fail as a test tells them: which
 * failure the producer listener is told of, when a cached producer is dropped, what a send's duration counts, which
 * headers a propagating observation replaces, and the checks of its arguments. (Found by mutation testing: each test
 * fails with the change it names.)
 */
class KafkoTemplateBackendDoubleTest {

    private final DoubleBackend backend = new DoubleBackend();
    private final KafkoTemplate<Object, Object> template = new KafkoTemplate<>(backend,
            new RecordMessageConverter(new CompositeMessageConverter(List.of(new StringMessageConverter()))));

    @Test
    void anIllegalDefaultTopicSetOnTheTemplateItselfIsRefused() {
        // without the setter's own check the name would be taken, and sendDefault would fail only later
        assertThatThrownBy(() -> template.setDefaultTopic("orders/eu")).isInstanceOf(InvalidNameException.class)
                .hasMessageContaining("orders/eu");
        assertThat(template.getDefaultTopic()).isNull();
        template.setDefaultTopic("orders");
        template.setDefaultTopic(null);
        assertThat(template.getDefaultTopic()).isNull();
    }

    @Test
    void aMessageWithoutATopicGoesToTheDefaultTopicAndAKafkoNullPayloadIsATombstone() {
        assertThatThrownBy(() -> template.send(MessageBuilder.withPayload("v").build()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(KafkoHeaders.TOPIC)
                .hasMessageContaining("kafko.template.default-topic");
        template.setDefaultTopic("fallback");

        SendResult<Object, Object> sent = template.send(MessageBuilder.withPayload(KafkoNull.INSTANCE)
                .setHeader(KafkoHeaders.KEY, "k").build()).join();

        assertThat(sent.topic()).isEqualTo("fallback");
        assertThat(sent.key()).isEqualTo("k");
        assertThat(sent.value()).isNull();
    }

    @Test
    void aTimestampOfZeroIsTheEpochAndIsSentAsItIs() {
        // Kafka refuses only negative timestamps: 0 (1970-01-01T00:00Z) is a timestamp like any other
        SendResult<Object, Object> sent = template.send("t", 0, 0L, "k", "v").join();
        SendResult<Object, Object> byHeader = template.send(MessageBuilder.withPayload("w")
                .setHeader(KafkoHeaders.TOPIC, "t").setHeader(KafkoHeaders.TIMESTAMP, 0L).build()).join();

        assertThat(sent.timestamp()).isZero();
        assertThat(byHeader.timestamp()).isZero();
        assertThat(backend.timestamps).containsExactly(0L, 0L);
    }

    @Test
    void aSendsDurationIsTheTimeFromTheCallToItsOutcomeWhetherItSucceedsOrFails() {
        List<Long> durations = new CopyOnWriteArrayList<>();
        template.setInstrumentation(new KafkoInstrumentation() {
            @Override
            public void sendCompleted(String topic, long nanos, @Nullable Throwable failure) {
                durations.add(nanos);
            }
        });
        long before = System.nanoTime();
        template.send("t", "ok").join();
        backend.nextFailure = new IOException("disk");
        assertThat(template.send("t", "fails")).isCompletedExceptionally();
        long elapsed = System.nanoTime() - before;

        // counted from a start of 0 (or added to it) a duration would be about System.nanoTime() itself
        assertThat(durations).hasSize(2).allSatisfy(d -> assertThat(d).isBetween(0L, elapsed));
    }

    @Test
    void theProducerListenerIsToldOfTheFailureItselfNotOfItsCauseNorOfTheWrapperAroundIt() {
        List<Throwable> told = new CopyOnWriteArrayList<>();
        List<Integer> partitions = new CopyOnWriteArrayList<>();
        template.setProducerListener(new ProducerListener<>() {
            @Override
            public void onError(String topic, @Nullable Integer partition, @Nullable Object key, @Nullable Object value,
                                Throwable exception) {
                told.add(exception);
                partitions.add(partition == null ? -1 : partition);
            }
        });
        IllegalStateException direct = new IllegalStateException("refused", new IOException("below it"));
        IOException wrapped = new IOException("disk");

        backend.nextFailure = direct;
        CompletableFuture<SendResult<Object, Object>> first = template.send("t", "a");
        backend.nextFailure = new CompletionException(wrapped);
        CompletableFuture<SendResult<Object, Object>> second = template.send("t", 0, "k", "b");

        assertThat(told).containsExactly(direct, wrapped);
        assertThat(partitions).containsExactly(-1, 0); // the partition the send named, if any
        assertThatThrownBy(first::join).isInstanceOf(CompletionException.class).cause().isSameAs(direct);
        assertThatThrownBy(second::join).isInstanceOf(CompletionException.class).cause().isSameAs(wrapped);
    }

    @Test
    void aSendThatFailsLaterBecauseItsTopicWasDeletedMakesTheNextSendFindTheTopicAnew() {
        template.send("t", "a").join();
        backend.nextFailure = new UnknownTopicException("topic 't' was deleted");
        assertThat(template.send("t", "b")).isCompletedExceptionally();
        template.send("t", "c").join();
        assertThat(backend.producersMade).as("a new producer after the deletion").isEqualTo(2);

        backend.nextFailure = new IOException("disk");
        assertThat(template.send("t", "d")).isCompletedExceptionally();
        template.send("t", "e").join();
        assertThat(backend.producersMade).as("another failure keeps the producer").isEqualTo(2);
    }

    @Test
    void aFlushThatFindsItsTopicDeletedMakesTheNextSendFindTheTopicAnew() {
        template.send("t", "a").join();
        backend.flushFailure = new UnknownTopicException("topic 't' was deleted");
        template.flush();
        backend.flushFailure = null;
        template.send("t", "b").join();

        assertThat(backend.producersMade).isEqualTo(2);
    }

    @Test
    void aPropagatingObservationReplacesTheMessagesHeadersOfItsNamesAndKeepsTheOthers() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<KafkoRecordSenderContext>() {
            @Override
            public void onStart(KafkoRecordSenderContext context) {
                context.getSetter().set(context.getCarrier(), "traceparent", "00-new");
                context.getSetter().set(context.getCarrier(), "tracestate", "k=v");
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof KafkoRecordSenderContext;
            }
        });
        template.setObservationRegistry(registry);

        template.send(MessageBuilder.withPayload("v").setHeader(KafkoHeaders.TOPIC, "t")
                .setHeader("tenant", "eu").setHeader("traceparent", "00-old").setHeader("source", "web").build())
                .join();

        // a message's headers come in no set order
        assertThat(backend.headers.get(0)).extracting(Header::key, Header::valueAsString)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("tenant", "eu"),
                        org.assertj.core.groups.Tuple.tuple("source", "web"),
                        org.assertj.core.groups.Tuple.tuple("traceparent", "00-new"),
                        org.assertj.core.groups.Tuple.tuple("tracestate", "k=v"));

        // a send without headers of its own: the propagated ones alone (more of them than the one room counted for
        // the value's type)
        template.send("t", "plain").join();
        assertThat(backend.headers.get(1)).extracting(Header::key, Header::valueAsString).containsExactly(
                org.assertj.core.groups.Tuple.tuple("traceparent", "00-new"),
                org.assertj.core.groups.Tuple.tuple("tracestate", "k=v"));
    }

    /** A backend of one-partition topics that writes nothing: its producers fail a send or a flush when told to. */
    @Test
    void anObservationHandlerThatThrowsAtTheStopFailsTheSendsFutureInsteadOfLeavingItIncomplete() {
        IllegalStateException broken = new IllegalStateException("tracer closed");
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                throw broken;
            }
        });
        template.setObservationRegistry(registry);

        CompletableFuture<SendResult<Object, Object>> written = template.send("t", "ok");
        backend.nextFailure = new IOException("disk");
        CompletableFuture<SendResult<Object, Object>> failed = template.send("t", "fails");

        // what reported the outcome failed: the future says so, rather than never completing
        assertThat(written).isCompletedExceptionally();
        assertThat(written.handle((r, e) -> e).join()).isSameAs(broken);
        assertThat(failed).isCompletedExceptionally();
        assertThat(failed.handle((r, e) -> e).join()).isSameAs(broken);
    }

    private static final class DoubleBackend extends SendOnlyBackend {
        volatile @Nullable Throwable nextFailure;
        volatile @Nullable RuntimeException flushFailure;
        volatile int producersMade;
        final List<Long> timestamps = new CopyOnWriteArrayList<>();
        final List<List<Header>> headers = new CopyOnWriteArrayList<>();

        @Override
        public BackendProducer producer(String topic) {
            producersMade++;
            return new BackendProducer() {
                private long next;

                @Override
                public String topic() {
                    return topic;
                }

                @Override
                public CompletableFuture<RecordPosition> send(@Nullable Integer partition, byte @Nullable [] key,
                                                              byte @Nullable [] value, Headers recordHeaders,
                                                              long timestamp) {
                    Throwable failure = nextFailure;
                    nextFailure = null;
                    if (failure != null) {
                        return CompletableFuture.failedFuture(failure);
                    }
                    timestamps.add(timestamp);
                    List<Header> copy = new ArrayList<>();
                    recordHeaders.forEach(copy::add);
                    headers.add(copy);
                    return CompletableFuture.completedFuture(new RecordPosition(0, next++));
                }

                @Override
                public void flush() {
                    RuntimeException failure = flushFailure;
                    if (failure != null) {
                        throw failure;
                    }
                }
            };
        }

        @Override
        public void checkTopicName(String topic) {
            Kafko.checkName("topic", topic);
        }

        @Override
        public long currentTimeMillis() {
            return 1_700_000_000_000L;
        }
    }
}
