package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.LoggingRecordRecoverer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code kafko.listener.retry.*} and {@code kafko.listener.dead-letter.*} are read only by the auto-configured error
 * handler: an application that defines its own {@link KafkoErrorHandler} bean and sets them too (a port from
 * spring-kafka that kept both) got neither its retries nor its dead letters, without a word. A warning says so.
 */
@ExtendWith(OutputCaptureExtension.class)
class ErrorHandlerPropertiesWarningTest {

    private static final String WARNING = "the listeners use the application's own KafkoErrorHandler bean";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @Test
    void retryAndDeadLetterPropertiesBesideAnOwnErrorHandlerAreNamedInAWarning(CapturedOutput output) {
        runner.withBean(KafkoErrorHandler.class, () -> new DefaultErrorHandler(new LoggingRecordRecoverer()))
                .withPropertyValues("kafko.listener.retry.max-attempts=3", "kafko.listener.dead-letter.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output).contains("kafko.listener.retry.* and kafko.listener.dead-letter.* are set, but "
                            + WARNING);
                });
    }

    @Test
    void anOwnErrorHandlerWithoutThosePropertiesGivesNoWarning(CapturedOutput output) {
        runner.withBean(KafkoErrorHandler.class, () -> new DefaultErrorHandler(new LoggingRecordRecoverer()))
                .withPropertyValues("kafko.listener.concurrency=2")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain(WARNING);
    }

    @Test
    void thePropertiesReadByTheAutoConfiguredHandlerGiveNoWarning(CapturedOutput output) {
        runner.withPropertyValues("kafko.listener.retry.max-attempts=3", "kafko.listener.dead-letter.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(KafkoErrorHandler.class));
        assertThat(output).doesNotContain(WARNING);
    }
}
