package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.InvalidConfigException;
import dev.kafko.TopicConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The README's "Properties" table read as a contract: every row names a property the starter has (and every
 * property has a row), and the default each row gives is the one that applies. The table is what users read
 * first; the configuration metadata and {@link KafkoPropertiesTest} cover the IDE's view of the same defaults.
 */
class ReadmeClaimsPropertiesTest {

    /** The row of the per-topic keys, which has no property of its own in the metadata (kafko.topics is a map). */
    private static final String TOPICS_ROW = "kafko.topics.<name>.*";

    private static final Pattern CODE = Pattern.compile("`([^`]*)`");

    @Test
    void everyRowOfTheTableIsAPropertyAndEveryPropertyHasARow() throws IOException {
        Map<String, String> rows = readmeTable();
        Set<String> properties = metadataProperties().keySet();
        Set<String> expected = new LinkedHashSet<>(properties);
        expected.remove("kafko.topics");
        expected.add(TOPICS_ROW);
        assertThat(rows.keySet()).as("the README's property table").containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void everyDefaultInTheTableIsTheDefaultThatApplies() throws IOException {
        BeanWrapper fresh = new BeanWrapperImpl(new KafkoProperties());
        int compared = 0;
        for (Map.Entry<String, String> row : readmeTable().entrySet()) {
            String name = row.getKey();
            String text = row.getValue();
            if (name.equals(TOPICS_ROW)) {
                assertThat(text).as(name).isEqualTo("`kafko.defaults`");
                continue;
            }
            String path = Arrays.stream(name.substring("kafko.".length()).split("\\."))
                    .map(KafkoPropertiesTest::camel).collect(Collectors.joining("."));
            Object applies = fresh.getPropertyValue(path);
            Matcher code = CODE.matcher(text);
            if (!code.find()) {
                // "none", "forever": nothing is set
                assertThat(text).as(name).isIn("none", "forever");
                assertThat(applies == null || applies instanceof Collection<?> c && c.isEmpty())
                        .as("%s: the README gives no default (%s), but %s applies", name, text, applies).isTrue();
                continue;
            }
            Object documented = new Binder(List.of(new MapConfigurationPropertySource(Map.of(name, code.group(1)))),
                    null, ApplicationConversionService.getSharedInstance())
                    .bind(name, Bindable.of(fresh.getPropertyTypeDescriptor(path).getResolvableType()))
                    .orElse(null);
            if (documented instanceof Path p) {
                documented = p.normalize(); // ./kafko-data
            }
            assertThat(documented).as("%s: the README says %s", name, text).isEqualTo(applies);
            compared++;
        }
        assertThat(compared).as("rows with a default").isGreaterThan(25);
    }

    /**
     * "`kafko.defaults.partitions` | partitions of a new topic, 1 to 10,000": a count outside that range fails the
     * start naming the property, before the data directory is created; the bounds themselves start.
     */
    @Test
    void defaultPartitionsOutsideOneToTenThousandFailTheStartNamingTheProperty(@TempDir Path tmp) {
        Path dir = tmp.resolve("data");
        ApplicationContextRunner onDir = new ApplicationContextRunner()
                .withConfiguration(KafkoAutoConfigurationTest.ALL).withPropertyValues("kafko.data-dir=" + dir);
        for (String bad : List.of("0", "10001")) {
            onDir.withPropertyValues("kafko.defaults.partitions=" + bad).run(context -> {
                assertThat(context).as(bad).getFailure()
                        .hasRootCauseInstanceOf(InvalidConfigException.class)
                        .hasStackTraceContaining("kafko.defaults.partitions")
                        .hasStackTraceContaining("partitions must be between 1 and 10000, was " + bad);
                assertThat(context.getStartupFailure()).as(bad).satisfiesAnyOf(
                        f -> assertThat(f).isInstanceOf(InvalidKafkoPropertyException.class),
                        f -> assertThat(f).hasCauseInstanceOf(InvalidKafkoPropertyException.class),
                        f -> assertThat(f.getCause()).hasCauseInstanceOf(InvalidKafkoPropertyException.class));
                assertThat(dir).as(bad + " created nothing").doesNotExist();
            });
        }
        for (String good : List.of("1", "10000")) {
            onDir.withPropertyValues("kafko.defaults.partitions=" + good).run(context ->
                    assertThat(context).as(good).hasNotFailed());
        }
    }

    /**
     * "Durations and sizes take units ...: a plain number is milliseconds or bytes, Spring Boot's default, so
     * {@code retention: 7} keeps records for 7 ms."
     */
    @Test
    void aPlainNumberIsMillisecondsOrBytes() {
        new ApplicationContextRunner().withUserConfiguration(KafkoPropertiesTest.Props.class)
                .withPropertyValues("kafko.defaults.retention=7", "kafko.defaults.segment-size=2048",
                        "kafko.linger=3")
                .run(context -> {
                    KafkoProperties properties = context.getBean(KafkoProperties.class);
                    assertThat(properties.topicDefaults().retention()).isEqualTo(Duration.ofMillis(7));
                    assertThat(properties.topicDefaults().segmentBytes()).isEqualTo(2048);
                    assertThat(properties.getLinger()).isEqualTo(Duration.ofMillis(3));
                });
    }

    /**
     * "An environment variable cannot name a topic with a dot or a dash ({@code KAFKO_TOPICS_ORDERS_PARTITIONS}
     * declares {@code orders})."
     */
    @Test
    void anEnvironmentVariableDeclaresATopicInLowerCase() {
        new ApplicationContextRunner().withUserConfiguration(KafkoPropertiesTest.Props.class)
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new SystemEnvironmentPropertySource(
                                "test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, Map.of("KAFKO_TOPICS_ORDERS_PARTITIONS", "4"))))
                .run(context -> {
                    Map<String, TopicConfig> declared = context.getBean(KafkoProperties.class).declaredTopics();
                    assertThat(declared).containsOnlyKeys("orders");
                    assertThat(declared.get("orders").partitions()).isEqualTo(4);
                });
    }

    /** The rows of the README's table under "## Properties": the property (first cell) and its default (last cell). */
    static Map<String, String> readmeTable() throws IOException {
        Path readme = Path.of("..", "README.md");
        assertThat(readme).as("the repository's README, from the module's directory").exists();
        List<String> lines = Files.readAllLines(readme, StandardCharsets.UTF_8);
        int start = lines.indexOf("## Properties");
        assertThat(start).as("## Properties").isNotNegative();
        Map<String, String> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (int i = start + 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("| `kafko.")) {
                inTable = true;
                String name = line.substring(3, line.indexOf('`', 3));
                String[] cells = line.split("\\|");
                String defaultCell = cells[cells.length - 1].strip();
                if (defaultCell.isEmpty()) {
                    defaultCell = cells[cells.length - 2].strip();
                }
                assertThat(rows.put(name, defaultCell)).as("one row for %s", name).isNull();
            } else if (inTable && !line.startsWith("|")) {
                break;
            }
        }
        return rows;
    }

    private static Map<String, JsonNode> metadataProperties() throws IOException {
        try (InputStream in = ReadmeClaimsPropertiesTest.class
                .getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("metadata generated by spring-boot-configuration-processor").isNotNull();
            Map<String, JsonNode> properties = new LinkedHashMap<>();
            for (JsonNode property : new ObjectMapper().readTree(in).get("properties")) {
                properties.put(property.get("name").asString(), property);
            }
            return properties;
        }
    }
}
