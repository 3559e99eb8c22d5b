package dev.kafko.bench.spring;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.metrics.ApplicationStartup;

/**
 * Starts the benchmarks' Boot applications. The benchmark jar holds the auto-configurations of
 * both spring-kafka and kafko, so each application switches off the ones of the log it does not
 * use. Called from setup code only.
 */
final class BootContexts {

    private BootContexts() {
    }

    /** A non-web application of {@code sources} without banner or start-up log. */
    static ConfigurableApplicationContext start(List<Class<?>> sources, Map<String, Object> properties,
            List<String> excludedAutoConfigurationPrefixes) {
        return start(sources, properties, excludedAutoConfigurationPrefixes, ApplicationStartup.DEFAULT);
    }

    /** The same, recording its start-up steps into {@code startup}. */
    static ConfigurableApplicationContext start(List<Class<?>> sources, Map<String, Object> properties,
            List<String> excludedAutoConfigurationPrefixes, ApplicationStartup startup) {
        Map<String, Object> all = new HashMap<>(properties);
        all.put("spring.autoconfigure.exclude", autoConfigurationsStartingWith(excludedAutoConfigurationPrefixes));
        all.put("spring.main.banner-mode", "off");
        all.put("spring.main.log-startup-info", "false");
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.NONE)
                .applicationStartup(startup)
                .properties(all)
                .run();
    }

    /** An application on the kafko starter with {@code kafko.ephemeral=true}, spring-kafka switched off. */
    static ConfigurableApplicationContext startOnKafko(List<Class<?>> sources) {
        return start(sources, Map.of("kafko.ephemeral", "true"), List.of(LogUnderTest.KAFKA_AUTO_CONFIGURATIONS));
    }

    /** The auto-configurations on the class path whose names start with one of the prefixes, comma-separated. */
    private static String autoConfigurationsStartingWith(List<String> prefixes) {
        return ImportCandidates.load(AutoConfiguration.class, BootContexts.class.getClassLoader()).getCandidates().stream()
                .filter(name -> prefixes.stream().anyMatch(name::startsWith))
                .collect(Collectors.joining(","));
    }
}
