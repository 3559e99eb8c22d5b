package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import dev.kafko.Headers;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.RecordPosition;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.BackendProducer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.test.KafkoTestUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A {@link DeadLetterPublishingRecoverer} with a destination resolver: dead letters routed by the failure, on the
 * partition asked for or the key's, a {@code null} destination skipping the record, a missing destination created
 * only where topics may be, and an existing one never grown.
 */
class DeadLetterDestinationResolverTest {

    static final List<String> DONE = new ArrayList<>();

    /** Bad input to {@code invalid}, anything else to {@code retry-later} on partition 0; "drop" to nowhere. */
    static final BiFunction<KafkoRecord, Exception, DeadLetterDestination> BY_FAILURE = (record, failure) -> {
        if (failure.getMessage().startsWith("drop")) {
            return null;
        }
        return failure instanceof IllegalArgumentException
                ? DeadLetterDestination.of("invalid") : DeadLetterDestination.of("retry-later", 0);
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Listeners.class)
            .withUserConfiguration(RoutedDeadLetters.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.work.partitions=3");

    @BeforeEach
    void reset() {
        synchronized (DONE) {
            DONE.clear();
        }
    }

    @Test
    void deadLettersGoWhereTheResolverSaysWithTheirHeaders() {
        runner.run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("work", 2, "k1", "bad input").join();
            template.send("work", 2, "k2", "state gone").join();
            template.send("work", 2, "k3", "drop me").join();
            template.send("work", 2, "k4", "fine").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));

            assertThat(DONE).containsExactly("fine");
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.topic("work.DLT")).isEmpty(); // the default destination is not made
            // created at the first dead letter with the record's topic's partitions
            assertThat(kafko.topic("invalid").orElseThrow().partitionCount()).isEqualTo(3);
            List<KafkoRecord> invalid = KafkoTestUtils.records(context, "invalid");
            assertThat(invalid).hasSize(1);
            KafkoRecord r = invalid.get(0);
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("k1");
            assertThat(header(r, KafkoHeaders.DLT_EXCEPTION_FQCN)).isEqualTo(IllegalArgumentException.class.getName());
            assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_TOPIC)).isEqualTo("work");
            assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_PARTITION)).isEqualTo("2");
            assertThat(header(r, KafkoHeaders.DLT_ORIGINAL_OFFSET)).isEqualTo("0");

            List<KafkoRecord> later = KafkoTestUtils.records(context, "retry-later");
            assertThat(later).extracting(KafkoRecord::partition).containsExactly(0);
            assertThat(new String(later.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("state gone");
            assertThat(header(later.get(0), KafkoHeaders.DLT_EXCEPTION_FQCN))
                    .isEqualTo(IllegalStateException.class.getName());
            // every record behind, the dropped one included, is committed
            assertThat(kafko.groupInfo("work", "work").committed()).containsEntry(2, 4L);
        });
    }

    @Test
    void aDestinationThatMayNotBeCreatedIsNamedAndNotCreated() {
        runner.withPropertyValues("kafko.auto-create-topics=false", "kafko.topics.quiet.partitions=1")
                .run(context -> {
                    template(context).send("quiet", 0, "k", "bad input").join();
                    KafkoRecord bad = KafkoTestUtils.records(context, "quiet").get(0);
                    DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(
                            context.getBean(LogBackend.class), BY_FAILURE);

                    assertThatThrownBy(() -> recoverer.recover(bad, new IllegalArgumentException("bad input"),
                            DeadLetterRecovererDecisionsTest.INVOCATION))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("'invalid', which does not exist and is not created on first use")
                            .hasMessageContaining("kafko.topics.invalid.partitions");
                    assertThat(context.getBean(Kafko.class).topic("invalid")).isEmpty();
                });
    }

    @Test
    void aPartitionTheDestinationDoesNotHaveIsLeftToTheKeyAndTheTopicIsNotGrown() {
        LogBackend backend = mock(LogBackend.class);
        BackendProducer producer = producerOf(backend, "elsewhere");
        when(backend.partitionCount("elsewhere")).thenReturn(2);
        DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(backend,
                (record, failure) -> DeadLetterDestination.of("elsewhere", 5));

        recoverer.recover(record(), new IllegalStateException("boom"), DeadLetterRecovererDecisionsTest.INVOCATION);

        verify(producer).send(isNull(), any(), any(), any(), anyLong());
        verify(backend, never()).ensureTopic(anyString(), anyInt());
    }

    @Test
    void aPartitionTheDestinationHasIsUsedAndNothingIsCheckedAtStart() {
        LogBackend backend = mock(LogBackend.class);
        BackendProducer producer = producerOf(backend, "elsewhere");
        when(backend.partitionCount("elsewhere")).thenReturn(2);
        List<String> counted = new ArrayList<>();
        DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(backend, new KafkoInstrumentation() {
            @Override
            public void deadLettered(String listenerId, String topic) {
                counted.add(listenerId + "/" + topic);
            }
        }, (record, failure) -> DeadLetterDestination.of("elsewhere", 1));

        recoverer.prepare("t");
        recoverer.prepareMatched("t");
        verify(backend, never()).ensureTopic(anyString(), anyInt());
        verify(backend, never()).partitionCount(anyString());

        recoverer.recover(record(), new IllegalStateException("boom"), DeadLetterRecovererDecisionsTest.INVOCATION);
        verify(producer).send(eq(1), any(), any(), any(), anyLong());
        assertThat(counted).containsExactly("l/t"); // counted under the record's own topic
    }

    @Test
    void aMissingDestinationIsCreatedWithThePartitionItNeeds() {
        LogBackend backend = mock(LogBackend.class);
        BackendProducer producer = producerOf(backend, "elsewhere");
        when(backend.partitionCount("elsewhere")).thenThrow(new UnknownTopicException("elsewhere"));
        when(backend.mayCreateTopic("elsewhere")).thenReturn(true);
        when(backend.partitionCount("t")).thenReturn(2);
        DeadLetterPublishingRecoverer recoverer = new DeadLetterPublishingRecoverer(backend,
                (record, failure) -> DeadLetterDestination.of("elsewhere", 4));

        recoverer.recover(record(), new IllegalStateException("boom"), DeadLetterRecovererDecisionsTest.INVOCATION);

        verify(backend).ensureTopic("elsewhere", 5);
        verify(producer).send(eq(4), any(), any(), any(), anyLong());
    }

    @Test
    void aNullResolverOrDestinationTopicIsRefusedAtOnce() {
        LogBackend backend = mock(LogBackend.class);
        assertThatThrownBy(() -> new DeadLetterPublishingRecoverer(backend,
                (BiFunction<KafkoRecord, Exception, DeadLetterDestination>) null))
                .isInstanceOf(NullPointerException.class).hasMessage("destinationResolver");
        assertThatThrownBy(() -> DeadLetterDestination.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("topic");
        assertThat(DeadLetterDestination.of("x").anyPartition()).isTrue();
        assertThat(DeadLetterDestination.of("x", 0).anyPartition()).isFalse();
    }

    /** A producer of {@code topic} on the stub backend whose sends succeed. */
    private static BackendProducer producerOf(LogBackend backend, String topic) {
        BackendProducer producer = mock(BackendProducer.class);
        when(backend.producer(topic)).thenReturn(producer);
        when(producer.send(any(), any(), any(), any(), anyLong()))
                .thenReturn(CompletableFuture.completedFuture(new RecordPosition(0, 0)));
        return producer;
    }

    private static KafkoRecord record() {
        KafkoRecord r = mock(KafkoRecord.class);
        when(r.topic()).thenReturn("t");
        when(r.partition()).thenReturn(1);
        when(r.offset()).thenReturn(7L);
        when(r.timestamp()).thenReturn(1_000L);
        when(r.value()).thenReturn(new byte[] {1});
        when(r.headers()).thenReturn(Headers.empty());
        return r;
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    private static String header(KafkoRecord record, String key) {
        return new String(record.headers().lastValue(key), StandardCharsets.UTF_8);
    }

    @Configuration(proxyBeanMethods = false)
    static class RoutedDeadLetters {
        @Bean
        KafkoErrorHandler routedErrorHandler(LogBackend backend) {
            return new DefaultErrorHandler(new FixedBackOff(0, 1), new DeadLetterPublishingRecoverer(backend, BY_FAILURE));
        }
    }

    static class Listeners {
        @KafkoListener(id = "work", topics = "work")
        void work(String value) {
            if (value.equals("bad input")) {
                throw new IllegalArgumentException("bad input");
            }
            if (value.equals("state gone")) {
                throw new IllegalStateException("state gone");
            }
            if (value.equals("drop me")) {
                throw new IllegalStateException("drop this one");
            }
            synchronized (DONE) {
                DONE.add(value);
            }
        }
    }
}
