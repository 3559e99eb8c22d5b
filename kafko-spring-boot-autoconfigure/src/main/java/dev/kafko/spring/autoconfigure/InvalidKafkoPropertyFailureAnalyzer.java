package dev.kafko.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

/**
 * Reports a {@code kafko.*} property with a value that cannot work, naming it and, when the environment
 * has it, its value and where it was set ({@code class path resource [application.properties] - 3:12}, an
 * environment variable ...), as Spring Boot does for its own properties.
 */
final class InvalidKafkoPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidKafkoPropertyException> {

    private final @Nullable Environment environment;

    /** @param environment the failed application's, or null when the failure came before there was one */
    InvalidKafkoPropertyFailureAnalyzer(@Nullable Environment environment) {
        this.environment = environment;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidKafkoPropertyException cause) {
        StringBuilder description = new StringBuilder("Invalid kafko configuration: ").append(cause.getMessage());
        ConfigurationProperty property = find(cause.getProperty());
        if (property != null) {
            description.append("\n\n    Property: ").append(property.getName())
                    .append("\n    Value: \"").append(property.getValue()).append('"');
            if (property.getOrigin() != null) {
                description.append("\n    Origin: ").append(property.getOrigin());
            }
        }
        return new FailureAnalysis(description.toString(), "Update " + cause.getProperty()
                + " in your configuration (the README's Properties table lists every kafko.* property).", cause);
    }

    /**
     * The property as the environment holds it, from its first source that has it; for a prefix (a topic
     * whose name is refused: {@code kafko.topics[bad$name]}), the first property below it; null if none.
     */
    private @Nullable ConfigurationProperty find(String name) {
        ConfigurationPropertyName key = ConfigurationPropertyName.ofIfValid(name);
        if (environment == null || key == null) {
            return null;
        }
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(key);
            if (property != null) {
                return property;
            }
            if (source instanceof IterableConfigurationPropertySource iterable) {
                for (ConfigurationPropertyName candidate : iterable) {
                    if (key.isAncestorOf(candidate)) {
                        return iterable.getConfigurationProperty(candidate);
                    }
                }
            }
        }
        return null;
    }
}
