package dev.kafko.spring.support.micrometer;

import dev.kafko.Header;
import io.micrometer.observation.transport.SenderContext;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The context of one {@link KafkoTemplateObservation}: the topic, the template's bean name and, as the
 * carrier, the headers a propagating handler (Micrometer Tracing's) writes the trace context into when the
 * observation starts. The template adds them to the record, each replacing any header of its name the
 * record carried (so a record a listener forwards with its headers carries one trace context, not two).
 * Used on the sending thread only.
 */
public class KafkoRecordSenderContext extends SenderContext<List<Header>> {

    private final String beanName;
    private final String destination;
    private final @Nullable Integer partition;

    /**
     * @param headers modifiable and usually empty: the headers the propagated context is written into,
     *     which the template then adds to the record
     */
    public KafkoRecordSenderContext(String beanName, String destination, @Nullable Integer partition,
                                    List<Header> headers) {
        super(KafkoRecordSenderContext::replaceHeader);
        this.beanName = Objects.requireNonNull(beanName, "beanName");
        this.destination = Objects.requireNonNull(destination, "destination");
        this.partition = partition;
        setCarrier(Objects.requireNonNull(headers, "headers"));
        setRemoteServiceName("kafko");
    }

    private static void replaceHeader(@Nullable List<Header> headers, String key, String value) {
        if (headers != null) {
            headers.removeIf(h -> h.key().equals(key));
            headers.add(Header.of(key, value));
        }
    }

    /** The name of the template's bean ({@code kafkoTemplate} for the auto-configured one). */
    public String getBeanName() {
        return beanName;
    }

    /** The topic the record is sent to. */
    public String getDestination() {
        return destination;
    }

    /** The partition the send named, or {@code null} when the key or round-robin chooses it. */
    public @Nullable Integer getPartition() {
        return partition;
    }
}
