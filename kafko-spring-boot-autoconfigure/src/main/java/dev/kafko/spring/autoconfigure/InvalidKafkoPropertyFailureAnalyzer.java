package dev.kafko.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@code kafko.*} property with a value that cannot work, naming it. */
final class InvalidKafkoPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidKafkoPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidKafkoPropertyException cause) {
        return new FailureAnalysis("Invalid kafko configuration: " + cause.getMessage(),
                "Update " + cause.getProperty() + " in your configuration (the README's Properties table lists"
                        + " every kafko.* property).", cause);
    }
}
