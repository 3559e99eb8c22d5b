package dev.kafko.spring.autoconfigure;

import dev.kafko.AlreadyOpenException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up that failed because {@code kafko.data-dir} is open already: most often a test
 * context beside another one on the same directory (test contexts stay open in Spring's cache), or a
 * second instance of the application.
 */
final class AlreadyOpenFailureAnalyzer extends AbstractFailureAnalyzer<AlreadyOpenException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, AlreadyOpenException cause) {
        return new FailureAnalysis(KafkoStartupFailureAnalyzer.named(cause),
                "A kafko data directory is opened by one application context at a time. In tests, set "
                        + "kafko.ephemeral=true, so that each context gets an empty log of its own (deleted when "
                        + "it closes); contexts that must share a log are one context: give the test classes the "
                        + "same configuration. Otherwise give each application its own kafko.data-dir, or stop "
                        + "the one that holds it.",
                cause);
    }
}
