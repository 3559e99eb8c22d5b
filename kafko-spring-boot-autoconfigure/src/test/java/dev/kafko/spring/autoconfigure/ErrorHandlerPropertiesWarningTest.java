package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.LoggingRecordRecoverer;
import dev.kafko.spring.listener.RetryListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

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

    private static final String NOT_GIVEN = "will not be told of failed deliveries";

    /** A RetryListener bean beside the application's own handler is told of nothing unless that handler is given it. */
    @Test
    void retryListenerBeansTheOwnErrorHandlerWasNotGivenAreNamedInAWarning(CapturedOutput output) {
        runner.withBean("counting", RetryListener.class, Counting::new)
                .withBean(KafkoErrorHandler.class, () -> new DefaultErrorHandler(new LoggingRecordRecoverer()))
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("RetryListener bean(s) [counting] " + NOT_GIVEN)
                .contains("(" + DefaultErrorHandler.class.getName() + ")");
    }

    @Test
    void retryListenerBeansGivenToTheOwnErrorHandlerOrToTheAutoConfiguredOneGiveNoWarning(CapturedOutput output) {
        runner.withUserConfiguration(GivenToTheOwnHandler.class).run(context -> assertThat(context).hasNotFailed()
                .getBean(KafkoErrorHandler.class).isInstanceOf(DefaultErrorHandler.class));
        runner.withBean("counting", RetryListener.class, Counting::new)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(KafkoErrorHandler.class));
        assertThat(output).doesNotContain(NOT_GIVEN);
    }

    /** A prototype's every lookup makes a new instance, which no handler holds: it is not taken for one not given. */
    @Test
    void aPrototypeRetryListenerGivenToTheOwnErrorHandlerGivesNoWarning(CapturedOutput output) {
        runner.withUserConfiguration(PrototypeGivenToTheOwnHandler.class)
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain(NOT_GIVEN);
    }

    @Configuration(proxyBeanMethods = false)
    static class PrototypeGivenToTheOwnHandler {
        @Bean
        @org.springframework.context.annotation.Scope("prototype")
        RetryListener counting() {
            return new Counting();
        }

        @Bean
        KafkoErrorHandler ownHandler(RetryListener counting) {
            DefaultErrorHandler handler = new DefaultErrorHandler(new LoggingRecordRecoverer());
            handler.setRetryListeners(counting);
            return handler;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class GivenToTheOwnHandler {
        @Bean
        RetryListener counting() {
            return new Counting();
        }

        @Bean
        KafkoErrorHandler ownHandler(RetryListener counting) {
            DefaultErrorHandler handler = new DefaultErrorHandler(new LoggingRecordRecoverer());
            handler.setRetryListeners(counting);
            return handler;
        }
    }

    static final class Counting implements RetryListener {
        @Override
        public void failedDelivery(KafkoRecord record, Exception failure, int deliveryAttempt) {
        }
    }
}
