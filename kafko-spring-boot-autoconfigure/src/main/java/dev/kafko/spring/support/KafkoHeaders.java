package dev.kafko.spring.support;

/**
 * Names of the message headers the template reads and the listener adapters fill. They mirror
 * spring-kafka's {@code KafkaHeaders} with a {@code kafko_} prefix, so
 * {@code @Header(KafkoHeaders.RECEIVED_KEY)} reads like its Kafka counterpart.
 */
public final class KafkoHeaders {

    /** The prefix of every kafko header. */
    public static final String PREFIX = "kafko_";

    // --- read by KafkoTemplate.send(Message) ---------------------------------------------------
    /** The topic to send to. */
    public static final String TOPIC = PREFIX + "topic";
    /** The record key (String, byte[] or an object converted like a value). */
    public static final String KEY = PREFIX + "messageKey";
    /** The partition to send to (Integer). */
    public static final String PARTITION = PREFIX + "partitionId";
    /** The record timestamp in epoch millis (Long). */
    public static final String TIMESTAMP = PREFIX + "timestamp";

    // --- request/reply: written by the requester, read by a {@code @SendTo} listener ------------
    /**
     * The topic a listener method annotated with {@code @SendTo} that names no topic sends its result
     * to (text; a received record carries it as UTF-8 bytes). As spring-kafka's {@code kafka_replyTopic}.
     */
    public static final String REPLY_TOPIC = PREFIX + "replyTopic";
    /**
     * The partition of the reply topic a {@code @SendTo} reply goes to: a number, written (and read)
     * as its decimal text, where spring-kafka's {@code kafka_replyPartition} holds four big-endian bytes.
     */
    public static final String REPLY_PARTITION = PREFIX + "replyPartition";
    /**
     * Copied, bytes as they are, from a request to each {@code @SendTo} reply of a record listener, so
     * that the requester can match them. As spring-kafka's {@code kafka_correlationId}.
     */
    public static final String CORRELATION_ID = PREFIX + "correlationId";

    // --- set on received messages -------------------------------------------------------------
    /** The key of a received record (byte[]; converts to String). */
    public static final String RECEIVED_KEY = PREFIX + "receivedMessageKey";
    /** The topic a record was read from. */
    public static final String RECEIVED_TOPIC = PREFIX + "receivedTopic";
    /** The partition a record was read from (Integer). */
    public static final String RECEIVED_PARTITION = PREFIX + "receivedPartitionId";
    /** The offset of a received record (Long). */
    public static final String OFFSET = PREFIX + "offset";
    /** The timestamp of a received record (Long, epoch millis). */
    public static final String RECEIVED_TIMESTAMP = PREFIX + "receivedTimestamp";
    /** The group of the listener that received the record. */
    public static final String GROUP_ID = PREFIX + "groupId";
    /** The id of the listener that received the record. */
    public static final String LISTENER_ID = PREFIX + "listenerId";
    /**
     * The {@code info} of the listener that received the record ({@link dev.kafko.spring.annotation.KafkoListener#info()}),
     * a {@code String}, on the messages of a listener that gives one; never sent on (a message built from a received one
     * does not carry it into a new record). As spring-kafka's {@code kafka_listenerInfo}.
     */
    public static final String LISTENER_INFO = PREFIX + "listenerInfo";
    /** The {@link Acknowledgment} of the delivery. */
    public static final String ACKNOWLEDGMENT = PREFIX + "acknowledgment";
    /**
     * Which attempt at the record this invocation of a record listener is, an {@code int}: 1 for its
     * delivery, 2 for the error handler's first retry, and so on (counted by the container; a record
     * delivered again after a restart starts at 1). As spring-kafka's {@code kafka_deliveryAttempt}.
     */
    public static final String DELIVERY_ATTEMPT = PREFIX + "deliveryAttempt";
    /** The {@link dev.kafko.KafkoRecord} itself (a {@code List} of them for a batch). */
    public static final String RAW_DATA = PREFIX + "data";
    /**
     * A batch listener's conversion failures, a {@code List<MessageConversionException>} in record order: the failure of
     * each record whose payload could not be converted to the {@code T} of the listener's {@code List<T>} (its element
     * is then {@code null}), {@code null} for each record that converted. On every batch of a {@code List<T>} payload,
     * none of a {@code List<KafkoRecord>} or {@code List<Message<T>>} one. As spring-kafka's
     * {@code kafka_conversionFailures}, whose elements are its {@code ConversionException}s.
     */
    public static final String CONVERSION_FAILURES = PREFIX + "conversionFailures";

    // --- written by the template, read by the listener side ------------------------------------
    /** The class name of a value the template converted to JSON; listeners use it to pick the type. */
    public static final String TYPE = PREFIX + "type";

    // --- written on dead-letter records ------------------------------------------------------
    /**
     * The class name of the exception that sent the record to the dead-letter topic: what the listener
     * threw (an {@code Error} included), or the cause of a {@code @SendTo} reply that could not be written.
     */
    public static final String DLT_EXCEPTION_FQCN = PREFIX + "dlt-exception-fqcn";
    /** The class name of that exception's cause, if any; as spring-kafka's {@code kafka_dlt-exception-cause-fqcn}. */
    public static final String DLT_EXCEPTION_CAUSE_FQCN = PREFIX + "dlt-exception-cause-fqcn";
    /** The message of that exception (its cause's message is in the stack trace). */
    public static final String DLT_EXCEPTION_MESSAGE = PREFIX + "dlt-exception-message";
    /** The stack trace of that exception. */
    public static final String DLT_EXCEPTION_STACKTRACE = PREFIX + "dlt-exception-stacktrace";
    /** The topic the record was read from. */
    public static final String DLT_ORIGINAL_TOPIC = PREFIX + "dlt-original-topic";
    /** The partition the record was read from. */
    public static final String DLT_ORIGINAL_PARTITION = PREFIX + "dlt-original-partition";
    /** The offset the record had in its original partition. */
    public static final String DLT_ORIGINAL_OFFSET = PREFIX + "dlt-original-offset";
    /** The timestamp of the original record. */
    public static final String DLT_ORIGINAL_TIMESTAMP = PREFIX + "dlt-original-timestamp";
    /** The group of the listener that gave up on the record. */
    public static final String DLT_ORIGINAL_CONSUMER_GROUP = PREFIX + "dlt-original-consumer-group";

    /**
     * The attempt a record forwarded by a {@code @RetryableTopic} listener is at its next delivery (2 for the first
     * retry), in decimal text; on its dead letter, the attempts it had.
     */
    public static final String RETRY_ATTEMPTS = PREFIX + "retry-attempts";

    /** The epoch millisecond before which a retry topic's container does not deliver the record, in decimal text. */
    public static final String RETRY_BACKOFF_TIMESTAMP = PREFIX + "retry-backoff-timestamp";

    private KafkoHeaders() {
    }
}
