package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.kafko.spring.LogCapture;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A failure repeated every second (a record whose recovery fails for good) is a line each time, naming the
 * record, with its stack trace the first time only (then at most once a minute); a member that dies names the
 * record it was delivering.
 */
class RepeatedFailureLogTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(ListenerConsumer.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void aRecordWhoseRecoveryFailsEverySecondLogsItsTraceOnceAndNamesTheRecordEachTime() {
        runner.withBean(Failing.class).withBean(KafkoErrorHandler.class, () -> (records, failure, invocation) -> {
            throw new IllegalStateException("the dead-letter partition failed");
        }).run(context -> {
            template(context).send("stuck", "x").join();
            await().atMost(Duration.ofSeconds(20)).until(() -> notFinished().size() >= 3);
            List<ILoggingEvent> lines = notFinished();
            assertThat(lines).allSatisfy(e -> assertThat(e.getFormattedMessage())
                    .contains("Listener 'failing' did not finish record stuck-0@0 (")
                    .contains("the dead-letter partition failed").contains("delivered again in 1000 ms"));
            assertThat(lines.get(0).getThrowableProxy()).isNotNull();
            assertThat(lines.subList(1, lines.size())).allSatisfy(e -> assertThat(e.getThrowableProxy()).isNull());
            context.getBean(KafkoListenerEndpointRegistry.class).stop();
        });
    }

    @Test
    void aMemberThatDiesNamesTheRecordItWasDelivering() {
        runner.withBean(Dying.class).run(context -> {
            template(context).send("fatal", "x").join();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(log.events())
                    .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("Polling thread dying-0 of listener"
                            + " 'dying' died delivering record fatal-0@0 (not committed")));
        });
    }

    private List<ILoggingEvent> notFinished() {
        return log.events().stream().filter(e -> e.getFormattedMessage().contains("did not finish")).toList();
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(org.springframework.context.ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Failing {
        @KafkoListener(id = "failing", topics = "stuck")
        void on(String value) {
            throw new IllegalArgumentException("cannot process " + value);
        }
    }

    static class Dying {
        @KafkoListener(id = "dying", topics = "fatal")
        void on(String value) {
            throw new OutOfMemoryError("simulated");
        }
    }
}
