package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * A misspelt {@code kafko.*} key fails the start: the report names the key, where it was set and the key meant,
 * not only Spring Boot's dump of the binding target with "were left unbound".
 */
@ExtendWith(OutputCaptureExtension.class)
class UnknownKafkoKeyFailureAnalyzerTest {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    private static void start(String... args) {
        new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).run(args);
    }

    @Test
    void aSingularTopicsIsReportedWithTheKeyMeant(CapturedOutput output) {
        assertThatThrownBy(() -> start("--kafko.ephemeral=true", "--kafko.topic.orders.partitions=4"))
                .hasStackTraceContaining("kafko.topic.orders.partitions");
        assertThat(output).contains("kafko could not start: no kafko property has the name of:")
                .contains("kafko.topic.orders.partitions (\"kafko.topic.orders.partitions\" from property source "
                        + "\"commandLineArgs\"): did you mean kafko.topics.orders.partitions?")
                .contains("Correct or remove the key.")
                .doesNotContain("Bindable@");
    }

    @Test
    void eachMisspeltKeyIsNamedWithTheClosestKnownOneOrAlone(CapturedOutput output) {
        assertThatThrownBy(() -> start("--kafko.ephemeral=true", "--kafko.listner.concurency=2",
                "--kafko.defaults.retension=7d", "--kafko.topics.Orders.max-record-bytes=2MB", "--kafko.colour=blue"))
                .hasStackTraceContaining("left unbound");
        assertThat(output).contains("kafko.listner.concurency (").contains("did you mean kafko.listener.concurrency?")
                .contains("did you mean kafko.defaults.retention?")
                .contains("kafko.topics.Orders.max-record-bytes (")
                .contains("did you mean kafko.topics.Orders.max-record-size?")
                .containsPattern("kafko\\.colour \\([^\\n]*commandLineArgs\"\\)\\n");
    }
}
