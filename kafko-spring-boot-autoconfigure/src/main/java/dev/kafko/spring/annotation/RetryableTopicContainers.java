package dev.kafko.spring.annotation;

import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.listener.LoggingRecordRecoverer;
import dev.kafko.spring.listener.RetryTopicRecoverer;
import org.springframework.util.backoff.FixedBackOff;

/** The container factory of each part of a {@link RetryableTopic} listener: a copy of the listener's own. */
final class RetryableTopicContainers {

    private RetryableTopicContainers() {
    }

    /**
     * The listener topic's and the retry topics' containers forward a failed record (no blocking retry), the retry
     * topics' waiting for each record's back-off; the dead-letter topic's logs a failure and skips the record, or
     * under {@link DltStrategy#ALWAYS_RETRY_ON_ERROR} publishes it to the dead-letter topic again and waits for the
     * back-off of each record it reads.
     */
    static KafkoListenerContainerFactory factoryFor(KafkoListenerContainerFactory containers,
                                                    RetryableTopicEndpoints.Planned planned) {
        KafkoListenerContainerFactory copy = containers.copy();
        if (planned.part() == RetryableTopicEndpoints.Part.DLT
                && planned.topics().dltStrategy() != DltStrategy.ALWAYS_RETRY_ON_ERROR) {
            copy.setErrorHandler(new DefaultErrorHandler(new FixedBackOff(0, 0), new LoggingRecordRecoverer()));
            return copy;
        }
        copy.setErrorHandler(new RetryTopicRecoverer(planned.topics(), containers.getBackend(),
                containers.getInstrumentation()).errorHandler());
        copy.setAwaitRetryBackOff(planned.part() != RetryableTopicEndpoints.Part.MAIN);
        return copy;
    }
}
