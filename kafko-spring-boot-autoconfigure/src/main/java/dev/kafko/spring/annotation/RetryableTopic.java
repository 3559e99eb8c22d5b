package dev.kafko.spring.annotation;

import dev.kafko.spring.listener.DltStrategy;
import dev.kafko.spring.listener.SameIntervalTopicReuseStrategy;
import dev.kafko.spring.listener.TopicSuffixingStrategy;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Non-blocking retries for a {@link KafkoListener} method, as spring-kafka's {@code @RetryableTopic}: a record the
 * method fails on is not retried in place (which holds back the records behind it) but published to a retry topic,
 * read by a listener of its own that calls the same method once the record's back-off has passed; after the last
 * attempt, or at once for a failure that is not retried, it goes to the dead-letter topic, whose records go to the
 * bean's {@link DltHandler} method (or are logged at ERROR when it has none; with {@link #dltStrategy()}
 * {@code NO_DLT} there is no dead-letter topic, and the record is logged and skipped). As in spring-kafka, a key's order is not
 * kept: the records of its key behind a failed one are processed before the failed one's retries.
 *
 * <p>Topics, for a listener of {@code orders} with the defaults: {@code orders-retry} (one topic when every back-off
 * is the same; otherwise one per distinct back-off, named by it, {@code orders-retry-1000}, {@code orders-retry-2000},
 * ..., the last reused by the attempts its back-off repeats for; see {@link #topicSuffixingStrategy()} and
 * {@link #sameIntervalTopicReuseStrategy()}) and {@code orders-dlt}; each made ready with the listener topic's
 * partition count when its container starts, as a dead-letter topic is (created where topics are created on first
 * use, or declared). A forwarded record keeps its key, value, headers and partition, and gains the headers
 * {@code kafko_retry-attempts} (the attempt its next delivery is: 2 for the first retry), {@code
 * kafko_retry-backoff-timestamp} (the epoch millisecond before which it is not delivered), the exception headers of
 * a dead letter and, once, the {@code kafko_dlt-original-*} headers naming where it was first read. Since the
 * names follow the back-off and the attempts, a restart with another back-off or fewer attempts reads other retry
 * topics; what waits in those it no longer reads is neither retried nor dead-lettered, and its start says so in a
 * warning naming them.
 *
 * <p>Each retry topic and the dead-letter topic is read by a container of its own, with the id of the listener
 * followed by its topic's suffix ({@code -retry}, {@code -retry-1000}, ... or {@code -dlt}), in the listener's group, with its concurrency.
 * A retry container waits for each record's back-off before delivering it, holding back the records behind it in
 * that partition (whose back-offs end later, but under a {@link BackOff#jitter()} a record's can end before the one
 * ahead of it: it is then delivered once that one is). Every attempt is one delivery: the error handler's blocking retries are
 * not used for these listeners, and {@link dev.kafko.spring.listener.RetryListener} beans are not told of their
 * failures. A record listener only; the method and the listener take no {@code topicPattern} or
 * {@code topicPartitions}. A listener of several topics gets retry and dead-letter topics for each, the i-th retry
 * topic of every topic read by one container (ids as above), each record forwarded by its own topic's plan. Every attribute that is a string takes {@code ${...}} placeholders and {@code #{...}} SpEL
 * (evaluated against the bean factory, as spring-kafka does; an expression gives text, a number, a boolean or a
 * class); one that resolves to nothing ({@code "${retry.concurrency:}"}) is as if empty, as {@code @KafkoListener}'s
 * are.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RetryableTopic {

    /**
     * Attempts in all, the first delivery included, before the dead-letter topic; at least 1 (1: no retry topic, a
     * failed record goes to the dead-letter topic at once).
     */
    String attempts() default "3";

    /** The back-off before each retry. */
    BackOff backOff() default @BackOff;

    /**
     * Only failures of one of these types (or a subtype) are retried, judged as {@link #traversingCauses()} says;
     * the others go to the dead-letter topic at once. Empty for every failure the default error handler would retry
     * (see {@link dev.kafko.spring.listener.DefaultErrorHandler#isRetryable}, which reads the whole cause chain); a
     * failure it never retries (a conversion, a {@code ClassCastException} ...) is not retried though included, as
     * in spring-kafka.
     */
    Class<? extends Throwable>[] include() default {};

    /** Failures of one of these types go to the dead-letter topic at once, judged as {@link #include()} are. */
    Class<? extends Throwable>[] exclude() default {};

    /**
     * As {@link #include}, by fully qualified class name (for types the listener's module does not see); each must
     * name a {@code Throwable} on the bean's class path, or the start fails naming it.
     */
    String[] includeNames() default {};

    /** As {@link #exclude}, by fully qualified class name; checked as {@link #includeNames} are. */
    String[] excludeNames() default {};

    /**
     * Whether {@link #include()} and {@link #exclude()} (and their names) look at the whole cause chain of a failure
     * ({@code "true"}: a type anywhere in it matches) or at what the listener threw alone ({@code "false"}, the
     * default, as in spring-kafka: an {@code IllegalStateException} wrapping an {@code IOException} is no
     * {@code IOException}). {@link #exceptionBasedDltRouting()} reads the whole chain either way, as spring-kafka's
     * does.
     */
    String traversingCauses() default "false";

    /**
     * Dead-letter topics of their own for failures of some types, each tried in order before the listener's
     * dead-letter topic when a record goes to a dead-letter topic (after its last attempt, or at once for a failure
     * that is not retried): a record whose failure, or one of its causes, is of one of a destination's
     * {@link ExceptionBasedDltDestination#exceptions()} goes to {@code <topic><suffix><dltTopicSuffix>}. Each such
     * topic is made and read as the dead-letter topic is, by a container of id {@code <id><suffix><dltTopicSuffix>}.
     * Not with {@link DltStrategy#NO_DLT}.
     */
    ExceptionBasedDltDestination[] exceptionBasedDltRouting() default {};

    /**
     * The suffix of the retry topics (followed by their back-off, {@code -1000}, {@code -2000}, ..., or their index,
     * as {@link #topicSuffixingStrategy()} says, when there are several).
     */
    String retryTopicSuffix() default "-retry";

    /**
     * What follows the retry suffix in the retry topics' names when there are several: their back-off in
     * milliseconds ({@code orders-retry-1000}, the default, as in spring-kafka) or their index
     * ({@code orders-retry-0}).
     */
    TopicSuffixingStrategy topicSuffixingStrategy() default TopicSuffixingStrategy.SUFFIX_WITH_DELAY_VALUE;

    /**
     * Whether the retries that wait the same back-off (every retry of a fixed back-off, the last ones of a multiplied
     * back-off that reached its {@code maxDelay}) read one retry topic ({@code SINGLE_TOPIC}, the default, as in
     * spring-kafka) or one each ({@code MULTIPLE_TOPICS}).
     */
    SameIntervalTopicReuseStrategy sameIntervalTopicReuseStrategy() default SameIntervalTopicReuseStrategy.SINGLE_TOPIC;

    /** The suffix of the dead-letter topic. */
    String dltTopicSuffix() default "-dlt";

    /**
     * Whether there is a dead-letter topic ({@link DltStrategy#NO_DLT}: a record is logged at ERROR and skipped after
     * its last attempt, and no dead-letter topic or container is made), and what becomes of a dead letter the
     * {@link DltHandler} fails on: logged and skipped ({@link DltStrategy#FAIL_ON_ERROR}, the default here; it stays
     * in the dead-letter topic) or handled again after the last back-off ({@link DltStrategy#ALWAYS_RETRY_ON_ERROR},
     * spring-kafka's default; a failure that is never retried, such as the dead letter's conversion, is logged and
     * skipped there too).
     */
    DltStrategy dltStrategy() default DltStrategy.FAIL_ON_ERROR;

    /**
     * How long after the original record's timestamp retrying gives up (a duration, {@code 30s}, {@code PT1M}, or
     * milliseconds): a delivery that fails after it goes to the dead-letter topic whatever attempts are left. Empty for
     * no such limit.
     */
    String timeout() default "";

    /**
     * Whether the retry and dead-letter topics are created (or grown) as the listener starts where the application
     * lets topics be created ({@code "true"}), or must be declared ({@code "false"}: the start fails naming the missing
     * ones, whatever {@code kafko.auto-create-topics} says).
     */
    String autoCreateTopics() default "true";

    /**
     * The partitions the retry and dead-letter topics are made with (an existing one is grown to it, never shrunk);
     * empty, or {@code -1} (spring-kafka's broker default, as ported code gives it), for the listener topic's count.
     * A record of a partition they lack goes to the one its key chooses.
     */
    String numPartitions() default "";

    /**
     * Kafka's replication factor of the retry and dead-letter topics, as ported code gives it: empty, {@code 1} or
     * {@code -1} (the broker's default); any other count cannot be kept, a kafko topic being one copy on one disk,
     * and fails the start naming the listener.
     */
    String replicationFactor() default "";

    /** Members of each retry topic's and the dead-letter topic's container; empty for the listener's concurrency. */
    String concurrency() default "";

    /**
     * The bean name of the {@code KafkoListenerContainerFactory} that makes the retry topics' and the dead-letter
     * topics' containers (the listener's own container is made by its {@code containerFactory}, as in spring-kafka);
     * empty for the listener's. A name that is no such bean fails the start naming the listener.
     */
    String listenerContainerFactory() default "";

    /**
     * Whether the dead-letter topic's container starts with the context ({@code true} or {@code false}); empty for
     * the listener's {@code autoStartup}. One held back is started by its id ({@code <id>-dlt}) in the registry.
     */
    String autoStartDltHandler() default "";
}
