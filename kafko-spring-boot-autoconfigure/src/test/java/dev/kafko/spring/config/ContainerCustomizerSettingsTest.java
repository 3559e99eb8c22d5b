package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerCustomizer;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoMessageListenerContainer;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The container settings a {@link ContainerCustomizer} changes take effect for its container: concurrency, ack mode,
 * error handler and auto-startup, before the first start; afterwards they are refused.
 */
class ContainerCustomizerSettingsTest {

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    static final CountDownLatch RECOVERED = new CountDownLatch(1);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.wide.partitions=3");

    @BeforeEach
    void reset() {
        EVENTS.clear();
    }

    /** The customizer of this test: each listener gets the setting its id names. */
    private static final ContainerCustomizer CUSTOMIZER = container -> {
        switch (container.getListenerId()) {
            case "wide" -> container.setContainerProperties(container.getContainerProperties().withConcurrency(3));
            case "manual" -> container.setContainerProperties(
                    container.getContainerProperties().withAckMode(AckMode.MANUAL_IMMEDIATE));
            case "failing" -> container.setErrorHandler(new DefaultErrorHandler(new FixedBackOff(0, 1),
                    (record, failure, invocation) -> {
                        EVENTS.add("recovered:" + new String(record.value()));
                        RECOVERED.countDown();
                    }));
            case "idle" -> container.setAutoStartup(false);
            case "recordAcks" -> container.setContainerProperties(
                    container.getContainerProperties().withAckMode(AckMode.RECORD));
            default -> { }
        }
    };

    @Test
    void aCustomizersConcurrencyMakesTheMembersAgainUnderTheSameNamesAndEachReadsAPartition() {
        runner.withBean(ContainerCustomizer.class, () -> CUSTOMIZER).withBean(Wide.class).run(context -> {
            assertThat(context).hasNotFailed();
            ConcurrentMessageListenerContainer container = container(context, "wide");
            assertThat(container.getMembers()).extracting(m -> ((KafkoMessageListenerContainer) m).memberName())
                    .containsExactly("wide-0", "wide-1", "wide-2");
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            for (int partition = 0; partition < 3; partition++) {
                template.send("wide", partition, null, "v" + partition).join();
            }
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

            assertThat(Set.copyOf(EVENTS)).containsExactlyInAnyOrder("wide-0", "wide-1", "wide-2");
        });
    }

    @Test
    void aCustomizersManualAckModeLetsAnAcknowledgingListenerStartAndCommitsOnlyWhatItAcknowledged() {
        runner.withBean(ContainerCustomizer.class, () -> CUSTOMIZER).withBean(Manual.class).run(context -> {
            assertThat(context).hasNotFailed(); // under the factory's BATCH, an Acknowledgment parameter fails the start
            ConcurrentMessageListenerContainer container = container(context, "manual");
            assertThat(container.getContainerProperties().ackMode()).isEqualTo(AckMode.MANUAL_IMMEDIATE);
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("manual", "ack").join();
            template.send("manual", "hold").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));
            container.stop();

            assertThat(EVENTS).containsExactly("manual:ack", "manual:hold");
            // under BATCH both would be committed (2); the record not acknowledged is not
            assertThat(context.getBean(LogBackend.class).committedOffsets("manual", "manual")).isEqualTo(Map.of(0, 1L));
        });
    }

    @Test
    void anAckModeACustomizerSetsIsCheckedAgainstTheListenerMethod() {
        runner.withBean(ContainerCustomizer.class, () -> CUSTOMIZER).withBean(RecordAcks.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOf(InvalidKafkoListenerException.class)
                    .hasMessageContaining("Listener 'recordAcks'").hasMessageContaining("takes an Acknowledgment")
                    .hasMessageContaining("its ack mode is RECORD");
        });
    }

    @Test
    void aCustomizersErrorHandlerRetriesAndRecoversTheContainersRecords() throws InterruptedException {
        runner.withBean(ContainerCustomizer.class, () -> CUSTOMIZER).withBean(Failing.class).run(context -> {
            assertThat(context).hasNotFailed();
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("failing", "poison").join();
            assertThat(RECOVERED.await(30, TimeUnit.SECONDS)).isTrue();

            // the factory's handler makes 10 attempts and logs; the customizer's makes 2 and recovers
            assertThat(EVENTS).containsExactly("failing:poison", "failing:poison", "recovered:poison");
        });
    }

    @Test
    void aCustomizersAutoStartupFalseLeavesTheContainerStoppedUntilStartedByHand() {
        runner.withBean(ContainerCustomizer.class, () -> CUSTOMIZER).withBean(Idle.class).run(context -> {
            assertThat(context).hasNotFailed();
            ConcurrentMessageListenerContainer container = container(context, "idle");
            assertThat(container.isAutoStartup()).isFalse();
            assertThat(container.isRunning()).isFalse();
            container.start();
            assertThat(container.isRunning()).isTrue();
        });
    }

    @Test
    void theSettingsAreRefusedWhileTheContainerRunsAndTakenForItsNextStartOnceStopped() {
        runner.withBean(Wide.class).run(context -> {
            ConcurrentMessageListenerContainer container = container(context, "wide");
            assertThat(container.isRunning()).isTrue();
            assertThatThrownBy(() -> container.setContainerProperties(
                    container.getContainerProperties().withConcurrency(2)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Listener 'wide' was started and not stopped since");
            assertThatThrownBy(() -> container.setErrorHandler(new DefaultErrorHandler()))
                    .isInstanceOf(IllegalStateException.class);
            assertThat(container.getContainerProperties().concurrency()).isEqualTo(1);
            assertThat(container.getMembers()).hasSize(1);
            // spring-kafka's way to change a running listener's concurrency: stop, set, start
            container.stop();
            container.setContainerProperties(container.getContainerProperties().withConcurrency(2));
            assertThat(container.getMembers()).hasSize(2);
            container.start();
            assertThat(container.getContainerProperties().concurrency()).isEqualTo(2);
            assertThat(container.getMembers()).hasSize(2).allSatisfy(m -> assertThat(m.isRunning()).isTrue());
        });
    }

    private static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    static class Wide {
        @KafkoListener(id = "wide", topics = "wide")
        void on(String value) {
            EVENTS.add(Thread.currentThread().getName());
        }
    }

    static class Manual {
        @KafkoListener(id = "manual", topics = "manual")
        void on(String value, Acknowledgment ack) {
            EVENTS.add("manual:" + value);
            if (value.equals("ack")) {
                ack.acknowledge();
            }
        }
    }

    static class RecordAcks {
        @KafkoListener(id = "recordAcks", topics = "recordAcks", ackMode = "manual")
        void on(String value, Acknowledgment ack) {
            ack.acknowledge();
        }
    }

    static class Failing {
        @KafkoListener(id = "failing", topics = "failing")
        void on(String value) {
            EVENTS.add("failing:" + value);
            throw new IllegalStateException("cannot digest " + value);
        }
    }

    static class Idle {
        @KafkoListener(id = "idle", topics = "idle")
        void on(String value) {
        }
    }
}
