package dev.kafko.spring.annotation;

import dev.kafko.Header;
import dev.kafko.KafkoRecord;
import dev.kafko.UnknownTopicException;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.listener.LoggingRecordRecoverer;
import dev.kafko.spring.listener.RetryTopicRecoverer;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.support.KafkoHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.backoff.FixedBackOff;

/** The container factory of each part of a {@link RetryableTopic} listener: a copy of the listener's own. */
final class RetryableTopicContainers {

    private static final Logger LOG = LoggerFactory.getLogger(RetryableTopicContainers.class);

    private RetryableTopicContainers() {
    }

    /**
     * The listener topic's and the retry topics' containers forward a failed record (no blocking retry), the retry
     * topics' waiting for each record's back-off; the dead-letter topic's logs a failure and skips the record, or
     * under {@link DltStrategy#ALWAYS_RETRY_ON_ERROR} publishes it to the dead-letter topic again and waits for the
     * back-off of each record it reads. For the listener topic's, the records an earlier configuration left in retry
     * topics this one does not read are named first ({@link #warnOfAbandonedRetryTopics}).
     */
    static KafkoListenerContainerFactory factoryFor(KafkoListenerContainerFactory containers,
                                                    RetryableTopicEndpoints.Planned planned) {
        KafkoListenerContainerFactory copy = containers.copy();
        if (planned.part() == RetryableTopicEndpoints.Part.DLT
                && planned.topics().dltStrategy() != DltStrategy.ALWAYS_RETRY_ON_ERROR) {
            copy.setErrorHandler(new DefaultErrorHandler(new FixedBackOff(0, 0), new LoggingRecordRecoverer()));
            return copy;
        }
        if (planned.part() == RetryableTopicEndpoints.Part.MAIN) {
            for (RetryTopics topics : planned.plans()) {
                warnOfAbandonedRetryTopics(containers.getBackend(), planned, topics);
            }
        }
        copy.setErrorHandler(new RetryTopicRecoverer(planned.plans(), containers.getBackend(),
                containers.getInstrumentation()).errorHandler());
        copy.setAwaitRetryBackOff(planned.part() != RetryableTopicEndpoints.Part.MAIN);
        return copy;
    }

    /**
     * Warns of the records waiting in retry topics of the listener's topic that its configuration no longer reads.
     * The retry topics are named after the back-offs ({@code -retry} for a fixed one, {@code -retry-1000},
     * {@code -retry-2000}, ... for a multiplied one, or as the listener's naming strategies say) and their count after
     * the attempts: an application restarted on its data directory with another back-off, fewer attempts or other
     * naming strategies reads other topics, and what the earlier one had forwarded to the others would stay there
     * unnoticed, neither retried nor dead-lettered. Counted from the listener group's commits
     * (a partition without one from its start); nothing is said of a topic the group has consumed to its end, nor of
     * a partition whose first such record another group forwarded (a retry topic of another listener of the topic,
     * which that one reads), nor of one of the listener's own topics.
     */
    static void warnOfAbandonedRetryTopics(LogBackend backend, RetryableTopicEndpoints.Planned planned) {
        warnOfAbandonedRetryTopics(backend, planned, planned.topics());
    }

    /** As {@link #warnOfAbandonedRetryTopics(LogBackend, RetryableTopicEndpoints.Planned)}, for one topic's plan. */
    static void warnOfAbandonedRetryTopics(LogBackend backend, RetryableTopicEndpoints.Planned planned,
                                           RetryTopics topics) {
        String base = topics.topic() + planned.retryTopicSuffix();
        Set<String> names;
        try {
            names = backend.topicNames();
        } catch (UnsupportedOperationException e) {
            return; // a backend that cannot list its topics: nothing to look at
        }
        String group = planned.endpoint().groupId();
        List<String> abandoned = new ArrayList<>();
        long records = 0;
        boolean numbered = topics.retryTopics().size() > 1;
        for (String name : new TreeSet<>(names)) {
            if (!isRetryTopicName(name, base) || topics.retryTopics().contains(name)
                    || topics.isDltTopic(name) || planned.endpoint().topics().contains(name)) {
                continue; // one the listener reads itself (orders-retry beside orders) is read, not abandoned
            }
            long waiting;
            try {
                waiting = unconsumed(backend, name, topics.topic(), group);
            } catch (UnknownTopicException e) {
                continue; // deleted since it was listed
            }
            if (waiting > 0) {
                abandoned.add("'" + name + "' (" + waiting + ")");
                records += waiting;
                numbered &= isNumberedRetryTopic(name, base, topics.retryTopics().size());
            }
        }
        if (!abandoned.isEmpty()) {
            // an earlier kafko numbered a multiplied back-off's retry topics (base-0, base-1, ...) where this one
            // names them by their delays: an upgrade with the same settings reads other topics
            String numberedHint = numbered ? " (" + base + "-0, -1, ... are numbered names, as an earlier version"
                    + " gave a multiplied back-off's retry topics and this one a fixed back-off's under"
                    + " MULTIPLE_TOPICS: with topicSuffixingStrategy = SUFFIX_WITH_INDEX_VALUE this listener reads"
                    + " them)"
                    : "";
            LOG.warn("Retryable listener '{}' of topic '{}' reads the retry topics {}, not {}, which hold {}"
                    + " record(s) that its group '{}' has not consumed: forwarded there under other attempts or"
                    + " another back-off, they will be neither retried nor dead-lettered. Consume them with a"
                    + " @KafkoListener of those topics in group '{}', or start once more with the earlier settings"
                    + " until they are consumed{}", planned.endpoint().id(), topics.topic(), topics.retryTopics(),
                    String.join(", ", abandoned), records, group, group, numberedHint);
        }
    }

    /**
     * Warns of the records that a listener with no retry topics now (its topic excluded from the
     * {@code RetryTopicConfiguration} bean, the bean or its {@link RetryableTopic} removed) left waiting in the retry
     * topics an earlier configuration gave it: no container reads them any more, so they are neither retried nor
     * dead-lettered. Only the default suffix, {@code -retry}, is looked at, and only the records of a partition whose
     * first record past the group's commit was forwarded by this listener's group from this topic (the
     * {@code kafko_dlt-original-*} headers), so that a listener of the topic in another group beside a retryable
     * one is not warned of that one's retry topics.
     */
    static void warnOfRetryTopicsLeftBehind(LogBackend backend, KafkoListenerEndpoint endpoint) {
        if (endpoint.topics().isEmpty()) {
            return;
        }
        Set<String> names;
        try {
            names = backend.topicNames();
        } catch (UnsupportedOperationException e) {
            return;
        }
        String group = endpoint.groupId();
        for (String topic : endpoint.topics()) {
            String base = topic + "-retry";
            List<String> abandoned = new ArrayList<>();
            long records = 0;
            for (String name : new TreeSet<>(names)) {
                if (!isRetryTopicName(name, base) || endpoint.topics().contains(name)) {
                    continue;
                }
                long waiting;
                try {
                    waiting = forwardedAndUnconsumed(backend, name, topic, group);
                } catch (RuntimeException e) {
                    // deleted since it was listed, a backend that cannot read by offset, a partition that cannot be
                    // read: a warning never fails the listener's start
                    continue;
                }
                if (waiting > 0) {
                    abandoned.add("'" + name + "' (" + waiting + ")");
                    records += waiting;
                }
            }
            if (!abandoned.isEmpty()) {
                LOG.warn("Listener '{}' of topic '{}' has no retry topics, but {} hold {} record(s) that its group"
                        + " '{}' forwarded there under an earlier configuration (@RetryableTopic or a"
                        + " RetryTopicConfiguration bean) and has not consumed: they will be neither retried nor"
                        + " dead-lettered. Consume them with a @KafkoListener of those topics in group '{}', or start"
                        + " once more with the earlier settings until they are consumed", endpoint.id(), topic,
                        String.join(", ", abandoned), records, group, group);
            }
        }
    }

    /**
     * The records of {@code retryTopic} past {@code group}'s commits, counted in the partitions whose first such
     * record {@code group} forwarded from {@code topic}.
     */
    private static long forwardedAndUnconsumed(LogBackend backend, String retryTopic, String topic, String group) {
        Map<Integer, Long> committed = backend.committedOffsets(retryTopic, group);
        long waiting = 0;
        for (Map.Entry<Integer, Long> end : backend.endOffsets(retryTopic).entrySet()) {
            Long at = committed.get(end.getKey());
            long from = at == null ? 0 : at;
            if (end.getValue() <= from) {
                continue;
            }
            KafkoRecord first = backend.read(retryTopic, end.getKey(), from, Duration.ZERO);
            if (first != null && group.equals(text(first, KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP))
                    && topic.equals(text(first, KafkoHeaders.DLT_ORIGINAL_TOPIC))) {
                waiting += end.getValue() - from;
            }
        }
        return waiting;
    }

    private static @Nullable String text(KafkoRecord record, String header) {
        Header last = record.headers().lastHeader(header);
        return last == null ? null : last.valueAsString();
    }

    /** Whether {@code name} is {@code base-<i>} for an index below {@code count}, as earlier versions named them. */
    private static boolean isNumberedRetryTopic(String name, String base, int count) {
        if (name.length() <= base.length() + 1 || name.length() > base.length() + 5 || !name.startsWith(base + "-")) {
            return false;
        }
        String index = name.substring(base.length() + 1);
        for (int i = 0; i < index.length(); i++) {
            if (!Character.isDigit(index.charAt(i))) {
                return false;
            }
        }
        return (index.length() == 1 || index.charAt(0) != '0') && Integer.parseInt(index) < count;
    }

    /**
     * {@code base} itself (a single retry topic's), {@code base-N} (a back-off's or an index's) or {@code base-N-M}
     * (one of several topics of one back-off).
     */
    private static boolean isRetryTopicName(String name, String base) {
        if (name.equals(base)) {
            return true;
        }
        if (name.length() <= base.length() + 1 || !name.startsWith(base) || name.charAt(base.length()) != '-') {
            return false;
        }
        int numbers = 0;
        boolean digits = false;
        for (int i = base.length() + 1; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isDigit(c)) {
                digits = true;
            } else if (c == '-' && digits && numbers == 0) {
                numbers = 1;
                digits = false;
            } else {
                return false;
            }
        }
        return digits;
    }

    /** The records of {@code topic} past {@code group}'s commits (from a partition's start where it has none). */
    private static long unconsumed(LogBackend backend, String retryTopic, String topic, String group) {
        Map<Integer, Long> committed = backend.committedOffsets(retryTopic, group);
        long waiting = 0;
        for (Map.Entry<Integer, Long> end : backend.endOffsets(retryTopic).entrySet()) {
            Long at = committed.get(end.getKey());
            long from = at == null ? 0 : at;
            if (end.getValue() > from && !forwardedByAnother(backend, retryTopic, end.getKey(), from, topic, group)) {
                waiting += end.getValue() - from;
            }
        }
        return waiting;
    }

    /**
     * Whether the first record of the partition past {@code from} was forwarded by another group or from another
     * topic (its {@code kafko_dlt-original-*} headers): a retry topic of another listener of the topic, in another
     * group, which that one reads and this group never consumes. A record without those headers, or one that cannot
     * be read, is taken for this listener's.
     */
    private static boolean forwardedByAnother(LogBackend backend, String retryTopic, int partition, long from,
                                              String topic, String group) {
        KafkoRecord first;
        try {
            first = backend.read(retryTopic, partition, from, Duration.ZERO);
        } catch (UnknownTopicException e) {
            throw e;
        } catch (RuntimeException e) {
            return false;
        }
        if (first == null) {
            return false;
        }
        String forwardingGroup = text(first, KafkoHeaders.DLT_ORIGINAL_CONSUMER_GROUP);
        String forwardedFrom = text(first, KafkoHeaders.DLT_ORIGINAL_TOPIC);
        return forwardingGroup != null && !forwardingGroup.equals(group)
                || forwardedFrom != null && !forwardedFrom.equals(topic);
    }
}
