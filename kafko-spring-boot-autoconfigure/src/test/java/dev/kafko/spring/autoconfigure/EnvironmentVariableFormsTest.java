package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.Kafko;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * An environment variable sets a kafko property in either form Spring Boot binds: with the dashes removed
 * ({@code KAFKO_LISTENER_MAXPOLLRECORDS}) or with them as underscores ({@code KAFKO_LISTENER_MAX_POLL_RECORDS}).
 * The refusal of unknown keys read the second form as {@code kafko.listener.max.poll.records} and failed the start,
 * though the property had been bound from it.
 * <p>
 * Spring Boot leaves its {@code systemEnvironment} property source out of the check of unknown keys: in the process
 * environment a variable that names no property is ignored, as with Spring Boot's own prefixes.
 */
class EnvironmentVariableFormsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class));

    private ApplicationContextRunner withEnvironment(Map<String, Object> variables) {
        return runner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                new SystemEnvironmentPropertySource("test-systemEnvironment", variables)));
    }

    @Test
    void aVariableWithTheDashesAsUnderscoresSetsTheProperty() {
        withEnvironment(Map.of("KAFKO_EPHEMERAL", "true", "KAFKO_LISTENER_MAX_POLL_RECORDS", "7",
                "KAFKO_LISTENER_RETRY_MAX_ATTEMPTS", "3", "KAFKO_HEALTH_MIN_FREE_DISK", "10MB",
                "KAFKO_TOPICS_ORDERS_MAX_RECORD_SIZE", "2KB", "KAFKO_AUTO_CREATE_TOPICS", "false"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoProperties properties = context.getBean(KafkoProperties.class);
                    assertThat(properties.getListener().getMaxPollRecords()).isEqualTo(7);
                    assertThat(properties.getListener().getRetry().getMaxAttempts()).isEqualTo(3);
                    assertThat(properties.getHealth().getMinFreeDisk().toMegabytes()).isEqualTo(10);
                    assertThat(properties.isAutoCreateTopics()).isFalse();
                    assertThat(context.getBean(Kafko.class).topic("orders").orElseThrow().config().maxRecordBytes())
                            .isEqualTo(2048);
                });
    }

    @Test
    void aVariableWithTheDashesAsUnderscoresThatAnotherSourceOverridesDoesNotFailTheStart() {
        withEnvironment(Map.of("KAFKO_EPHEMERAL", "true", "KAFKO_LISTENER_MAX_POLL_RECORDS", "7"))
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new MapPropertySource("commandLineArgs", Map.of("kafko.listener.max-poll-records", "9"))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(KafkoProperties.class).getListener().getMaxPollRecords()).isEqualTo(9);
                });
        withEnvironment(Map.of("KAFKO_EPHEMERAL", "true", "KAFKO_LISTENER_MAX_POLL_RECORDS", "7",
                "KAFKO_LISTENER_MAXPOLLRECORDS", "5"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(KafkoProperties.class).getListener().getMaxPollRecords()).isEqualTo(5);
                });
    }

    @Test
    void aVariableThatNamesNoPropertyInEitherFormStillFailsTheStart() {
        withEnvironment(Map.of("KAFKO_EPHEMERAL", "true", "KAFKO_LISTENER_MAX_POLL_RECORD", "7"))
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("kafko.listener.max.poll.record"));
    }

    @Test
    void aVariableOfTheProcessEnvironmentThatNamesNoPropertyIsIgnored() {
        try (ConfigurableApplicationContext context = start(Map.of("KAFKO_EPHEMERAL", "true",
                "KAFKO_LISTENER_MAX_POLL_RECORD", "7", "KAFKO_TOPICS_MY_TOPIC_PARTITIONS", "2"))) {
            KafkoProperties properties = context.getBean(KafkoProperties.class);
            assertThat(properties.getListener().getMaxPollRecords()).isEqualTo(500);
            assertThat(properties.getTopics()).isEmpty();
        }
    }

    @Test
    void theProcessEnvironmentSetsThePropertyInEitherFormAndDeclaresAnUnderscoredTopicFromJson() {
        try (ConfigurableApplicationContext context = start(Map.of("KAFKO_EPHEMERAL", "true",
                "KAFKO_LISTENER_MAX_POLL_RECORDS", "7", "KAFKO_LISTENER_RETRY_NOT_RETRYABLE_0",
                "java.lang.IllegalStateException", "SPRING_APPLICATION_JSON",
                "{\"kafko\":{\"topics\":{\"[my_topic]\":{\"partitions\":2}}}}"))) {
            KafkoProperties properties = context.getBean(KafkoProperties.class);
            assertThat(properties.getListener().getMaxPollRecords()).isEqualTo(7);
            assertThat(properties.getListener().getRetry().getNotRetryable())
                    .containsExactly("java.lang.IllegalStateException");
            assertThat(context.getBean(Kafko.class).topic("my_topic").orElseThrow().partitionCount()).isEqualTo(2);
        }
    }

    /** Starts an application whose process environment is {@code variables}, registered as Spring Boot does. */
    private static ConfigurableApplicationContext start(Map<String, Object> variables) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setEnvironment(new StandardEnvironment() {
            @Override
            public Map<String, Object> getSystemEnvironment() {
                return variables;
            }
        });
        return application.run();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(KafkoAutoConfiguration.class)
    static class Application {
    }
}
