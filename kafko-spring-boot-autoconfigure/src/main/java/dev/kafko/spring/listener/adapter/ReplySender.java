package dev.kafko.spring.listener.adapter;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.KafkoOperations;
import dev.kafko.spring.listener.InvalidReplyHeaderException;
import dev.kafko.spring.support.KafkoHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Sends what a {@code @SendTo} listener method (or one declared to return messages) returned, and waits
 * until it is written. Internal to {@link MessagingMessageListenerAdapter}; called on a container member's
 * polling thread, and keeps no per-call state.
 *
 * <p>The topic is the one {@code @SendTo} names or, where it names none, the request record's
 * {@link KafkoHeaders#REPLY_TOPIC} header, read only when a reply needs it (a returned {@code Message}
 * with its own {@link KafkoHeaders#TOPIC} does not). A method without {@code @SendTo} declared to return a
 * {@code Message} or a {@code Collection} of them has its messages sent to the topics they name (one that names
 * none fails its record, without retries). As in spring-kafka, a record listener's reply also gets the
 * request's {@link KafkoHeaders#CORRELATION_ID} and goes to the partition its
 * {@link KafkoHeaders#REPLY_PARTITION} names (a returned {@code Message} keeps a correlation id or a
 * partition of its own), and keeps the request's key (a returned {@code Message} sets its own); a batch
 * listener's replies carry none of these. A returned {@code Iterable} is sent as a record per non-null
 * element, each with the same headers (unless iterables are not split: then one record holds it all, but for
 * an {@code Iterable} whose first element is a {@code Message}, split all the same, as in spring-kafka).
 */
final class ReplySender {

    private final String listenerId;
    /** The {@code @SendTo} topic; {@code null}: the request's {@link KafkoHeaders#REPLY_TOPIC} header. */
    private final @Nullable String topic;
    private final KafkoOperations<Object, Object> template;
    private final boolean batch;
    /**
     * Whether the listener has a {@code @SendTo}: without one (a method declared to return messages) a reply goes
     * only to the topic its {@code Message} names.
     */
    private final boolean sendTo;
    /** Whether a topic exists: one a request names must, never created on first use. */
    private final Predicate<String> existingTopic;
    /** Whether an {@code Iterable} result is sent a record per element; else as one record, unless of messages. */
    private final boolean splitIterables;

    ReplySender(String listenerId, @Nullable String topic, boolean sendTo, KafkoOperations<Object, Object> template,
                boolean batch, Predicate<String> existingTopic, boolean splitIterables) {
        if (topic == null && sendTo && batch) {
            throw new IllegalStateException("Batch listener '" + listenerId + "' has a @SendTo that names no topic;"
                    + " a batch has no one " + KafkoHeaders.REPLY_TOPIC + " header to reply to: name the topic");
        }
        this.listenerId = listenerId;
        this.topic = topic;
        this.sendTo = sendTo;
        this.template = template;
        this.batch = batch;
        this.existingTopic = existingTopic;
        this.splitIterables = splitIterables;
    }

    /**
     * Sends {@code result} as the reply to {@code records} (one record, or a batch).
     *
     * @throws InvalidReplyHeaderException when the reply needs a header of the request that is missing
     *     or unusable; nothing of the reply is sent then
     */
    void send(Object result, List<KafkoRecord> records) {
        Request request = batch ? Request.NONE : request(records.get(0));
        if (result instanceof Iterable<?> iterable && !splitIterables && !(iterable instanceof Collection<?>)) {
            // read once: an Iterable that gives one iterator (a stream's) is looked at here and then sent
            List<Object> copy = new ArrayList<>();
            iterable.forEach(copy::add);
            result = copy;
        }
        if (result instanceof Iterable<?> elements && (splitIterables || firstIsMessage(elements))) {
            // as spring-kafka does by default: a record per element (a Message keeps a collection whole)
            List<Object> values = new ArrayList<>();
            elements.forEach(e -> {
                if (e != null) {
                    values.add(e);
                }
            });
            String to = values.stream().allMatch(ReplySender::routed) ? null : topic(records.get(0));
            List<CompletableFuture<?>> sent = new ArrayList<>(values.size());
            for (Object value : values) {
                sent.add(send(value, to, request));
            }
            awaitWritten(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
            return;
        }
        awaitWritten(send(result, routed(result) ? null : topic(records.get(0)), request));
    }

    /**
     * Waits until the reply is written, failing the delivery when it was not; but not for a reply that joined a
     * transaction (the attempt's): that one is written at the commit, after the listener returns, and a reply
     * refused at the send fails the commit instead.
     */
    private void awaitWritten(CompletableFuture<?> sent) {
        if (!template.inTransaction()) {
            sent.join();
        }
    }

    /**
     * Whether the first element is a {@code Message}: then the iterable is sent a record per element even when
     * iterables are not split, the others too, plain values or not, as spring-kafka decides by the first element
     * alone. An empty iterable, or one whose first element is {@code null}, is sent whole.
     */
    private static boolean firstIsMessage(Iterable<?> elements) {
        Iterator<?> iterator = elements.iterator();
        return iterator.hasNext() && iterator.next() instanceof Message<?>;
    }

    /** Whether a reply names its own topic: a {@code Message} with a {@link KafkoHeaders#TOPIC}. */
    private static boolean routed(Object value) {
        return value instanceof Message<?> m && m.getHeaders().containsKey(KafkoHeaders.TOPIC);
    }

    private CompletableFuture<?> send(Object value, @Nullable String to, Request request) {
        CompletableFuture<?> sent;
        if (value instanceof Message<?> m) {
            sent = template.send(withRequestHeaders(m, to, request));
        } else if (request.correlationId() != null) {
            sent = template.send(MessageBuilder.withPayload(value).setHeader(KafkoHeaders.TOPIC, to)
                    .setHeader(KafkoHeaders.KEY, request.key()).setHeader(KafkoHeaders.PARTITION, request.partition())
                    .setHeader(KafkoHeaders.CORRELATION_ID, request.correlationId()).build());
        } else if (request.partition() != null) {
            sent = template.send(to, request.partition(), request.key(), value);
        } else {
            sent = template.send(to, request.key(), value);
        }
        if (sent == null) {
            throw new IllegalStateException("Listener '" + listenerId + "' sent its @SendTo reply to '" + to
                    + "' with a KafkoTemplate that returned no future (a mock of the template bean? @SendTo replies"
                    + " go through it)");
        }
        return sent;
    }

    /** The message with the topic, correlation id and partition of the request, where it has none of its own. */
    private static Message<?> withRequestHeaders(Message<?> message, @Nullable String to, Request request) {
        MessageHeaders headers = message.getHeaders();
        boolean needsTopic = to != null && !headers.containsKey(KafkoHeaders.TOPIC);
        boolean needsCorrelation = request.correlationId() != null && !headers.containsKey(KafkoHeaders.CORRELATION_ID);
        boolean needsPartition = request.partition() != null && !headers.containsKey(KafkoHeaders.PARTITION);
        if (!needsTopic && !needsCorrelation && !needsPartition) {
            return message;
        }
        MessageBuilder<?> builder = MessageBuilder.fromMessage(message);
        if (needsTopic) {
            builder.setHeader(KafkoHeaders.TOPIC, to);
        }
        if (needsCorrelation) {
            builder.setHeader(KafkoHeaders.CORRELATION_ID, request.correlationId());
        }
        if (needsPartition) {
            builder.setHeader(KafkoHeaders.PARTITION, request.partition());
        }
        return builder.build();
    }

    /** The topic of the reply: {@code @SendTo}'s, or the request's {@link KafkoHeaders#REPLY_TOPIC}. */
    private String topic(KafkoRecord request) {
        if (topic != null) {
            return topic;
        }
        if (!sendTo) {
            throw invalid(request, KafkoHeaders.TOPIC, "it has no @SendTo and the Message it returned has no "
                    + KafkoHeaders.TOPIC + " header: set the header on the Message, or name the topic in @SendTo");
        }
        String header = text(request, KafkoHeaders.REPLY_TOPIC);
        if (header == null) {
            throw invalid(request, KafkoHeaders.REPLY_TOPIC, "its @SendTo names no topic and the record has no "
                    + KafkoHeaders.REPLY_TOPIC + " header: set the header on the request, or name the topic in"
                    + " @SendTo");
        }
        try {
            Kafko.checkName("topic", header);
        } catch (InvalidNameException e) {
            throw invalid(request, KafkoHeaders.REPLY_TOPIC, "its " + KafkoHeaders.REPLY_TOPIC + " header names no"
                    + " valid topic: " + e.getMessage());
        }
        if (!existingTopic.test(header)) {
            // records must not be able to make the application create topics (and their files) at will
            throw invalid(request, KafkoHeaders.REPLY_TOPIC, "its " + KafkoHeaders.REPLY_TOPIC + " header names topic '"
                    + header + "', which does not exist; a reply topic that a request names is never created on"
                    + " first use: declare it (kafko.topics), or let the requester's listener on it create it; a"
                    + " NewTopic bean declares a topic too");
        }
        return header;
    }

    /** What a record listener's reply takes from its request: the key, the correlation id, the partition. */
    private Request request(KafkoRecord record) {
        byte[] correlationId = record.headers().lastValue(KafkoHeaders.CORRELATION_ID);
        String partition = text(record, KafkoHeaders.REPLY_PARTITION);
        if (partition == null) {
            return new Request(replyKey(record.key()), correlationId, null);
        }
        try {
            int p = Integer.parseInt(partition.strip());
            if (p >= 0) {
                return new Request(replyKey(record.key()), correlationId, p);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw invalid(record, KafkoHeaders.REPLY_PARTITION, "its " + KafkoHeaders.REPLY_PARTITION + " header '"
                + partition + "' is not a partition number (decimal text, 0 or more)");
    }

    /**
     * The request's key as the reply sends it: its text when its bytes are UTF-8 (the template stores a
     * {@code String} key as its UTF-8, so the reply's key bytes are the request's, and a {@code ProducerListener}
     * or a {@code SendResult} sees the text, as spring-kafka's replies carry the key its deserializer made),
     * otherwise the bytes themselves.
     */
    private static @Nullable Object replyKey(byte @Nullable [] key) {
        if (key == null) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(key)).toString();
        } catch (CharacterCodingException e) {
            return key;
        }
    }

    private InvalidReplyHeaderException invalid(KafkoRecord request, String header, String why) {
        return new InvalidReplyHeaderException(listenerId, header, "Listener '" + listenerId + "' cannot send its reply"
                + " to the record at " + request.topic() + "-" + request.partition() + "@" + request.offset() + ": "
                + why);
    }

    /** The last value of a header as UTF-8 text; {@code null} when absent or empty. */
    private static @Nullable String text(KafkoRecord record, String name) {
        byte[] value = record.headers().lastValue(name);
        return value == null || value.length == 0 ? null : new String(value, StandardCharsets.UTF_8);
    }

    /** What a reply takes from its request; all {@code null} for a batch's. */
    private record Request(@Nullable Object key, byte @Nullable [] correlationId, @Nullable Integer partition) {

        static final Request NONE = new Request(null, null, null);
    }
}
