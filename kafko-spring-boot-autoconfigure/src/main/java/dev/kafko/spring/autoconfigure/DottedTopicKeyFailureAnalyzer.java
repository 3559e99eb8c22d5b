package dev.kafko.spring.autoconfigure;

import java.beans.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
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
 * A declared topic whose name holds a dot, written without brackets ({@code kafko.topics.orders.DLT.partitions},
 * or {@code orders.DLT:} under {@code kafko.topics} in YAML), binds as a key {@code DLT.partitions} of topic
 * {@code orders}: Spring Boot's analysis said only that the key, lower-cased, was "left unbound". This one names the
 * topic and gives the bracket form. An environment variable ({@code KAFKO_TOPICS_MY_TOPIC_PARTITIONS}) holds no
 * brackets and reads its every underscore as a dot: it is told to declare the topic in a configuration file or in
 * {@code SPRING_APPLICATION_JSON}. (Spring Boot checks no variable of the process environment, its
 * {@code systemEnvironment} source, for unknown keys: there such a variable is ignored; this reaches the variables
 * of another environment property source.) Other unbound keys are left to {@link UnknownKafkoKeyFailureAnalyzer}.
 */
final class DottedTopicKeyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException>
        implements Ordered {

    private static final ConfigurationPropertyName TOPICS = ConfigurationPropertyName.of("kafko.topics");
    /** The keys of a declared topic ({@code partitions}, {@code segment-size}, ...). */
    private static Set<String> topicKeys() {
        return Arrays.stream(BeanUtils.getPropertyDescriptors(KafkoProperties.TopicProperties.class))
                .filter(d -> d.getWriteMethod() != null).map(PropertyDescriptor::getName)
                .map(DataObjectPropertyName::toDashedForm).collect(Collectors.toSet());
    }

    /** {@code value} as a JSON value: a number as it is, anything else quoted. */
    private static String json(@Nullable Object value) {
        String text = String.valueOf(value);
        return text.matches("-?\\d+") ? text : "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
        Set<String> topicKeys = topicKeys();
        List<String> lines = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        List<String> otherReadings = new ArrayList<>();
        boolean fromVariable = false;
        for (ConfigurationProperty property : cause.getUnboundProperties()) {
            ConfigurationPropertyName name = property.getName();
            int n = name.getNumberOfElements();
            // kafko . topics . <a> . <b> ... . <key>: a topic name of several elements before one of its keys
            if (!TOPICS.isAncestorOf(name) || n < 5
                    || !topicKeys.contains(name.getElement(n - 1, ConfigurationPropertyName.Form.DASHED))) {
                return null;
            }
            StringBuilder topic = new StringBuilder();
            for (int i = 2; i < n - 1; i++) {
                topic.append(i > 2 ? "." : "").append(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL));
            }
            String key = name.getElement(n - 1, ConfigurationPropertyName.Form.DASHED);
            String origin = property.getOrigin() != null ? " (" + property.getOrigin() + ")" : "";
            String variable = EmptyValueBindHandlerAdvisor.variable(property.getOrigin());
            if (variable != null) {
                lines.add("    " + variable + origin + ": binds no topic '" + topic + "', since an environment variable"
                        + " cannot name a topic with a dot, a dash or an underscore (each underscore separates parts)");
                fixes.add("    kafko.topics[" + topic + "]." + key
                        + " in a configuration file, or SPRING_APPLICATION_JSON="
                        + "{\"kafko\":{\"topics\":{\"[" + topic.toString().replace('.', '_') + "]\":{\""
                        + key + "\":" + json(property.getValue()) + "}}}}"
                        + " (the topic's own name in the brackets)");
                fromVariable = true;
            } else {
                lines.add("    kafko.topics." + topic + "." + key + origin + ": binds no topic '" + topic
                        + "', since a dot in a key separates its parts");
                fixes.add("    kafko.topics[" + topic + "]." + key + "  (YAML: \"[" + topic
                        + "]\": under kafko.topics)");
            }
            // the other reading: a topic without a dot and a dotted key of Kafka's (num.partitions, log.retention)
            String first = name.getElement(2, ConfigurationPropertyName.Form.ORIGINAL);
            String dottedKey = topic.substring(first.length() + 1) + "." + key;
            otherReadings.add("    if the topic is '" + first + "': '" + dottedKey + "' is no key of a topic");
        }
        if (lines.isEmpty()) {
            return null;
        }
        return new FailureAnalysis("kafko could not start: a declared topic's name holds a dot but is not in brackets:\n"
                + String.join("\n", lines),
                (fromVariable ? "Declare the topic where its name can be written in brackets:\n"
                        : "Write the topic's name in brackets:\n") + String.join("\n", fixes)
                        + "\nor, not meaning a dotted name,"
                        + " use a topic's own keys (" + String.join(", ", new TreeSet<>(topicKeys)) + "):\n"
                        + String.join("\n", otherReadings), cause);
    }
}
