package dev.kafko.spring.autoconfigure;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.util.ClassUtils;

/**
 * A migration half done: {@code spring.kafka.*} properties set in an application whose log is kafko, and
 * without spring-kafka on the class path, do nothing, silently. They are named in one warning at start-up,
 * with where to look instead. An application that also uses spring-kafka sets them for it: no warning then.
 */
final class SpringKafkaProperties {

    private static final Logger LOG = LoggerFactory.getLogger(SpringKafkaProperties.class);
    private static final String SPRING_KAFKA_TEMPLATE = "org.springframework.kafka.core.KafkaTemplate";
    /** At most this many names in the warning. */
    private static final int NAMED = 10;

    private SpringKafkaProperties() {
    }

    static void warnIfSetWithoutSpringKafka(Environment environment, @Nullable ClassLoader classLoader) {
        Set<String> names = names(environment);
        // the class check second: loading spring-kafka's template (when present) costs a start-up classes
        if (!names.isEmpty() && !ClassUtils.isPresent(SPRING_KAFKA_TEMPLATE, classLoader)) {
            LOG.warn("spring.kafka.* properties are set but kafko reads only kafko.* ones, so they do nothing here: {}{}"
                    + " (the README's property table maps them: a listener's group is its groupId or id, the reset"
                    + " policy is kafko.offset-reset, retries and dead letters are kafko.listener.*)",
                    String.join(", ", names.stream().limit(NAMED).toList()),
                    names.size() > NAMED ? " and " + (names.size() - NAMED) + " more" : "");
        }
    }

    /** The names of the {@code spring.kafka.*} properties set, environment variables ({@code SPRING_KAFKA_*}) included. */
    static Set<String> names(Environment environment) {
        Set<String> names = new TreeSet<>();
        if (!(environment instanceof ConfigurableEnvironment configurable)) {
            return names;
        }
        for (PropertySource<?> source : configurable.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    String lower = name.toLowerCase(Locale.ROOT);
                    if (lower.startsWith("spring.kafka.") || lower.startsWith("spring_kafka_")) {
                        names.add(name);
                    }
                }
            }
        }
        return names;
    }
}
