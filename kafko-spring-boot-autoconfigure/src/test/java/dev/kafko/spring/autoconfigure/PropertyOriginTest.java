package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.env.MockEnvironment;

/** A start that fails on a {@code kafko.*} value says where the value was set, as Boot does for its own. */
@ExtendWith(OutputCaptureExtension.class)
class PropertyOriginTest {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    private static void start(String configName) {
        new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("spring.config.location=classpath:property-origin/" + configName + ".properties")
                .run();
    }

    @Test
    void theReportOfABadValueGivesTheFileAndLineThatSetIt(CapturedOutput output) {
        assertThatThrownBy(() -> start("bad-linger")).hasStackTraceContaining("kafko.linger must not be negative");
        assertThat(output).contains("Invalid kafko configuration: kafko.linger must not be negative, was PT-0.001S")
                .contains("Property: kafko.linger")
                .contains("Value: \"-1ms\"")
                .contains("Origin: class path resource [property-origin/bad-linger.properties] - 2:14")
                .contains("Update kafko.linger in your configuration");
    }

    @Test
    void aTopicKeyTheEngineRefusesIsReportedWithItsOriginToo(CapturedOutput output) {
        assertThatThrownBy(() -> start("bad-partitions")).hasStackTraceContaining("kafko.topics.orders.partitions");
        assertThat(output).contains("kafko.topics.orders.partitions is refused: partitions must be between 1 and")
                .contains("Origin: class path resource [property-origin/bad-partitions.properties] - 2:32");
    }

    @Test
    void aTopicNameOutsideTheRuleIsReportedWithThePropertyThatDeclaresIt(CapturedOutput output) {
        assertThatThrownBy(() -> start("bad-topic-name")).hasStackTraceContaining("topic name 'bad$name' is invalid");
        assertThat(output).contains("kafko.topics[bad$name] topic name 'bad$name' is invalid")
                .contains("Property: kafko.topics[bad$name].partitions")
                .contains("Value: \"2\"")
                .contains("Origin: class path resource [property-origin/bad-topic-name.properties] - 2:35");
    }

    @Test
    void aValueFromAnyPropertySourceIsShownAndAPropertyNotInTheEnvironmentIsJustNamed() {
        MockEnvironment environment = new MockEnvironment().withProperty("kafko.max-block", "-1s");
        InvalidKafkoPropertyFailureAnalyzer analyzer = new InvalidKafkoPropertyFailureAnalyzer(environment);
        FailureAnalysis set = analyzer.analyze(new InvalidKafkoPropertyException("kafko.max-block", "must not be negative"));
        assertThat(set.getDescription()).contains("Property: kafko.max-block").contains("Value: \"-1s\"")
                .contains("Origin: \"kafko.max-block\" from property source \"mockProperties\"");
        FailureAnalysis unset = analyzer.analyze(new InvalidKafkoPropertyException("kafko.linger", "must not be negative"));
        assertThat(unset.getDescription()).isEqualTo("Invalid kafko configuration: kafko.linger must not be negative");
    }
}
