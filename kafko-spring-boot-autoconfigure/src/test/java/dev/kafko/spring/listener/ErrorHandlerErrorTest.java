package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An error handler (or the recoverer it calls) that throws an {@link Error} other than the JVM's own: the README
 * says that when the handler throws, the records are delivered again after a one-second pause, and a listener's own
 * {@code AssertionError} is a record failure like any other. The container caught only {@code Exception}s from the
 * handler: an {@code AssertionError} from it killed the member's polling thread, so the container stopped reading
 * (the record, and those after it, never delivered again until a restart).
 */
class ErrorHandlerErrorTest {

    static final List<String> DONE = new CopyOnWriteArrayList<>();
    static final AtomicInteger HANDLED = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Listener.class)
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void anErrorHandlerThatThrowsAnErrorHasTheRecordDeliveredAgain() {
        DONE.clear();
        HANDLED.set(0);
        KafkoErrorHandler handler = (records, failure, invocation) -> {
            if (HANDLED.incrementAndGet() == 1) {
                throw new AssertionError("a bug in the error handler");
            }
            // the second time: dealt with
        };
        runner.withBean(KafkoErrorHandler.class, () -> handler).run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("errs", 0, null, "poison").join();
            template.send("errs", 0, null, "after").join();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(DONE).containsExactly("after"));
            assertThat(HANDLED).hasValue(2);
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("errs");
            assertThat(container.isRunning()).isTrue();
            assertThat(container.isInExpectedState()).isTrue();
        });
    }

    static class Listener {
        @KafkoListener(id = "errs", topics = "errs")
        void listen(String value) {
            if (value.equals("poison")) {
                throw new IllegalStateException("cannot digest poison");
            }
            DONE.add(value);
        }
    }
}
