package dev.kafko.spring.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * A key under {@code kafko.} that names no property fails the start ({@link KafkoProperties} refuses unknown keys):
 * Spring Boot's analysis of that prints its binding target ({@code Bindable@... type = ...KafkoProperties, value =
 * 'provided', annotations = ...}) and says the key was "left unbound", which reads as a fault of kafko's rather than a
 * typo. This one names each such key, where it was set and the known key closest to it ({@code
 * kafko.topic.orders.partitions}: {@code kafko.topics.orders.partitions}), and says why kafko refuses it. A topic name
 * with a dot written without brackets is {@link DottedTopicKeyFailureAnalyzer}'s, which runs first.
 */
final class UnknownKafkoKeyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException>
        implements Ordered {

    private static final ConfigurationPropertyName KAFKO = ConfigurationPropertyName.of("kafko");
    /** The farthest (in edits) a known key may be from an unknown one to be offered in its place. */
    private static final int MAX_DISTANCE = 3;

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE + 1;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
        List<String> lines = new ArrayList<>();
        for (ConfigurationProperty property : cause.getUnboundProperties()) {
            ConfigurationPropertyName name = property.getName();
            if (!KAFKO.isAncestorOf(name)) {
                return null;
            }
            String key = dashed(name);
            String origin = property.getOrigin() != null ? " (" + property.getOrigin() + ")" : "";
            String closest = closest(key, name);
            lines.add("    " + key + origin + (closest != null ? ": did you mean " + closest + "?" : ""));
        }
        if (lines.isEmpty()) {
            return null;
        }
        return new FailureAnalysis("kafko could not start: no kafko property has the name of:\n"
                + String.join("\n", lines),
                "Correct or remove the key. kafko refuses a kafko.* key it does not know, where Spring Boot's own "
                        + "prefixes ignore one, so that a misspelt limit does not silently keep its default; the "
                        + "README's Properties table lists every kafko.* property, and an IDE completes them from "
                        + "the starter's configuration metadata.",
                cause);
    }

    /** The name in its dashed form, but a topic's name under {@code kafko.topics} as it was written. */
    private static String dashed(ConfigurationPropertyName name) {
        StringBuilder key = new StringBuilder();
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            ConfigurationPropertyName.Form form = i == 2 && name.getElement(1, ConfigurationPropertyName.Form.DASHED)
                    .startsWith("topic") ? ConfigurationPropertyName.Form.ORIGINAL : ConfigurationPropertyName.Form.DASHED;
            key.append(i > 0 ? "." : "").append(name.getElement(i, form));
        }
        return key.toString();
    }

    /**
     * The known key fewest edits away from {@code key}: within {@link #MAX_DISTANCE} edits, or, beside a key of the
     * same group, within a third of its last part ({@code max-record-bytes} for {@code max-record-size}); null when
     * none is. The keys of a declared topic are tried with the name's third element as the topic
     * ({@code kafko.topic.orders.partitions}).
     */
    private static @Nullable String closest(String key, ConfigurationPropertyName name) {
        String topic = name.getNumberOfElements() >= 4
                ? name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL) : "<name>";
        List<String> known = new ArrayList<>();
        collect("kafko", KafkoProperties.class, topic, known);
        String lowerKey = key.toLowerCase(Locale.ROOT);
        String group = lowerKey.substring(0, lowerKey.lastIndexOf('.') + 1);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            String lowerCandidate = candidate.toLowerCase(Locale.ROOT);
            int distance = distance(lowerKey, lowerCandidate);
            int allowed = lowerCandidate.startsWith(group) && lowerCandidate.indexOf('.', group.length()) < 0
                    ? Math.max(MAX_DISTANCE, (lowerKey.length() - group.length()) / 3) : MAX_DISTANCE;
            if (distance <= allowed && distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return best;
    }

    /** Adds the keys of {@code type}'s JavaBean properties under {@code prefix}, its nested groups' too. */
    private static void collect(String prefix, Class<?> type, String topic, List<String> known) {
        for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
            if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
                continue;
            }
            String key = prefix + "." + DataObjectPropertyName.toDashedForm(descriptor.getName());
            Class<?> propertyType = descriptor.getPropertyType();
            if (descriptor.getWriteMethod() != null) {
                known.add(key);
            } else if (Map.class.isAssignableFrom(propertyType)) {
                // kafko.topics: a declared topic's keys are those of KafkoProperties.TopicProperties
                collect(key + "." + topic, KafkoProperties.TopicProperties.class, topic, known);
            } else if (propertyType.getEnclosingClass() == KafkoProperties.class) {
                collect(key, propertyType, topic, known);
            }
        }
    }

    /** Levenshtein distance: the fewest inserted, deleted or replaced characters that make {@code a} into {@code b}. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int replace = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(replace, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
