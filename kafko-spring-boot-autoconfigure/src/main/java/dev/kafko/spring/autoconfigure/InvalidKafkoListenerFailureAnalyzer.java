package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Reports a {@code @KafkoListener} that cannot work, naming its method and attribute. Ordered first: the
 * cause chain below the listener's exception (a SpEL bean reference to a missing bean, say) would otherwise
 * get Spring Boot's own analysis, which does not name the listener.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
final class InvalidKafkoListenerFailureAnalyzer extends AbstractFailureAnalyzer<InvalidKafkoListenerException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidKafkoListenerException cause) {
        return new FailureAnalysis("Invalid listener: " + cause.getMessage(),
                "Fix the attribute of the @KafkoListener or @SendTo the message names (placeholders and SpEL are"
                        + " resolved before the check; #{__listener} is the listener's bean).", cause);
    }
}
