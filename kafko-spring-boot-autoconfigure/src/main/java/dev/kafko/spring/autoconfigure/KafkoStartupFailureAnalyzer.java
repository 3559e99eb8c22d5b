package dev.kafko.spring.autoconfigure;

import dev.kafko.AlreadyOpenException;
import dev.kafko.InvalidPartitionException;
import dev.kafko.KafkoException;
import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Puts kafko's own start-up failures (a topic that cannot be created or checked, a data directory that
 * cannot be opened, a listener's partition the topic does not have) at the top of the report, where Spring Boot
 * otherwise leaves them at the bottom of a chain of bean-creation exceptions. A directory open elsewhere, an invalid listener and an invalid
 * property have their own analyses.
 */
final class KafkoStartupFailureAnalyzer extends AbstractFailureAnalyzer<KafkoException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, KafkoException cause) {
        if (cause instanceof AlreadyOpenException
                || findCause(rootFailure, InvalidKafkoListenerException.class) != null
                || findCause(rootFailure, InvalidKafkoPropertyException.class) != null) {
            return null; // analysed by their own analyzers, which name the directory, the listener or the property
        }
        if (cause instanceof InvalidPartitionException) {
            // a listener's topicPartitions beyond the topic's partitions: nothing to do with the directory
            return new FailureAnalysis("kafko could not start: " + named(cause),
                    "Give the listener's topicPartitions only partitions the topic has, or give the topic more"
                            + " (kafko.topics.<name>.partitions, or its NewTopic bean): a listener never adds"
                            + " partitions to a topic.", cause);
        }
        return new FailureAnalysis("kafko could not start: " + named(cause),
                "Check the kafko.* properties and the data directory the message names (kafko.data-dir, or"
                        + " java.io.tmpdir under kafko.ephemeral=true).", cause);
    }

    /**
     * The failure's message after its type's simple name where that says more than {@code KafkoException}, as a stack
     * trace begins: Boot prints an analysis in place of the trace, and the type is what a user looks up.
     */
    static String named(KafkoException cause) {
        return cause.getClass() == KafkoException.class ? cause.getMessage()
                : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
