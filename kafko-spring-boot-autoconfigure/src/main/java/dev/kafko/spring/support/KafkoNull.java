package dev.kafko.spring.support;

/**
 * The payload of a message that stands for a record without a value (a tombstone), since a Spring
 * {@link org.springframework.messaging.Message} cannot hold {@code null}; as spring-kafka's
 * {@code KafkaNull}. A listener's {@code Message<?>} parameter gets it for a tombstone, a
 * {@code @Payload(required = false)} parameter gets {@code null} (a required one fails the record, without
 * retries), and an element of a batch listener's list is {@code null}. Sending a message whose payload is
 * {@link #INSTANCE} through {@code KafkoTemplate.send(Message)} writes a tombstone. A record whose value
 * is empty (zero bytes) is not a tombstone: it arrives as {@code ""} or an empty {@code byte[]}.
 */
public final class KafkoNull {

    /** The one instance. */
    public static final KafkoNull INSTANCE = new KafkoNull();

    private KafkoNull() {
    }

    @Override
    public String toString() {
        return "KafkoNull";
    }
}
