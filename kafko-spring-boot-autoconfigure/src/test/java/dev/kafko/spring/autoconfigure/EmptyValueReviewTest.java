package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;

/**
 * What an empty {@code kafko.*} value does, key type by key type, beside what it does to the keys of other
 * prefixes: most keys stay at their defaults, but an empty data directory is refused rather than taken as the
 * default, a directory in the working directory.
 */
class EmptyValueReviewTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class));

    /** The application's {@code application.properties}, below the values a test sets. */
    private static ApplicationContextRunner below(ApplicationContextRunner runner, Map<String, Object> values) {
        return runner.withInitializer(context -> context.getEnvironment().getPropertySources()
                .addLast(new MapPropertySource("application.properties", values)));
    }

    @Test
    void anEmptyDataDirectoryOverTheApplicationsFailsTheStartNamingItInsteadOfOpeningTheDefault(@TempDir Path dir) {
        Path data = dir.resolve("data");
        below(runner, Map.of("kafko.data-dir", data.toString()))
                .withPropertyValues("kafko.data-dir=")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .isInstanceOf(InvalidKafkoPropertyException.class)
                        .hasMessageStartingWith("kafko.data-dir is empty"));
        assertThat(data).doesNotExist();
    }

    @Test
    void anEmptyDataDirectoryIsIgnoredUnderEphemeral() {
        runner.withPropertyValues("kafko.ephemeral=true", "kafko.data-dir=").run(context -> {
            assertThat(context).hasNotFailed();
            Path opened = context.getBean(Kafko.class).dataDir();
            assertThat(opened.getFileName().toString()).endsWith(".ephemeral");
            assertThat(Files.isDirectory(opened)).isTrue();
        });
    }

    @Test
    void switchesAndCountsThatMustHaveAValueFailNamingTheKey() {
        for (String key : new String[] {"kafko.auto-create-topics", "kafko.listener.dead-letter.enabled",
                "kafko.defaults.partitions", "kafko.defaults.min-cleanable-dirty-ratio", "kafko.defaults.fsync",
                "kafko.topics.orders.cleanup-policy"}) {
            runner.withPropertyValues("kafko.ephemeral=true", key + "=").run(context ->
                    assertThat(context).getFailure().hasStackTraceContaining(key));
        }
    }

    @Test
    void anEmptyRetentionKeepsRecordsAndAnEmptyBlankStringIsNone() {
        below(runner, Map.of("kafko.defaults.retention", "7d", "kafko.topics.orders.retention", "1h",
                "kafko.topics.orders.partitions", "3", "kafko.template.default-topic", "orders",
                "kafko.listener.group-id", "billing"))
                .withPropertyValues("kafko.ephemeral=true", "kafko.defaults.retention=",
                        "kafko.topics.orders.retention=", "kafko.template.default-topic=",
                        "kafko.listener.group-id=")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkoProperties properties = context.getBean(KafkoProperties.class);
                    assertThat(properties.getDefaults().getRetention()).isNull();
                    assertThat(properties.getTopics().get("orders").getRetention()).isNull();
                    assertThat(properties.getTopics().get("orders").getPartitions()).isEqualTo(3);
                    assertThat(context.getBean(dev.kafko.spring.core.KafkoTemplate.class).getDefaultTopic())
                            .isNull();
                });
    }

    @Test
    void anEmptyEnabledSwitchesKafkoOffAsSpringBootsOwnEnabledKeysDo() {
        runner.withPropertyValues("kafko.enabled=").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(Kafko.class);
        });
    }

    @Test
    void theAdvisorLeavesAnEmptyValueOfAnotherPrefixAsBootBindsIt() {
        Binder binder = new Binder(new MapConfigurationPropertySource(Map.of("metering.window", "")));
        BindHandler strict = new EmptyValueBindHandlerAdvisor()
                .apply(new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
        assertThatThrownBy(() -> binder.bind("metering", Bindable.of(Metering.class), strict))
                .isInstanceOf(BindException.class)
                .hasRootCauseInstanceOf(UnboundConfigurationPropertiesException.class)
                .hasStackTraceContaining("metering.window");
    }

    /** An application's own properties, bound as Spring Boot binds those with {@code ignoreUnknownFields = false}. */
    public static class Metering {

        private Duration window = Duration.ofMinutes(1);

        public Duration getWindow() {
            return window;
        }

        public void setWindow(Duration window) {
            this.window = window;
        }
    }
}
