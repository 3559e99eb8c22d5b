package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.PartitionFailedException;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A member one of whose partitions failed goes on reading the others at their pace: the engine returns their
 * records and throws the failed partition's error at the next poll, and the member waited a whole poll timeout
 * after each such failure, so a healthy partition gave max-poll-records per poll timeout (10 records a second in
 * an edge-buffer tryout). With nothing else to read, it waits the poll timeout as before, logging a line each time.
 */
class FailedPartitionPollTest {

    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();

    @RegisterExtension
    final LogCapture log = new LogCapture(ListenerConsumer.class);

    @Test
    void theHealthyPartitionsOfAMemberAreReadWithoutAPollTimeoutBetweenTheFailedOnesErrors() {
        RECEIVED.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(OnePartitionFailed.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.max-poll-records=10",
                        // longer than the JVM's nanoTime, which counts from boot here: a first failure is logged
                        // whatever the clock's origin (B109)
                        "kafko.listener.poll-timeout=3650d")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    for (int i = 0; i < 50; i++) {
                        template.send("mixed", "r" + i).join();
                    }
                    // started once the records are there: with nothing to read, the member waits its poll timeout
                    context.getBean(KafkoListenerEndpointRegistry.class).getListenerContainer("collector").start();
                    // a poll timeout of ten years between polls would hold all but the first 10 records
                    await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVED.size() == 50);
                    assertThat(RECEIVED).startsWith("r0", "r1").endsWith("r49");
                    List<ILoggingEvent> failures = log.events().stream()
                            .filter(e -> e.getFormattedMessage().contains("could not poll")).toList();
                    // five failed polls between the records and one with nothing left: a line while the records
                    // flowed, one when the member began to wait
                    assertThat(failures).extracting(ILoggingEvent::getFormattedMessage).containsExactly(
                            "Listener 'collector' could not poll mixed (dev.kafko.PartitionFailedException: partition"
                                    + " mixed-1 failed: write failed); reading its other partitions meanwhile",
                            "Listener 'collector' could not poll mixed (dev.kafko.PartitionFailedException: partition"
                                    + " mixed-1 failed: write failed); trying again in 315360000000 ms");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OnePartitionFailed {
        @Bean
        Collector collector() {
            return new Collector();
        }

        /** The engine's way with a failed partition: the others' records first, its error at the next poll. */
        @Bean
        LogBackend onePartitionFailedBackend(Kafko kafko, KafkoTopicProvisioner topics) {
            return new DelegatingBackend(new KafkoBackend(kafko, topics), c -> new DelegatingBackend.DelegatingConsumer(c) {
                private boolean failNext;

                @Override
                public List<KafkoRecord> poll(Duration timeout) {
                    List<KafkoRecord> records = failNext ? List.of() : c.poll(Duration.ZERO);
                    failNext = !records.isEmpty();
                    if (records.isEmpty()) {
                        throw new PartitionFailedException("partition mixed-1 failed: write failed");
                    }
                    return records;
                }
            });
        }
    }

    static class Collector {
        @KafkoListener(id = "collector", topics = "mixed", autoStartup = "false")
        void on(String value) {
            RECEIVED.add(value);
        }
    }
}
