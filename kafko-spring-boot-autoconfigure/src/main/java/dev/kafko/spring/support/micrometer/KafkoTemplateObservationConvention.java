package dev.kafko.spring.support.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The keys and names of a {@link KafkoTemplateObservation}; set one on a template (or declare it as a
 * bean for the auto-configured template) to replace
 * {@link KafkoTemplateObservation.DefaultKafkoTemplateObservationConvention}.
 */
public interface KafkoTemplateObservationConvention extends ObservationConvention<KafkoRecordSenderContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof KafkoRecordSenderContext;
    }

    @Override
    default String getName() {
        return "kafko.template";
    }
}
