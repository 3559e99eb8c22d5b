package dev.kafko.spring.support.micrometer;

import dev.kafko.KafkoRecord;
import io.micrometer.observation.transport.ReceiverContext;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The context of one {@link KafkoListenerObservation}: the listener, its group and the record it is
 * given, whose headers carry the trace context the sender's observation propagated (the last header of a
 * name wins). Used on the container member's polling thread only.
 */
public class KafkoRecordReceiverContext extends ReceiverContext<KafkoRecord> {

    private final String listenerId;
    private final String groupId;
    private final KafkoRecord record;

    public KafkoRecordReceiverContext(String listenerId, String groupId, KafkoRecord record) {
        super(KafkoRecordReceiverContext::lastHeader);
        this.listenerId = Objects.requireNonNull(listenerId, "listenerId");
        this.groupId = Objects.requireNonNull(groupId, "groupId");
        this.record = Objects.requireNonNull(record, "record");
        setCarrier(record);
        setRemoteServiceName("kafko");
    }

    private static @Nullable String lastHeader(KafkoRecord record, String key) {
        dev.kafko.Header header = record.headers().lastHeader(key);
        return header == null ? null : header.valueAsString();
    }

    public String getListenerId() {
        return listenerId;
    }

    public String getGroupId() {
        return groupId;
    }

    /** The topic the record was read from. */
    public String getSource() {
        return record.topic();
    }

    public KafkoRecord getRecord() {
        return record;
    }
}
