package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@code @KafkoListener} that cannot work, naming its method and attribute. */
final class InvalidKafkoListenerFailureAnalyzer extends AbstractFailureAnalyzer<InvalidKafkoListenerException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidKafkoListenerException cause) {
        return new FailureAnalysis("Invalid listener: " + cause.getMessage(),
                "Fix the attribute of the @KafkoListener or @SendTo the message names (placeholders and SpEL are"
                        + " resolved before the check; #{__listener} is the listener's bean).", cause);
    }
}
