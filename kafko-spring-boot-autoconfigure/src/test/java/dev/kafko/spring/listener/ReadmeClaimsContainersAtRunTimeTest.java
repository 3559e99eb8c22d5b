package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.KafkoHeaders;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Claims of the README's section on containers at run time that no other test checks, each test quoting the
 * sentence it checks.
 */
class ReadmeClaimsContainersAtRunTimeTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** "partition:value:attempt" of each delivery, and "recovered:value". */
    static final List<String> SEEN = new CopyOnWriteArrayList<>();

    /**
     * A two-partition topic read by one member; a back-off far longer than the test, so that a record waiting for
     * its second attempt waits until a stop or a pause ends the wait.
     */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.held.partitions=2")
            .withBean(KafkoErrorHandler.class, () -> new DefaultErrorHandler(new FixedBackOff(600_000, 2),
                    (record, failure, invocation) -> SEEN.add("recovered:" + new String(record.value()))))
            .withBean(Held.class);

    @BeforeEach
    void reset() {
        SEEN.clear();
    }

    static class Held {
        @KafkoListener(id = "held", topics = "held", autoStartup = "false")
        void on(String value, @Header(KafkoHeaders.RECEIVED_PARTITION) int partition,
                @Header(KafkoHeaders.DELIVERY_ATTEMPT) int attempt) {
            SEEN.add(partition + ":" + value + ":" + attempt);
            if (value.equals("bad")) {
                throw new IllegalStateException("refused " + value);
            }
        }
    }

    /** Sends "bad" and "after" to partition 0 and "p1-a", "p1-b" to partition 1, then starts the listener. */
    private static MessageListenerContainer startWithOnePoll(ApplicationContext context) {
        @SuppressWarnings("unchecked")
        KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
        template.send("held", 0, null, "bad").join();
        template.send("held", 0, null, "after").join();
        template.send("held", 1, null, "p1-a").join();
        template.send("held", 1, null, "p1-b").join();
        MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer("held");
        container.start();
        await().atMost(WAIT).until(() -> SEEN.contains("0:bad:1")); // its back-off begins
        return container;
    }

    private static Map<Integer, Long> committed(ApplicationContext context) {
        return context.getBean(Kafko.class).groupInfo("held", "held").committed();
    }

    /**
     * "A record that failed and waits for its next attempt is not retried further when its container ... pauses: the
     * back-off ends at once, the record stays uncommitted and is delivered again (after ... the {@code resume()})
     * with its attempts counted from 1. On a pause, the records of its poll on other partitions still get their one
     * delivery each (those after it on its own partition wait with it) before the member stops polling".
     */
    @Test
    void onAPauseTheOtherPartitionsRecordsOfThePollAreDeliveredAndTheRetriedRecordComesAgainFromAttemptOne() {
        runner.run(context -> {
            MessageListenerContainer container = startWithOnePoll(context);
            container.pause();
            await().atMost(WAIT).until(container::isPaused);
            assertThat(SEEN).containsExactly("0:bad:1", "1:p1-a:1", "1:p1-b:1");
            assertThat(committed(context)).doesNotContainKey(0).containsEntry(1, 2L);

            container.resume();
            await().atMost(WAIT).until(() -> SEEN.size() == 4);
            assertThat(SEEN).containsExactly("0:bad:1", "1:p1-a:1", "1:p1-b:1", "0:bad:1");
        });
    }

    /**
     * "A record that failed and waits for its next attempt is not retried further when its container stops ...: the
     * back-off ends at once, the record stays uncommitted and is delivered again (after the restart ...) with its
     * attempts counted from 1." and "A stop delivers none of them: they are not committed and come after the
     * restart".
     */
    @Test
    void aStopDeliversNoneOfThePollsOtherRecordsAndTheyComeAfterTheRestart() {
        runner.run(context -> {
            MessageListenerContainer container = startWithOnePoll(context);
            container.stop();
            assertThat(SEEN).containsExactly("0:bad:1");
            assertThat(committed(context)).isEmpty();

            container.start();
            await().atMost(WAIT).until(() -> SEEN.stream().filter("0:bad:1"::equals).count() == 2);
            assertThat(SEEN).doesNotContain("0:bad:2");
            // the back-off holds the member's other partitions: a pause ends it, and the rest of the poll is delivered
            container.pause();
            await().atMost(WAIT).until(container::isPaused);
            assertThat(SEEN).containsExactlyInAnyOrder("0:bad:1", "0:bad:1", "1:p1-a:1", "1:p1-b:1");
            assertThat(SEEN).containsSubsequence("1:p1-a:1", "1:p1-b:1");
            assertThat(committed(context)).doesNotContainKey(0).containsEntry(1, 2L);
        });
    }

    /**
     * "{@code registry.unregisterListenerContainer(id)} stops it and removes it with its meters ...; a stopped
     * container left registered keeps them, and its lag keeps counting."
     */
    @Test
    void aStoppedContainerLeftRegisteredKeepsItsMetersAndItsLagCounts() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class,
                        KafkoMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("kafko.ephemeral=true")
                .run(context -> {
                    List<String> received = new CopyOnWriteArrayList<>();
                    KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    registry.registerListenerContainer(context.getBean(KafkoListenerContainerFactory.class)
                            .createListenerContainer("tenant-c", "g-c", List.of("tenant.c"),
                                    (records, ack) -> records.forEach(r -> received.add(new String(r.value())))),
                            true);
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("tenant.c", "one").join();
                    await().atMost(WAIT).until(() -> received.size() == 1);
                    await().atMost(WAIT).until(() -> lag(meters) == 0.0);

                    registry.getListenerContainer("tenant-c").stop();
                    template.send("tenant.c", "two").join();
                    template.send("tenant.c", "three").join();
                    assertThat(meters.find("kafko.listener.process").tag("listener", "tenant-c").timers())
                            .isNotEmpty();
                    await().atMost(WAIT).until(() -> lag(meters) == 2.0);
                    assertThat(received).containsExactly("one");
                });
    }

    private static double lag(MeterRegistry meters) {
        return meters.get("kafko.consumer.lag").tag("group", "g-c").tag("partition", "0").gauge().value();
    }
}
