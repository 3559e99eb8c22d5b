package dev.kafko.spring.config;

import dev.kafko.OffsetResetPolicy;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ContainerPostProcessor;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.lang.reflect.Method;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.converter.SmartMessageConverter;

/**
 * A resolved {@code @KafkoListener}: every placeholder and expression already evaluated. Unset
 * values ({@code null}) take the container factory's defaults.
 *
 * @param id the listener id
 * @param topics the topics, at least one unless {@code topicPattern} or {@code topicPartitions} is given
 *     (then none)
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
 * @param handlers the {@code @KafkoHandler} methods of a class-level {@code @KafkoListener}, which each record
 *     is dispatched among by its payload's class; empty for a method listener. For a class-level listener,
 *     {@code method}, {@code replyTopic} and {@code replyToHeader} are its first handler's
 * @param topicPattern the pattern of the topics to read instead of {@code topics}, or {@code null}
 *     ({@link dev.kafko.spring.annotation.KafkoListener#topicPattern()})
 * @param topicPartitions the partitions to read, assigned by hand, instead of {@code topics} or
 *     {@code topicPattern}; empty for none ({@link dev.kafko.spring.annotation.KafkoListener#topicPartitions()})
 * @param maxPollRecords the most records one poll gives this listener, or {@code null} for the container factory's
 *     ({@code max.poll.records} of {@link dev.kafko.spring.annotation.KafkoListener#properties()})
 * @param offsetReset where this listener's group starts on a partition it has no commit for, or {@code null} for
 *     {@code kafko.offset-reset} ({@code auto.offset.reset} of its {@code properties})
 * @param clientIdPrefix what names the members ({@code <prefix>-0}, ...), or {@code null} for the id
 *     ({@link dev.kafko.spring.annotation.KafkoListener#clientIdPrefix()})
 * @param containerGroup the name of the {@link dev.kafko.spring.listener.ContainerGroup} the container joins, or
 *     {@code null} for none ({@link dev.kafko.spring.annotation.KafkoListener#containerGroup()})
 * @param splitIterables whether an {@code Iterable} result is sent a record per element, or as one record
 *     ({@link dev.kafko.spring.annotation.KafkoListener#splitIterables()})
 * @param info the {@link dev.kafko.spring.support.KafkoHeaders#LISTENER_INFO} of the listener's messages, or
 *     {@code null} for none ({@link dev.kafko.spring.annotation.KafkoListener#info()})
 * @param containerPostProcessor what configures the container further once the factory made it (after the factory's
 *     {@link dev.kafko.spring.listener.ContainerCustomizer}), or {@code null} for nothing
 *     ({@link dev.kafko.spring.annotation.KafkoListener#containerPostProcessor()})
 * @param contentTypeConverter what converts this listener's payloads before kafko's own converters do (they convert
 *     what it leaves, returning {@code null}), or {@code null} for kafko's alone
 *     ({@link dev.kafko.spring.annotation.KafkoListener#contentTypeConverter()})
 */
public record KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                    @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                    Object bean, Method method, @Nullable String replyTopic,
                                    @Nullable String containerFactory, boolean replyToHeader,
                                    @Nullable RecordFilterStrategy recordFilterStrategy,
                                    @Nullable KafkoListenerErrorHandler errorHandler, List<Handler> handlers,
                                    @Nullable Pattern topicPattern, List<TopicPartitionOffset> topicPartitions,
                                    @Nullable Integer maxPollRecords, @Nullable OffsetResetPolicy offsetReset,
                                    @Nullable String clientIdPrefix, @Nullable String containerGroup,
                                    boolean splitIterables, @Nullable String info,
                                    @Nullable ContainerPostProcessor containerPostProcessor,
                                    @Nullable SmartMessageConverter contentTypeConverter) {

    /** An endpoint whose payloads kafko's own converters convert. */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory, boolean replyToHeader,
                                 @Nullable RecordFilterStrategy recordFilterStrategy,
                                 @Nullable KafkoListenerErrorHandler errorHandler, List<Handler> handlers,
                                 @Nullable Pattern topicPattern, List<TopicPartitionOffset> topicPartitions,
                                 @Nullable Integer maxPollRecords, @Nullable OffsetResetPolicy offsetReset,
                                 @Nullable String clientIdPrefix, @Nullable String containerGroup,
                                 boolean splitIterables, @Nullable String info,
                                 @Nullable ContainerPostProcessor containerPostProcessor) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                replyToHeader, recordFilterStrategy, errorHandler, handlers, topicPattern, topicPartitions,
                maxPollRecords, offsetReset, clientIdPrefix, containerGroup, splitIterables, info,
                containerPostProcessor, null);
    }

    /** An endpoint whose container no post-processor configures further. */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory, boolean replyToHeader,
                                 @Nullable RecordFilterStrategy recordFilterStrategy,
                                 @Nullable KafkoListenerErrorHandler errorHandler, List<Handler> handlers,
                                 @Nullable Pattern topicPattern, List<TopicPartitionOffset> topicPartitions,
                                 @Nullable Integer maxPollRecords, @Nullable OffsetResetPolicy offsetReset,
                                 @Nullable String clientIdPrefix, @Nullable String containerGroup,
                                 boolean splitIterables, @Nullable String info) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                replyToHeader, recordFilterStrategy, errorHandler, handlers, topicPattern, topicPartitions,
                maxPollRecords, offsetReset, clientIdPrefix, containerGroup, splitIterables, info, null);
    }

    /** An endpoint whose members are named after its id, in no container group, that splits iterable results. */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory, boolean replyToHeader,
                                 @Nullable RecordFilterStrategy recordFilterStrategy,
                                 @Nullable KafkoListenerErrorHandler errorHandler, List<Handler> handlers,
                                 @Nullable Pattern topicPattern, List<TopicPartitionOffset> topicPartitions,
                                 @Nullable Integer maxPollRecords, @Nullable OffsetResetPolicy offsetReset) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                replyToHeader, recordFilterStrategy, errorHandler, handlers, topicPattern, topicPartitions,
                maxPollRecords, offsetReset, null, null, true, null, null);
    }

    /** An endpoint with the container factory's poll size and the instance's offset reset. */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory, boolean replyToHeader,
                                 @Nullable RecordFilterStrategy recordFilterStrategy,
                                 @Nullable KafkoListenerErrorHandler errorHandler, List<Handler> handlers,
                                 @Nullable Pattern topicPattern, List<TopicPartitionOffset> topicPartitions) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                replyToHeader, recordFilterStrategy, errorHandler, handlers, topicPattern, topicPartitions, null, null);
    }

    /**
     * One {@code @KafkoHandler} method of a class-level listener.
     *
     * @param method the method to invoke
     * @param isDefault whether it takes the records no other handler takes
     * @param replyTopic the topic its {@code @SendTo} (or the class's) names, or {@code null}
     * @param replyToHeader whether that {@code @SendTo} names no topic (replies go to each request's reply topic)
     */
    public record Handler(Method method, boolean isDefault, @Nullable String replyTopic, boolean replyToHeader) {
    }

    public KafkoListenerEndpoint {
        topics = List.copyOf(topics);
        handlers = List.copyOf(handlers);
        topicPartitions = List.copyOf(topicPartitions);
        if (topicPattern != null && !topics.isEmpty()) {
            throw new IllegalArgumentException("Listener '" + id + "' names topics " + topics + " and a topic pattern '"
                    + topicPattern + "': it reads one or the other");
        }
        if (!topicPartitions.isEmpty() && (topicPattern != null || !topics.isEmpty())) {
            throw new IllegalArgumentException("Listener '" + id + "' names topic partitions " + topicPartitions
                    + " and " + (topicPattern != null ? "a topic pattern '" + topicPattern + "'" : "topics " + topics)
                    + ": it reads one of them");
        }
        if (maxPollRecords != null && maxPollRecords < 1) {
            throw new IllegalArgumentException("Listener '" + id + "': maxPollRecords must be at least 1, was "
                    + maxPollRecords);
        }
        if (clientIdPrefix != null && clientIdPrefix.isBlank()) {
            throw new IllegalArgumentException("Listener '" + id + "': clientIdPrefix must not be blank (null: the id)");
        }
        if (containerGroup != null && containerGroup.isBlank()) {
            throw new IllegalArgumentException("Listener '" + id + "': containerGroup must not be blank (null: none)");
        }
        if (replyToHeader && replyTopic != null) {
            throw new IllegalArgumentException("Listener '" + id + "': a reply goes to the @SendTo topic '" + replyTopic
                    + "' or to the request's reply-topic header, not both");
        }
    }

    /** An endpoint that reads the topics it names, or those its pattern matches. */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory, boolean replyToHeader,
                                 @Nullable RecordFilterStrategy recordFilterStrategy,
                                 @Nullable KafkoListenerErrorHandler errorHandler, List<Handler> handlers,
                                 @Nullable Pattern topicPattern) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                replyToHeader, recordFilterStrategy, errorHandler, handlers, topicPattern, List.of());
    }

    /** An endpoint that reads the topics it names. */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory, boolean replyToHeader,
                                 @Nullable RecordFilterStrategy recordFilterStrategy,
                                 @Nullable KafkoListenerErrorHandler errorHandler, List<Handler> handlers) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                replyToHeader, recordFilterStrategy, errorHandler, handlers, null);
    }

    /** A method listener's endpoint (no handlers). */
    public KafkoListenerEndpoint(String id, List<String> topics, String groupId, @Nullable Integer concurrency,
                                 @Nullable Boolean autoStartup, boolean batch, @Nullable AckMode ackMode,
                                 Object bean, Method method, @Nullable String replyTopic,
                                 @Nullable String containerFactory, boolean replyToHeader,
                                 @Nullable RecordFilterStrategy recordFilterStrategy,
                                 @Nullable KafkoListenerErrorHandler errorHandler) {
        this(id, topics, groupId, concurrency, autoStartup, batch, ackMode, bean, method, replyTopic, containerFactory,
                replyToHeader, recordFilterStrategy, errorHandler, List.of());
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
