package dev.kafko.spring.listener;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.micrometer.KafkoListenerObservation;
import dev.kafko.spring.support.micrometer.KafkoListenerObservationConvention;
import dev.kafko.spring.support.micrometer.KafkoRecordReceiverContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Starts the {@link KafkoListenerObservation} of one record's delivery to a record listener: its attempts
 * and, when they fail, its recovery. Immutable; used by the polling threads of a listener's members.
 */
final class RecordObservations {

    /** Observes nothing. */
    static final RecordObservations NONE = new RecordObservations();

    /** Null for {@link #NONE}: a listener that observes nothing need not initialize {@link ObservationRegistry#NOOP}. */
    private final @Nullable ObservationRegistry registry;
    private final @Nullable KafkoListenerObservationConvention convention;

    RecordObservations(ObservationRegistry registry, @Nullable KafkoListenerObservationConvention convention) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.convention = convention;
    }

    private RecordObservations() {
        this.registry = null;
        this.convention = null;
    }

    /** The started observation of the record's delivery, or {@code null} when nothing is observed. */
    @Nullable Observation start(String listenerId, String groupId, KafkoRecord record) {
        ObservationRegistry registry = this.registry;
        if (registry == null || registry.isNoop()) {
            return null;
        }
        return KafkoListenerObservation.LISTENER_OBSERVATION.start(convention,
                KafkoListenerObservation.DefaultKafkoListenerObservationConvention.INSTANCE,
                () -> new KafkoRecordReceiverContext(listenerId, groupId, record), registry);
    }
}
