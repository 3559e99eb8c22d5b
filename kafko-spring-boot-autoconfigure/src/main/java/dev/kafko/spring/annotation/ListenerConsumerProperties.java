package dev.kafko.spring.annotation;

import dev.kafko.OffsetResetPolicy;
import java.io.IOException;
import java.io.StringReader;
import java.util.Collection;
import java.util.Locale;
import java.util.Properties;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.util.StringUtils;

/**
 * A listener's {@link KafkoListener#properties()}, read as spring-kafka reads them (every entry into one
 * {@code Properties}, a later key over an earlier), with the keys kafko has a counterpart of; any other key is
 * refused naming it.
 *
 * @param maxPollRecords the most records one poll gives the listener, or {@code null}
 * @param offsetReset where the listener's group starts without a commit, or {@code null}
 */
record ListenerConsumerProperties(@Nullable Integer maxPollRecords, @Nullable OffsetResetPolicy offsetReset) {

    /**
     * @param where how failures name the listener
     * @throws InvalidKafkoListenerException naming the entry or key that cannot work
     */
    static ListenerConsumerProperties read(String[] entries, String where, ListenerTopicPartitions.Resolver resolver) {
        Properties consumer = new Properties();
        for (String raw : entries) {
            load(raw, consumer, where, resolver);
        }
        Integer maxPollRecords = null;
        OffsetResetPolicy offsetReset = null;
        for (String key : new TreeSet<>(consumer.stringPropertyNames())) {
            String value = consumer.getProperty(key).strip();
            if (value.isEmpty()) {
                throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties entry '" + key
                        + "' is not key=value");
            }
            switch (key) {
                case "max.poll.records" -> maxPollRecords = parsePositive(value, "properties max.poll.records",
                        where);
                case "auto.offset.reset" -> offsetReset = parseOffsetReset(value, where);
                case "isolation.level" -> checkIsolationLevel(value, where);
                default -> throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties names '"
                        + key + "', which kafko has no counterpart of; it takes max.poll.records,"
                        + " auto.offset.reset and isolation.level (Kafka's timeouts, fetch sizes, client ids and"
                        + " deserializers have nothing to set in one process: remove it)");
            }
        }
        return new ListenerConsumerProperties(maxPollRecords, offsetReset);
    }

    /**
     * Loads one {@code properties} entry into {@code into}, as spring-kafka reads it: the entry resolves to text read
     * as a {@code .properties} file (one {@code key=value}, {@code key:value} or {@code key value} a line, comments
     * and blank lines skipped), or to a {@code String[]} or a {@code Collection} of such texts; an entry that
     * resolves to nothing adds nothing.
     */
    private static void load(String raw, Properties into, String where, ListenerTopicPartitions.Resolver resolver) {
        if (!StringUtils.hasText(raw)) {
            return;
        }
        Object resolved = resolver.resolve(raw, "properties");
        if (resolved == null) {
            return;
        }
        if (resolved instanceof String || resolved instanceof Number || resolved instanceof Boolean) {
            loadText(resolved.toString(), into, where);
        } else if (resolved instanceof String[] texts) {
            for (String text : texts) {
                loadText(text, into, where);
            }
        } else if (resolved instanceof Collection<?> texts) {
            for (Object text : texts) {
                if (!(text instanceof String)) {
                    throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties '" + raw
                            + "' resolved to a collection holding a " + (text == null ? "null" : text.getClass()
                            .getName()) + "; an entry resolves to text, a String[] or a Collection of text");
                }
                loadText((String) text, into, where);
            }
        } else {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties '" + raw + "' resolved"
                    + " to a " + resolved.getClass().getName() + "; an entry resolves to text (key=value lines), a"
                    + " String[] or a Collection of text, as in spring-kafka");
        }
    }

    /** {@code text} read as a {@code .properties} file into {@code into}. */
    private static void loadText(@Nullable String text, Properties into, String where) {
        if (text == null || !StringUtils.hasText(text)) {
            return;
        }
        try {
            into.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties entry '" + text.strip()
                    + "' cannot be read: " + e.getMessage(), e);
        }
    }

    private static int parsePositive(String value, String attribute, String where) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + attribute + " '" + value
                    + "' is not a whole number");
        }
        if (n < 1) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + attribute + " '" + value
                    + "' must be at least 1");
        }
        return n;
    }

    /**
     * {@code read_committed} or {@code read_uncommitted}: both read the same records, a transaction's records being
     * written to the log only at its commit (nothing uncommitted to skip or to see); any other value is refused.
     */
    private static void checkIsolationLevel(String value, String where) {
        String level = value.toLowerCase(Locale.ROOT);
        if (!level.equals("read_committed") && !level.equals("read_uncommitted")) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties isolation.level '"
                    + value + "' is neither read_committed nor read_uncommitted");
        }
    }

    private static OffsetResetPolicy parseOffsetReset(String value, String where) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "earliest" -> OffsetResetPolicy.EARLIEST;
            case "latest" -> OffsetResetPolicy.LATEST;
            case "none" -> throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties"
                    + " auto.offset.reset 'none' is neither earliest nor latest: a listener whose group has no commit"
                    + " starts somewhere in kafko (kafko.offset-reset=fail starts it at the log start and fails only a"
                    + " position outside the log); give earliest or latest");
            default -> throw new InvalidKafkoListenerException("@KafkoListener " + where + ": properties"
                    + " auto.offset.reset '" + value + "' is neither earliest nor latest");
        };
    }
}
