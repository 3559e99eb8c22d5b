package dev.kafko.spring.support.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The keys and names of a {@link KafkoListenerObservation}; set one on a container factory (or declare
 * it as a bean for the auto-configured factory) to replace
 * {@link KafkoListenerObservation.DefaultKafkoListenerObservationConvention}.
 */
public interface KafkoListenerObservationConvention extends ObservationConvention<KafkoRecordReceiverContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof KafkoRecordReceiverContext;
    }

    @Override
    default String getName() {
        return "kafko.listener";
    }
}
