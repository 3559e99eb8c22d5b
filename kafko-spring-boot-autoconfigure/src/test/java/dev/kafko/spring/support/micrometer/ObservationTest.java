package dev.kafko.spring.support.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.InvalidPartitionException;
import dev.kafko.RecordTooLargeException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

/** Sends and listener invocations as Micrometer observations, switched on by property. */
@ExtendWith(OutputCaptureExtension.class)
class ObservationTest {

    static final AtomicInteger ATTEMPTS = new AtomicInteger();
    static final List<String> BATCHES = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(TestObservationRegistry.class, TestObservationRegistry::create)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.t.partitions=3",
                    "kafko.topics.t.max-record-size=1KB");

    @BeforeEach
    void reset() {
        ATTEMPTS.set(0);
        BATCHES.clear();
    }

    @Test
    void sendsAreNotObservedUnlessTheTemplatePropertySaysSo() {
        runner.run(context -> {
            template(context).send("t", "k", "v").join();
            TestObservationRegistryAssert.assertThat(registry(context)).doesNotHaveAnyObservation();
        });
    }

    @Test
    void aSendIsObservedFromTheCallUntilItsRecordIsWritten() {
        runner.withPropertyValues("kafko.template.observation-enabled=true").run(context -> {
            TestObservationRegistry registry = registry(context);
            Observation request = Observation.start("request", registry);
            try (Observation.Scope ignored = request.openScope()) {
                template(context).send("t", "k", "v").join();
            }
            request.stop();
            TestObservationRegistryAssert.assertThat(registry)
                    .hasNumberOfObservationsWithNameEqualTo("kafko.template", 1)
                    .hasObservationWithNameEqualTo("kafko.template").that()
                    .hasBeenStarted().hasBeenStopped().doesNotHaveError()
                    .hasContextualNameEqualTo("t send")
                    .hasLowCardinalityKeyValue("kafko.template.name", "kafkoTemplate")
                    .hasLowCardinalityKeyValue("messaging.system", "kafko")
                    .hasLowCardinalityKeyValue("messaging.operation", "publish")
                    .hasLowCardinalityKeyValue("messaging.destination.kind", "topic")
                    .hasLowCardinalityKeyValue("messaging.destination.name", "t")
                    .hasParentObservationEqualTo(request);
        });
    }

    @Test
    void aSendThatFailsIsObservedWithItsError() {
        runner.withPropertyValues("kafko.template.observation-enabled=true").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            // refused through the future
            assertThatThrownBy(() -> template.send("t", "k", "x".repeat(2_000)).join())
                    .isInstanceOf(CompletionException.class).hasCauseInstanceOf(RecordTooLargeException.class);
            TestObservationRegistryAssert.assertThat(registry(context))
                    .hasSingleObservationThat().hasNameEqualTo("kafko.template").hasBeenStopped()
                    .assertThatError().isInstanceOf(RecordTooLargeException.class);
            registry(context).clear();
            // refused by the call itself
            assertThatThrownBy(() -> template.send("t", 9, "k", "v")).isInstanceOf(InvalidPartitionException.class);
            TestObservationRegistryAssert.assertThat(registry(context))
                    .hasSingleObservationThat().hasNameEqualTo("kafko.template").hasBeenStopped()
                    .assertThatError().isInstanceOf(InvalidPartitionException.class);
        });
    }

    @Test
    void aBeanConventionReplacesTheDefaultKeys() {
        runner.withPropertyValues("kafko.template.observation-enabled=true")
                .withBean(KafkoTemplateObservationConvention.class, () -> new KafkoTemplateObservationConvention() {
                    @Override
                    public KeyValues getLowCardinalityKeyValues(KafkoRecordSenderContext context) {
                        return KeyValues.of("tenant", "acme");
                    }
                })
                .run(context -> {
                    template(context).send("t", "v").join();
                    TestObservationRegistryAssert.assertThat(registry(context)).hasSingleObservationThat()
                            .hasLowCardinalityKeyValue("tenant", "acme")
                            .doesNotHaveLowCardinalityKeyValueWithKey("messaging.destination.name");
                });
    }

    @Test
    void aRecordsDeliveryIsObservedOnceWithItsRetriesAndBatchListenersAreNot() {
        runner.withPropertyValues("kafko.listener.observation-enabled=true", "kafko.listener.retry.max-attempts=2",
                        "kafko.topics.b.partitions=1")
                .withBean(FlakyListener.class).withBean(BatchListener.class)
                .run(context -> {
                    template(context).send("t", 1, "k", "v").join();
                    template(context).send("b", "one").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(10));
                    assertThat(ATTEMPTS).hasValue(2);
                    assertThat(BATCHES).containsExactly("[one]");
                    TestObservationRegistryAssert.assertThat(registry(context))
                            .hasSingleObservationThat().hasNameEqualTo("kafko.listener")
                            .hasBeenStarted().hasBeenStopped()
                            .hasContextualNameEqualTo("t process")
                            .hasLowCardinalityKeyValue("kafko.listener.id", "flaky")
                            .hasLowCardinalityKeyValue("messaging.consumer.group.name", "flaky")
                            .hasLowCardinalityKeyValue("messaging.source.name", "t")
                            .hasLowCardinalityKeyValue("messaging.operation", "process")
                            .hasHighCardinalityKeyValue("messaging.destination.partition.id", "1")
                            .hasHighCardinalityKeyValue("messaging.kafko.message.offset", "0")
                            .assertThatError().isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("first attempt fails");
                });
    }

    @Test
    void anErrorThatEndsTheMemberIsTheDeliverysError() {
        runner.withPropertyValues("kafko.listener.observation-enabled=true")
                .withBean(FatalListener.class)
                .run(context -> {
                    template(context).send("t", 0, "k", "v").join();
                    var container = context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                            .getListenerContainer("fatal");
                    await().atMost(Duration.ofSeconds(20)).until(() -> !container.isInExpectedState());
                    TestObservationRegistryAssert.assertThat(registry(context))
                            .hasSingleObservationThat().hasNameEqualTo("kafko.listener").hasBeenStopped()
                            .assertThatError().isInstanceOf(OutOfMemoryError.class).hasMessage("simulated");
                });
    }

    @Test
    void anEnabledObservationWithoutARegistryObservesNothingAndSaysSo(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.template.observation-enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    template(context).send("t", "v").join();
                });
        assertThat(output).contains("kafko.template.observation-enabled=true, but there is no ObservationRegistry bean");
    }

    @Test
    void theTimersAnObservationHandlerMakesOfSendsLeaveWithTheirTopic() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        meteredObservations(meters)
                .withPropertyValues("kafko.ephemeral=true", "kafko.template.observation-enabled=true")
                .run(context -> {
                    template(context).send("short-lived", "v").join();
                    template(context).send("kept", "v").join();
                    assertThat(meters.find("kafko.template").tag("messaging.destination.name", "short-lived").timers())
                            .isNotEmpty();
                    context.getBean(dev.kafko.Kafko.class).deleteTopic("short-lived");
                    assertThat(meters.find("kafko.template").tag("messaging.destination.name", "short-lived").meters())
                            .isEmpty();
                    assertThat(meters.find("kafko.template.active").tag("messaging.destination.name", "short-lived")
                            .meters()).isEmpty();
                    assertThat(meters.find("kafko.template").tag("messaging.destination.name", "kept").timers())
                            .isNotEmpty();
                });
        assertThat(meters.find("kafko.template").meters()).as("closing the context removes them all").isEmpty();
    }

    @Test
    void theTimersAnObservationHandlerMakesOfAListenersDeliveriesLeaveWithItsContainer() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        meteredObservations(meters)
                .withBean(FlakyListener.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.observation-enabled=true")
                .run(context -> {
                    template(context).send("t", "v").join();
                    dev.kafko.spring.test.KafkoTestUtils.waitForListeners(context, java.time.Duration.ofSeconds(20));
                    assertThat(meters.find("kafko.listener").tag("kafko.listener.id", "flaky").timers()).isNotEmpty();
                    context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                            .unregisterListenerContainer("flaky");
                    assertThat(meters.find("kafko.listener").tag("kafko.listener.id", "flaky").meters()).isEmpty();
                    assertThat(meters.find("kafko.listener.active").tag("kafko.listener.id", "flaky").meters())
                            .isEmpty();
                });
    }

    @Test
    void theTimersOfObservationsAConventionRenamedLeaveWithTheirTopicListenerAndContext() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        meteredObservations(meters)
                .withBean(FlakyListener.class)
                .withBean(KafkoTemplateObservationConvention.class, () -> new KafkoTemplateObservationConvention() {
                    @Override
                    public String getName() {
                        return "platform.publish";
                    }

                    @Override
                    public KeyValues getLowCardinalityKeyValues(KafkoRecordSenderContext context) {
                        return KeyValues.of("dest", context.getDestination());
                    }
                })
                .withBean(KafkoListenerObservationConvention.class, () -> new KafkoListenerObservationConvention() {
                    @Override
                    public String getName() {
                        return "platform.consume";
                    }

                    @Override
                    public KeyValues getLowCardinalityKeyValues(KafkoRecordReceiverContext context) {
                        return KeyValues.of("src", context.getSource(), "lid", context.getListenerId());
                    }
                })
                .withPropertyValues("kafko.ephemeral=true", "kafko.template.observation-enabled=true",
                        "kafko.listener.observation-enabled=true")
                .run(context -> {
                    template(context).send("short-lived", "v").join();
                    template(context).send("kept", "v").join();
                    template(context).send("t", "v").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(meters.find("platform.publish").tag("dest", "short-lived").timers()).isNotEmpty();
                    assertThat(meters.find("platform.consume").tag("lid", "flaky").timers()).isNotEmpty();

                    context.getBean(dev.kafko.Kafko.class).deleteTopic("short-lived");
                    assertThat(meters.find("platform.publish").tag("dest", "short-lived").meters()).isEmpty();
                    assertThat(meters.find("platform.publish.active").tag("dest", "short-lived").meters()).isEmpty();
                    assertThat(meters.find("platform.publish").tag("dest", "kept").timers()).isNotEmpty();

                    context.getBean(dev.kafko.spring.config.KafkoListenerEndpointRegistry.class)
                            .unregisterListenerContainer("flaky");
                    assertThat(meters.find("platform.consume").tag("lid", "flaky").meters()).isEmpty();
                    assertThat(meters.find("platform.consume.active").tag("lid", "flaky").meters()).isEmpty();
                });
        assertThat(meters.find("platform.publish").meters()).as("closing the context removes them all").isEmpty();
        assertThat(meters.find("platform.publish.active").meters()).isEmpty();
    }

    /** A context whose observations are also timers in {@code meters}, as Actuator's meter handler makes them. */
    private static ApplicationContextRunner meteredObservations(SimpleMeterRegistry meters) {
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class,
                        dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> meters)
                .withBean(ObservationRegistry.class, () -> observations);
    }

    static class FlakyListener {
        @KafkoListener(id = "flaky", topics = "t")
        void onRecord(String value) {
            if (ATTEMPTS.incrementAndGet() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
        }
    }

    static class FatalListener {
        @KafkoListener(id = "fatal", topics = "t")
        void onRecord(String value) {
            throw new OutOfMemoryError("simulated");
        }
    }

    static class BatchListener {
        @KafkoListener(id = "batch", topics = "b", batch = "true")
        void onBatch(List<String> values) {
            BATCHES.add(values.toString());
        }
    }

    static TestObservationRegistry registry(ApplicationContext context) {
        return context.getBean(TestObservationRegistry.class);
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return (KafkoTemplate<Object, Object>) context.getBean(KafkoTemplate.class);
    }
}
