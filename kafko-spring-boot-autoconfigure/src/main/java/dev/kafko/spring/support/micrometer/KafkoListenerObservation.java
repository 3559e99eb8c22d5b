package dev.kafko.spring.support.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observation of one record's delivery to a record listener, named {@code kafko.listener}: the
 * listener's attempts and, when they all fail, the error handler's recovery (a dead letter, a log line).
 * It continues the trace context the record's headers carry and is current on the polling thread
 * throughout, so what the method sends, logs or calls belongs to the same trace; its error is the first
 * failed attempt's, also when a retry then succeeded. Batch listeners are not observed: a batch holds
 * records of many traces. With Micrometer's meter handler it is also a timer {@code kafko.listener}.
 */
public enum KafkoListenerObservation implements ObservationDocumentation {

    /** One record's delivery to a record listener. */
    LISTENER_OBSERVATION {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultKafkoListenerObservationConvention.class;
        }

        @Override
        public String getPrefix() {
            return "kafko.listener";
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return ListenerLowCardinalityTags.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return ListenerHighCardinalityTags.values();
        }
    };

    /** The keys of a listener's observation, each with few values. */
    public enum ListenerLowCardinalityTags implements KeyName {

        /** The listener's id. */
        LISTENER_ID("kafko.listener.id"),
        /** Always {@code kafko}. */
        MESSAGING_SYSTEM("messaging.system"),
        /** Always {@code process}. */
        MESSAGING_OPERATION("messaging.operation"),
        /** Always {@code topic}. */
        MESSAGING_SOURCE_KIND("messaging.source.kind"),
        /** The topic. */
        MESSAGING_SOURCE_NAME("messaging.source.name"),
        /** The listener's group. */
        MESSAGING_CONSUMER_GROUP("messaging.consumer.group.name");

        private final String key;

        ListenerLowCardinalityTags(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** The keys of a listener's observation that identify its record. */
    public enum ListenerHighCardinalityTags implements KeyName {

        /** The record's partition. */
        MESSAGING_PARTITION("messaging.destination.partition.id"),
        /** The record's offset. */
        MESSAGING_OFFSET("messaging.kafko.message.offset");

        private final String key;

        ListenerHighCardinalityTags(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** The keys and names kafko gives a listener's observation; extend it to add keys of your own. */
    public static class DefaultKafkoListenerObservationConvention implements KafkoListenerObservationConvention {

        /** The convention a container uses unless its factory is given another. */
        public static final DefaultKafkoListenerObservationConvention INSTANCE =
                new DefaultKafkoListenerObservationConvention();

        @Override
        public KeyValues getLowCardinalityKeyValues(KafkoRecordReceiverContext context) {
            return KeyValues.of(ListenerLowCardinalityTags.LISTENER_ID.withValue(context.getListenerId()),
                    ListenerLowCardinalityTags.MESSAGING_SYSTEM.withValue("kafko"),
                    ListenerLowCardinalityTags.MESSAGING_OPERATION.withValue("process"),
                    ListenerLowCardinalityTags.MESSAGING_SOURCE_KIND.withValue("topic"),
                    ListenerLowCardinalityTags.MESSAGING_SOURCE_NAME.withValue(context.getSource()),
                    ListenerLowCardinalityTags.MESSAGING_CONSUMER_GROUP.withValue(context.getGroupId()));
        }

        @Override
        public KeyValues getHighCardinalityKeyValues(KafkoRecordReceiverContext context) {
            return KeyValues.of(
                    ListenerHighCardinalityTags.MESSAGING_PARTITION.withValue(
                            String.valueOf(context.getRecord().partition())),
                    ListenerHighCardinalityTags.MESSAGING_OFFSET.withValue(
                            String.valueOf(context.getRecord().offset())));
        }

        /** {@code <topic> process}, the span's name under Micrometer Tracing. */
        @Override
        public String getContextualName(KafkoRecordReceiverContext context) {
            return context.getSource() + " process";
        }

        @Override
        public String getName() {
            return "kafko.listener";
        }
    }
}
