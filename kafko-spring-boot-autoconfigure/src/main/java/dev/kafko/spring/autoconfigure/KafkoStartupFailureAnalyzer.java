package dev.kafko.spring.autoconfigure;

import dev.kafko.AlreadyOpenException;
import dev.kafko.KafkoException;
import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Puts kafko's own start-up failures (a topic that cannot be created or checked, a data directory that
 * cannot be opened) at the top of the report, where Spring Boot otherwise leaves them at the bottom
 * of a chain of bean-creation exceptions. A directory open elsewhere has its own analysis
 * ({@link AlreadyOpenFailureAnalyzer}).
 */
final class KafkoStartupFailureAnalyzer extends AbstractFailureAnalyzer<KafkoException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, KafkoException cause) {
        if (cause instanceof AlreadyOpenException
                || findCause(rootFailure, InvalidKafkoListenerException.class) != null) {
            return null; // analysed by their own analyzers, which name the directory or the listener
        }
        return new FailureAnalysis("kafko could not start: " + cause.getMessage(),
                "Check the kafko.* properties and the data directory (kafko.data-dir) the message names.", cause);
    }
}
