package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.Kafko;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.event.ConsumerStartedEvent;
import dev.kafko.spring.support.KafkoInstrumentation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * An application listener of a member's events that fails is logged, naming the event and the member, and the
 * member goes on; the JVM's own errors ({@link VirtualMachineError}: out of memory) go on too: the member dies of
 * one, as of its listener's.
 */
class FailingEventListenerTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @RegisterExtension
    final LogCapture log = new LogCapture(KafkoMessageListenerContainer.class);

    @Test
    void aFailingEventListenerIsLoggedAndTheMemberGoesOn() throws Exception {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            IllegalStateException failure = new IllegalStateException("an event listener failed");
            CountDownLatch received = new CountDownLatch(1);
            ConcurrentMessageListenerContainer container = container(kafko, received, event -> {
                if (event instanceof ConsumerStartedEvent) {
                    throw failure;
                }
            });
            container.start();
            try {
                await().atMost(WAIT).until(() -> List.copyOf(log.events()).stream()
                        .anyMatch(e -> e.getThrowableProxy() != null));
                ILoggingEvent logged = List.copyOf(log.events()).stream()
                        .filter(e -> e.getThrowableProxy() != null).findFirst().orElseThrow();
                assertThat(logged.getLevel()).isEqualTo(Level.ERROR);
                assertThat(logged.getFormattedMessage()).contains("ConsumerStartedEvent").contains("failing-0");
                assertThat(logged.getThrowableProxy().getMessage()).isEqualTo("an event listener failed");

                kafko.producer("failing").send(null, "read".getBytes(StandardCharsets.UTF_8)).join();
                assertThat(received.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the member went on").isTrue();
            } finally {
                container.stop();
            }
        }
    }

    @Test
    void anOutOfMemoryErrorOfAnEventListenerKillsTheMember() {
        try (Kafko kafko = Kafko.open(dir, KafkoOptions.builder().build())) {
            OutOfMemoryError fatal = new OutOfMemoryError("an event listener ran out of memory");
            AtomicBoolean thrown = new AtomicBoolean();
            ConcurrentMessageListenerContainer container = container(kafko, new CountDownLatch(1), event -> {
                if (event instanceof ConsumerStartedEvent && thrown.compareAndSet(false, true)) {
                    throw fatal;
                }
            });
            container.start();
            try {
                MessageListenerContainer member = container.getMembers().get(0);
                await().atMost(WAIT).until(() -> !member.isRunning());
                assertThat(member.getFailure()).isSameAs(fatal);
                assertThat(container.isInExpectedState()).as("a member died").isFalse();
            } finally {
                container.stop();
            }
        }
    }

    private static ConcurrentMessageListenerContainer container(Kafko kafko, CountDownLatch received,
                                                                ApplicationEventPublisher publisher) {
        KafkoBackend backend = new KafkoBackend(kafko, new KafkoTopicProvisioner(kafko, Map.of(), true),
                new KafkoTopicCreations());
        ConcurrentMessageListenerContainer container = new ConcurrentMessageListenerContainer("failing",
                List.of("failing"), "failing", backend,
                new ContainerProperties(AckMode.BATCH, 1, Duration.ofMillis(50), 500, Duration.ofSeconds(10)), true,
                (records, ack) -> received.countDown(), new DefaultErrorHandler(), KafkoInstrumentation.NOOP,
                new SimpleAsyncTaskExecutor());
        container.setApplicationEventPublisher(publisher);
        return container;
    }
}
