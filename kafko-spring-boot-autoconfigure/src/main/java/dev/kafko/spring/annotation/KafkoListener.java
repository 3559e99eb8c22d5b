package dev.kafko.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a method to be called with the records of one or more topics, or a class whose
 * {@link KafkoHandler} methods are (each record goes to the handler that takes its payload's class; see
 * {@link KafkoHandler}). Placeholders
 * ({@code ${...}}) and SpEL ({@code #{...}}) resolve in every attribute. Repeatable, and usable as
 * a meta-annotation.
 *
 * <pre>{@code
 * @KafkoListener(id = "billing", topics = "orders", concurrency = "3")
 * void on(Order order, @Header(KafkoHeaders.RECEIVED_KEY) String key) { ... }
 * }</pre>
 *
 * <p>Parameters resolve through spring-messaging: the payload (converted; {@code @Valid} checked
 * when a {@code Validator} bean exists), {@code @Header}s ({@link dev.kafko.spring.support.KafkoHeaders}),
 * {@code @Headers Map}, {@code KafkoRecord}, {@code Message<?>}, {@code Acknowledgment}; a batch
 * listener takes a {@code List<T>}. A non-void method annotated with
 * {@code @SendTo("topic")} has its result sent there; with a {@code @SendTo} that names no topic, to
 * the topic in the request's {@link dev.kafko.spring.support.KafkoHeaders#REPLY_TOPIC} header (record
 * listeners only). A record listener's replies carry the request's
 * {@link dev.kafko.spring.support.KafkoHeaders#CORRELATION_ID} and go to the partition its
 * {@link dev.kafko.spring.support.KafkoHeaders#REPLY_PARTITION} names.
 */
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(KafkoListeners.class)
// ahead-of-time processing registers the method for invocation and its payload and reply types for
// binding, as @MessageMapping does for spring-kafka's annotations: a native image needs both
@Reflective(KafkoListenerReflectiveProcessor.class)
public @interface KafkoListener {

    /**
     * The listener id: names the container ({@code registry.getListenerContainer(id)}) and its
     * threads ({@code <id>-0}, ...). Default: {@code <beanName>.<methodName>}, or {@code <beanName>} on a
     * class (with {@code -0}, {@code -1}, ... after it, in declaration order, for repeated annotations, and
     * every character a group name may not hold, such as the {@code $} of a nested class, turned into
     * {@code .}), which stays the same across restarts.
     */
    String id() default "";

    /**
     * The topics to read; each gets {@link #concurrency()} members. Not with {@link #topicPattern()} or
     * {@link #topicPartitions()}.
     */
    String[] topics() default {};

    /**
     * A regular expression ({@link java.util.regex.Pattern}) that the whole name of each topic to read matches,
     * instead of {@link #topics()}: the matching topics that exist when the container starts and, while it runs,
     * each one created later, from the moment it is created; each gets {@link #concurrency()} members.
     * A dead-letter topic {@code <topic>.DLT} is not matched when the pattern matches {@code <topic>} too, since the
     * listener's own failures fill it; a pattern for dead-letter topics ({@code .*\\.DLT}) reads them, but not the
     * {@code <topic>.DLT.DLT} its own failures go to.
     * Matched topics are never created by the listener; one deleted and created again is read again.
     */
    String topicPattern() default "";

    /**
     * The partitions to read, assigned by hand (Kafka's {@code assign}), instead of {@link #topics()} or
     * {@link #topicPattern()}, as in spring-kafka: the listener reads exactly these, with initial offsets where
     * {@link TopicPartition#partitionOffsets()} gives them (sought each time a member starts). Its members are no
     * members of the group: they join nothing, take no partition from the group's members, and commit the group's
     * offsets of their partitions, which the group refuses while it has live members (a listener reading the same
     * topic under {@link #topics()} with this group id); without an initial offset, a partition starts at the
     * group's commit. {@link #concurrency()} splits each topic's partitions into that many members (fewer when
     * there are fewer partitions). The topic is created on first use where topics are, and a partition it does not
     * have fails the container's start.
     */
    TopicPartition[] topicPartitions() default {};

    /** The consumer group. Default: the {@link #id()} (see {@link #idIsGroup()}). */
    String groupId() default "";

    /**
     * Whether a listener without a {@link #groupId()} takes its {@link #id()} as its group (default {@code true}),
     * as in spring-kafka. {@code false}: its group is {@code kafko.listener.group-id} (spring-kafka's consumer
     * factory {@code group.id}), and without that property the start fails naming the listener.
     */
    boolean idIsGroup() default true;

    /**
     * The prefix of the names of this listener's members, as spring-kafka's client id prefix: its members are
     * {@code <prefix>-0}, {@code <prefix>-1}, ..., which name their polling threads and their log lines (in place
     * of {@code <id>-0}, ...). Default: the {@link #id()}.
     */
    String clientIdPrefix() default "";

    /**
     * The name SpEL in this annotation's attributes gives the bean that declares the listener, as in
     * spring-kafka: {@code topics = "#{__listener.topic}"}. Default {@code __listener}.
     */
    String beanRef() default "__listener";

    /**
     * The name of a group of containers, as in spring-kafka: the listener's container joins the
     * {@link dev.kafko.spring.listener.ContainerGroup} bean named {@code <containerGroup>.group} (made with the
     * first container that names it), which starts and stops its containers together. Default: no group.
     */
    String containerGroup() default "";

    /**
     * Whether an {@code Iterable} the method returns to its {@code @SendTo} topic is sent as a record per element
     * (default {@code true}) or as one record holding it all (a JSON array), as in spring-kafka. An
     * {@code Iterable} of {@code Message}s is always sent a record per message.
     */
    boolean splitIterables() default true;

    /**
     * Static information about the listener, as spring-kafka's {@code info}: each message the method is given carries
     * it as the {@link dev.kafko.spring.support.KafkoHeaders#LISTENER_INFO} header ({@code String}; SpEL may give text
     * or bytes, read as UTF-8), for the listener, its {@code errorHandler} and its retries' listeners to read. It is
     * never sent on: a reply built from the received message does not carry it. A {@code RecordFilterStrategy}, which
     * sees the stored record, does not see it. Default: none.
     */
    String info() default "";

    /**
     * How many members (threads) of the group share each topic's partitions. Default:
     * {@code kafko.listener.concurrency}. More than the partition count leaves members idle (logged).
     */
    String concurrency() default "";

    /**
     * Whether the container starts with the context ({@code "true"}/{@code "false"}). Default: its factory's
     * (for the auto-configured one {@code kafko.listener.auto-startup}, true).
     */
    String autoStartup() default "";

    /**
     * {@code "true"} to receive every record of a poll at once as a {@code List}. Default: {@code kafko.listener.type}
     * ({@code single}: false).
     */
    String batch() default "";

    /**
     * {@code record}, {@code batch}, {@code manual}, {@code manual-immediate}, {@code count}, {@code time} or
     * {@code count-time} (see {@link dev.kafko.spring.listener.AckMode}). Default: {@code kafko.listener.ack-mode}.
     */
    String ackMode() default "";

    /**
     * The bean name of the {@link dev.kafko.spring.config.KafkoListenerContainerFactory} that builds this
     * listener's container (its container properties, error handler, executor), as in spring-kafka; SpEL may
     * also give the factory bean itself ({@code #{@myFactory}}). Default: the bean named
     * {@code kafkoListenerContainerFactory}, else the only (or primary) factory.
     */
    String containerFactory() default "";

    /**
     * The bean name of the {@link dev.kafko.spring.listener.adapter.RecordFilterStrategy} that picks the
     * records this listener never sees (SpEL may also resolve to the strategy itself), as in
     * spring-kafka; it replaces the container factory's. A discarded record counts as processed: it is
     * committed with the others and not delivered again. A batch listener gets its batch without the
     * discarded records, and is not invoked when all are discarded. Default: the container factory's
     * strategy, if it has one.
     */
    String filter() default "";

    /**
     * The bean name of the {@link dev.kafko.spring.listener.KafkoListenerErrorHandler} that handles what the
     * method throws before the container's error handler sees it (SpEL may also resolve to the handler
     * itself), as in spring-kafka. What it returns stands for the method's result (sent to the
     * {@code @SendTo} topic, if any) and the records count as processed; what it throws goes on to the
     * container's error handler (retries, dead letters). Default: none.
     */
    String errorHandler() default "";

    /**
     * The bean name of the {@link dev.kafko.spring.listener.ContainerPostProcessor} that configures this listener's
     * container further once its factory made it (SpEL may also resolve to the post-processor itself), as in
     * spring-kafka: after the factory's {@link dev.kafko.spring.listener.ContainerCustomizer}, before the container
     * starts; a {@code @RetryableTopic} listener's retry and dead-letter containers get it too. A name that is no
     * such bean fails the start naming the listener and the name. Default: none.
     */
    String containerPostProcessor() default "";

    /**
     * The bean name of a Spring {@link org.springframework.messaging.converter.SmartMessageConverter} that converts
     * this listener's payloads before kafko's own converters (SpEL may also resolve to the converter itself), as in
     * spring-kafka: it is asked first for each payload (and each element of a batch), with the record's headers,
     * among them its {@code contentType} as text; what it does not convert (it returns {@code null}) kafko's
     * converters convert by the parameter's type. Records without headers go through it too. A name that is no such
     * bean fails the start naming the listener and the name. Default: kafko's converters alone.
     */
    String contentTypeConverter() default "";

    /**
     * Kafka consumer properties for this listener alone, as in spring-kafka: {@code "key=value"} (or {@code key:value},
     * {@code key value}; placeholders and SpEL in each, each entry read as a {@code .properties} file, so one may hold
     * several lines; one that resolves to a {@code String[]} or a {@code Collection} of such texts gives each element;
     * an entry that resolves to nothing ignored; a key given twice takes the last value). Two change what the listener
     * does: {@code max.poll.records} (the most records one poll gives this listener, in place of the container
     * factory's) and {@code auto.offset.reset} ({@code earliest} or {@code latest}: where this listener's group starts
     * on a partition it has no commit for, and what its consumers do with a position outside the log, in place of
     * {@code kafko.offset-reset}); a {@code @RetryableTopic} listener's retry and dead-letter containers take its
     * {@code max.poll.records}, not its {@code auto.offset.reset}. {@code isolation.level} takes {@code read_committed} and {@code read_uncommitted},
     * which read the same records: a transaction's records are written to the log at its commit. Any other key fails
     * the start naming it: Kafka's timeouts, fetch sizes, client ids and deserializers have no counterpart in one
     * process.
     */
    String[] properties() default {};
}
