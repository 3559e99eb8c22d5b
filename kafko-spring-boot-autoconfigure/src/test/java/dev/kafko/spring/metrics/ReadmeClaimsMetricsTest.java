package dev.kafko.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * README, "Metrics and health": the meters its first paragraph lists are the meters {@link KafkoMetrics} registers
 * (each of which goes with its topic), no more and no fewer, so that a meter renamed or added in the code and not in
 * the README (or the other way round) fails here.
 */
class ReadmeClaimsMetricsTest {

    private static final Pattern METER = Pattern.compile("`(kafko\\.[a-z]+(?:\\.[a-z]+)+)` \\((?:timer|gauge|gauges|counter)"
            + "|`(kafko\\.[a-z]+(?:\\.[a-z]+)+)` and\\s+(?=`)");

    @Test
    void theMetersTheReadmeListsAreTheOnesKafkoMetricsRegisters() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("## Metrics and health");
        assertThat(start).as("## Metrics and health").isNotNegative();
        // the list ends where the paragraph about KafkoInstrumentation beans begins
        int end = readme.indexOf("The template's and the containers' timings", start);
        assertThat(end).isGreaterThan(start);
        Set<String> listed = new LinkedHashSet<>();
        Matcher m = METER.matcher(readme.substring(start, end));
        while (m.find()) {
            listed.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        assertThat(listed).as("the meters the README lists").containsExactlyInAnyOrderElementsOf(registered());
    }

    @SuppressWarnings("unchecked")
    private static Set<String> registered() throws ReflectiveOperationException {
        Field field = KafkoMetrics.class.getDeclaredField("TOPIC_METERS");
        field.setAccessible(true);
        return (Set<String>) field.get(null);
    }
}
