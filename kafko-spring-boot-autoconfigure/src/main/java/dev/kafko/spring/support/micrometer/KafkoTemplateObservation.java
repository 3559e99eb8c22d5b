package dev.kafko.spring.support.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observation of a {@link dev.kafko.spring.core.KafkoTemplate} send, named {@code kafko.template}: it
 * starts when the send is called (where a propagating handler writes the trace context into the record's
 * headers) and stops when the record is written or refused (with the error then). With Micrometer's
 * meter handler it is also a timer {@code kafko.template}.
 */
public enum KafkoTemplateObservation implements ObservationDocumentation {

    /** A send through a template. */
    TEMPLATE_OBSERVATION {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultKafkoTemplateObservationConvention.class;
        }

        @Override
        public String getPrefix() {
            return "kafko.template";
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return TemplateLowCardinalityTags.values();
        }
    };

    /** The keys of a send's observation, each with few values. */
    public enum TemplateLowCardinalityTags implements KeyName {

        /** The template's bean name. */
        BEAN_NAME("kafko.template.name"),
        /** Always {@code kafko}. */
        MESSAGING_SYSTEM("messaging.system"),
        /** Always {@code publish}. */
        MESSAGING_OPERATION("messaging.operation"),
        /** Always {@code topic}. */
        MESSAGING_DESTINATION_KIND("messaging.destination.kind"),
        /** The topic. */
        MESSAGING_DESTINATION_NAME("messaging.destination.name");

        private final String key;

        TemplateLowCardinalityTags(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** The keys and names kafko gives a send's observation; extend it to add keys of your own. */
    public static class DefaultKafkoTemplateObservationConvention implements KafkoTemplateObservationConvention {

        /** The convention a template uses unless it is given another. */
        public static final DefaultKafkoTemplateObservationConvention INSTANCE =
                new DefaultKafkoTemplateObservationConvention();

        @Override
        public KeyValues getLowCardinalityKeyValues(KafkoRecordSenderContext context) {
            return KeyValues.of(TemplateLowCardinalityTags.BEAN_NAME.withValue(context.getBeanName()),
                    TemplateLowCardinalityTags.MESSAGING_SYSTEM.withValue("kafko"),
                    TemplateLowCardinalityTags.MESSAGING_OPERATION.withValue("publish"),
                    TemplateLowCardinalityTags.MESSAGING_DESTINATION_KIND.withValue("topic"),
                    TemplateLowCardinalityTags.MESSAGING_DESTINATION_NAME.withValue(context.getDestination()));
        }

        /** {@code <topic> send}, the span's name under Micrometer Tracing. */
        @Override
        public String getContextualName(KafkoRecordSenderContext context) {
            return context.getDestination() + " send";
        }

        @Override
        public String getName() {
            return "kafko.template";
        }
    }
}
