package dev.kafko.spring.listener;

import dev.kafko.UnknownTopicException;
import dev.kafko.spring.core.LogBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The topic pattern of a listener's container, its watch of the backend's topic creations from the container's
 * start until it is asked to stop, and the members of the topics it matches: made and started as such a topic is
 * created, ended as one is deleted. {@link #start}, {@link #stop} and what makes or ends members run under the
 * container's lock; a creation is matched on the creating thread before the container is told, so that a topic the
 * container does not follow never waits for its lock (see {@link ConcurrentMessageListenerContainer}).
 */
final class TopicPatternWatch {

    /** The container's: what it logs of its pattern stays under the logger an application configures for it. */
    private static final Logger LOG = LoggerFactory.getLogger(ConcurrentMessageListenerContainer.class);

    private final String listenerId;
    private final Pattern pattern;
    private final LogBackend backend;
    /** The container's members, those of the topics matched among them. */
    private final ContainerMembers members;
    private @Nullable AutoCloseable watch;

    TopicPatternWatch(String listenerId, Pattern pattern, LogBackend backend, ContainerMembers members) {
        this.listenerId = listenerId;
        this.pattern = pattern;
        this.backend = backend;
        this.members = members;
    }

    Pattern pattern() {
        return pattern;
    }

    /**
     * Whether the pattern matches {@code topic}: its whole name, and not the dead-letter topic of a topic it matches
     * too, which the listener's own failures fill. A pattern for dead-letter topics ({@code .*\\.DLT}) reads them,
     * but not the {@code <topic>.DLT.DLT} its own failures go to.
     */
    boolean follows(String topic) {
        if (!pattern.matcher(topic).matches()) {
            return false;
        }
        String suffix = DeadLetterPublishingRecoverer.SUFFIX;
        return !topic.endsWith(suffix)
                || !pattern.matcher(topic.substring(0, topic.length() - suffix.length())).matches();
    }

    /** Starts telling {@code followed} of each topic created that the pattern matches, unless it does already. */
    void start(Consumer<String> followed) {
        if (watch != null) {
            return;
        }
        watch = backend.watchTopicCreations(topic -> {
            if (follows(topic)) {
                followed.accept(topic);
            }
        });
        if (watch == null) {
            LOG.info("Listener '{}' reads the topics its pattern '{}' matches when it starts: this log does not"
                    + " tell the topics it creates", listenerId, pattern);
        }
    }

    /** Stops telling of creations. */
    void stop() {
        AutoCloseable ending = watch;
        watch = null;
        if (ending != null) {
            try {
                ending.close();
            } catch (Exception e) {
                LOG.debug("Ending the watch of topic creations of listener '{}' failed", listenerId, e);
            }
        }
    }

    /** The container starts: makes the members of each topic that exists and is followed, but is not read yet. */
    void addExisting() {
        for (String topic : backend.topicNames()) {
            if (follows(topic) && !members.topics().contains(topic)) {
                members.add(topic);
            }
        }
    }

    /**
     * A followed topic was created while the container runs: its members start, those made for it now or left
     * waiting for it, paused when a pause is asked for as they start ({@code paused}: getting the topic ready may run
     * application code that pauses or resumes the container). A topic the container cannot get ready (its
     * dead-letter topic cannot be created) is logged and not read.
     */
    void created(String topic, BooleanSupplier paused) {
        List<KafkoMessageListenerContainer> ofTopic = new ArrayList<>();
        for (KafkoMessageListenerContainer member : members.all()) {
            if (member.topic().equals(topic) && !member.isRunning()) {
                ofTopic.add(member);
            }
        }
        boolean added = !members.topics().contains(topic);
        if (!added && ofTopic.isEmpty()) {
            return; // read already (found by the start's look at the topics, which the watch began before)
        }
        try {
            if (!members.prepare(topic)) {
                return; // deleted again already
            }
        } catch (RuntimeException e) {
            LOG.error("Listener '{}' does not read topic '{}', which its pattern '{}' matches: {}", listenerId, topic,
                    pattern, e.getMessage(), e);
            return;
        }
        if (added) {
            ofTopic.addAll(members.add(topic));
            LOG.info("Listener '{}' reads topic '{}', created just now ({} member(s))", listenerId, topic,
                    ofTopic.size());
        }
        members.markCreatedWhileRunning(topic, backend.topicId(topic));
        members.start(ofTopic, paused);
    }

    /**
     * A member found its topic deleted, and could not read it again: when it still does not exist, every member of
     * it ends and the topic is no longer read ({@link ContainerLifecycle#retireDeletedTopic}).
     *
     * @param started whether the container runs
     * @return whether the member ends
     */
    boolean retire(KafkoMessageListenerContainer member, boolean started) {
        if (members.isRetiring(member)) {
            return true; // a sibling retired the topic first
        }
        String topic = member.topic();
        if (!started || !members.all().contains(member)) {
            return false;
        }
        try {
            backend.partitionCount(topic);
            return false; // created again meanwhile: the member reads it again
        } catch (UnknownTopicException gone) {
            // ends
        }
        int ending = members.drop(topic);
        LOG.info("Listener '{}' no longer reads topic '{}', which was deleted: its {} member(s) end; it reads the topic"
                + " again if it is created", listenerId, topic, ending);
        return true;
    }
}
