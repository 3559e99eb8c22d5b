package dev.kafko.spring.config;

import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import java.lang.reflect.Method;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A resolved {@code @KafkoListener}: every placeholder and expression already evaluated. Unset
 * values ({@code null}) take the container factory's defaults.
 *
 * @param id the listener id
 * @param topics the topics, at least one
 * @param groupId the consumer group
 * @param concurrency members per topic, or {@code null}
 * @param autoStartup whether to start with the context, or {@code null}
 * @param batch whether the method takes a whole poll
 * @param ackMode the ack mode, or {@code null}
 * @param bean the bean to invoke
 * @param method the method to invoke
 * @param replyTopic the topic the method's {@code @SendTo} names, or {@code null}
 * @param containerFactory the bean name of the container factory, or {@code null} for the default one
 * @param replyToHeader whether the method has a {@code @SendTo} that names no topic (then
 *     {@code replyTopic} is {@code null}): each result goes to the topic in its request's
 *     {@link dev.kafko.spring.support.KafkoHeaders#REPLY_TOPIC} header
 * @param recordFilterStrategy what discards records before the method sees them, or {@code null} for
 *     the container factory's
 * @param errorHandler what handles the method's failures before the container's error handler, or
 *     {@code null} for none
 */
public record KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                    @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                    Object bean, Method method, @Nullable String replyTopic,
                                    @Nullable String containerFactory, boolean replyToHeader,
                                    @Nullable RecordFilterStrategy recordFilterStrategy,
                                    @Nullable KafkoListenerErrorHandler errorHandler) {

    public KafkoListenerEndpoint {
        topics = List.copyOf(topics);
        if (replyToHeader && replyTopic != null) {
            throw new IllegalArgumentException("Listener '" + id + "': a reply goes to the @SendTo topic '" + replyTopic
                    + "' or to the request's reply-topic header, not both");
        }
    }

    /**
     * An endpoint whose {@code @SendTo}, if any, names its topic, with the container factory's record
     * filter and no listener error handler.
     */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                false, null, null);
    }

    /** An endpoint built by the default container factory. */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, null);
    }
}
