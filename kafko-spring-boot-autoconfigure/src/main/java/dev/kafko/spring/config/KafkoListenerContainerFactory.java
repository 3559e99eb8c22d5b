package dev.kafko.spring.config;

import dev.kafko.Kafko;
import dev.kafko.spring.core.KafkoOperations;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.BatchInterceptor;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerCustomizationException;
import dev.kafko.spring.listener.ContainerCustomizer;
import dev.kafko.spring.listener.ContainerPostProcessor;
import dev.kafko.spring.listener.ContainerProperties;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.RetryBackOffListener;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.KafkoMessageListener;
import dev.kafko.spring.listener.RecordInterceptor;
import dev.kafko.spring.listener.adapter.DelegatingMessageListenerAdapter;
import dev.kafko.spring.listener.adapter.FilteringMessageListenerAdapter;
import dev.kafko.spring.listener.adapter.KafkoArgumentResolvers;
import dev.kafko.spring.listener.adapter.MessagingMessageListenerAdapter;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.TopicPartitionOffset;
import dev.kafko.spring.support.micrometer.KafkoListenerObservation;
import dev.kafko.spring.support.micrometer.KafkoListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import java.util.Objects;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.PlatformTransactionManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskExecutor;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * Builds listener containers from endpoints (annotated methods) or from plain
 * {@link KafkoMessageListener}s, with shared defaults: backend, container properties, error
 * handler, converter, thread executor, instrumentation, record filter, record and batch interceptors, the
 * template used by {@code @SendTo}, and a {@link ContainerCustomizer} that sees every container it makes.
 * Configure it before the context starts; afterwards it is only read (any thread).
 */
public class KafkoListenerContainerFactory implements ApplicationEventPublisherAware {

    private static final Logger LOG = LoggerFactory.getLogger(KafkoListenerContainerFactory.class);

    private final LogBackend backend;
    private final RecordMessageConverter converter;
    private ContainerProperties containerProperties = ContainerProperties.DEFAULTS;
    private KafkoErrorHandler errorHandler = new DefaultErrorHandler();
    private boolean awaitRetryBackOff;
    private KafkoInstrumentation instrumentation = KafkoInstrumentation.NOOP;
    private TaskExecutor executor = daemonThreads();
    private @Nullable KafkoOperations<Object, Object> replyTemplate;
    private @Nullable MessageHandlerMethodFactory defaultHandlerMethodFactory;
    private @Nullable RecordFilterStrategy recordFilterStrategy;
    private @Nullable RecordInterceptor recordInterceptor;
    private @Nullable PlatformTransactionManager transactionManager;
    private @Nullable BatchInterceptor batchInterceptor;
    private @Nullable ContainerCustomizer containerCustomizer;
    private boolean autoStartup = true;
    private @Nullable Boolean batchListener;
    /** Null until one is set: none, as {@link ObservationRegistry#NOOP}, which need not be initialized then. */
    private @Nullable ObservationRegistry observationRegistry;
    private @Nullable KafkoListenerObservationConvention observationConvention;
    private @Nullable ApplicationEventPublisher eventPublisher;

    public KafkoListenerContainerFactory(LogBackend backend, RecordMessageConverter converter) {
        this.backend = backend;
        this.converter = converter;
    }

    /**
     * A new factory with this one's settings, to configure a second factory from the auto-configured
     * one (a listener picks it with {@code @KafkoListener(containerFactory = "<bean name>")}):
     * <pre>{@code
     * @Bean
     * KafkoListenerContainerFactory manualAcks(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
     *     KafkoListenerContainerFactory f = kafkoListenerContainerFactory.copy();
     *     f.setContainerProperties(f.getContainerProperties().withAckMode(AckMode.MANUAL));
     *     return f;
     * }
     * }</pre>
     */
    public synchronized KafkoListenerContainerFactory copy() {
        KafkoListenerContainerFactory copy = new KafkoListenerContainerFactory(backend, converter);
        copy.containerProperties = containerProperties;
        copy.errorHandler = errorHandler;
        copy.instrumentation = instrumentation;
        copy.executor = executor;
        copy.replyTemplate = replyTemplate;
        copy.recordFilterStrategy = recordFilterStrategy;
        copy.recordInterceptor = recordInterceptor;
        copy.transactionManager = transactionManager;
        copy.batchInterceptor = batchInterceptor;
        copy.containerCustomizer = containerCustomizer;
        copy.autoStartup = autoStartup;
        copy.batchListener = batchListener;
        copy.observationRegistry = observationRegistry;
        copy.observationConvention = observationConvention;
        copy.eventPublisher = eventPublisher;
        copy.awaitRetryBackOff = awaitRetryBackOff;
        return copy;
    }

    public void setContainerProperties(ContainerProperties containerProperties) {
        this.containerProperties = containerProperties;
    }

    public ContainerProperties getContainerProperties() {
        return containerProperties;
    }

    /**
     * Whether the record listeners' containers made from now on deliver no record before the epoch millisecond of
     * its {@link dev.kafko.spring.support.KafkoHeaders#RETRY_BACKOFF_TIMESTAMP} header (see
     * {@link RetryBackOffListener}), as a {@code @RetryableTopic} listener's retry containers do; false by default.
     */
    public void setAwaitRetryBackOff(boolean awaitRetryBackOff) {
        this.awaitRetryBackOff = awaitRetryBackOff;
    }

    /**
     * The members per topic of the containers it makes from now on, where an endpoint sets none (spring-kafka's
     * {@code ConcurrentKafkaListenerContainerFactory.setConcurrency}): {@code withConcurrency} of its
     * {@link #getContainerProperties() container properties}.
     *
     * @throws IllegalArgumentException when {@code concurrency} is below 1
     */
    public synchronized void setConcurrency(int concurrency) {
        this.containerProperties = containerProperties.withConcurrency(concurrency);
    }

    /** The error handler of the containers it makes from now on (spring-kafka's {@code setCommonErrorHandler}). */
    public void setErrorHandler(KafkoErrorHandler errorHandler) {
        this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
    }

    /** spring-kafka's name of {@link #setErrorHandler}, so that a ported configuration reads as it did. */
    public void setCommonErrorHandler(KafkoErrorHandler errorHandler) {
        setErrorHandler(errorHandler);
    }

    public KafkoErrorHandler getErrorHandler() {
        return errorHandler;
    }

    /** spring-kafka's name of {@link #getErrorHandler}. */
    public KafkoErrorHandler getCommonErrorHandler() {
        return getErrorHandler();
    }

    /** What the containers it makes report their timings to. */
    public KafkoInstrumentation getInstrumentation() {
        return instrumentation;
    }

    /** The log its containers read. */
    public LogBackend getBackend() {
        return backend;
    }

    public void setInstrumentation(KafkoInstrumentation instrumentation) {
        this.instrumentation = instrumentation;
    }

    /**
     * Observes the delivery of every record to a record listener in this registry
     * ({@link KafkoListenerObservation}), continuing the trace its record carries;
     * {@link ObservationRegistry#NOOP} (the default) observes nothing. Applies to containers created
     * afterwards.
     */
    public void setObservationRegistry(ObservationRegistry observationRegistry) {
        this.observationRegistry = Objects.requireNonNull(observationRegistry, "observationRegistry");
    }

    /** Replaces the default keys and names of the delivery observations; {@code null} for the default. */
    public void setObservationConvention(@Nullable KafkoListenerObservationConvention observationConvention) {
        this.observationConvention = observationConvention;
    }

    /**
     * Where the containers this factory creates afterwards publish their events ({@link dev.kafko.spring.event});
     * set by the application context when the factory is a bean.
     */
    @Override
    public void setApplicationEventPublisher(@Nullable ApplicationEventPublisher eventPublisher) {
        this.eventPublisher = eventPublisher;
    }

    /** Runs the member threads; each renames its thread to {@code <id>-<n>}. */
    public void setTaskExecutor(TaskExecutor executor) {
        this.executor = executor;
    }

    /** The template a {@code @SendTo} listener sends its result with. */
    public void setReplyTemplate(@Nullable KafkoOperations<Object, Object> replyTemplate) {
        this.replyTemplate = replyTemplate;
    }

    /**
     * Discards records before the listeners of this factory's containers see them, as spring-kafka's
     * factory does: every listener whose {@code @KafkoListener} names no {@code filter} of its own, and
     * the plain listeners given to {@link #createListenerContainer(String, String, List, KafkoMessageListener)}.
     * {@code null} (the default) for none.
     */
    public void setRecordFilterStrategy(@Nullable RecordFilterStrategy recordFilterStrategy) {
        this.recordFilterStrategy = recordFilterStrategy;
    }

    public @Nullable RecordFilterStrategy getRecordFilterStrategy() {
        return recordFilterStrategy;
    }

    /**
     * Sees each record before the record listeners of the containers this factory makes afterwards do (see
     * {@link RecordInterceptor}), as spring-kafka's factory method of the same name: every container, those of a
     * {@code @RetryableTopic}'s retry and dead-letter topics included, and those of its {@link #copy()}s.
     * {@code null} (the default) for none; batch listeners' containers ignore it.
     */
    public void setRecordInterceptor(@Nullable RecordInterceptor recordInterceptor) {
        this.recordInterceptor = recordInterceptor;
    }

    public @Nullable RecordInterceptor getRecordInterceptor() {
        return recordInterceptor;
    }

    /**
     * Sees each batch before the batch listeners of the containers this factory makes afterwards do (see
     * {@link BatchInterceptor}), as {@link #setRecordInterceptor} does for record listeners. {@code null} (the
     * default) for none; record listeners' containers ignore it.
     */
    public void setBatchInterceptor(@Nullable BatchInterceptor batchInterceptor) {
        this.batchInterceptor = batchInterceptor;
    }

    public @Nullable BatchInterceptor getBatchInterceptor() {
        return batchInterceptor;
    }

    /**
     * Runs each delivery attempt of the containers this factory makes afterwards in a transaction of this manager
     * (see {@link ConcurrentMessageListenerContainer#setTransactionManager}), those of its {@link #copy()}s and of a
     * {@code @RetryableTopic}'s retry and dead-letter topics included. {@code null} (the default) for none.
     */
    public void setTransactionManager(@Nullable PlatformTransactionManager transactionManager) {
        this.transactionManager = transactionManager;
    }

    public @Nullable PlatformTransactionManager getTransactionManager() {
        return transactionManager;
    }

    /**
     * Configures further each container this factory makes afterwards, once made and configured and before anything
     * starts it (see {@link ContainerCustomizer}), as spring-kafka's factory method of the same name: every container,
     * those of {@code @KafkoListener} methods (a {@code @RetryableTopic}'s retry and dead-letter containers included,
     * and before a listener's own {@code containerPostProcessor}), those made with
     * {@link #createListenerContainer(String, String, List, KafkoMessageListener)}, and those of its {@link #copy()}s.
     * {@code null} (the default) for none.
     */
    public void setContainerCustomizer(@Nullable ContainerCustomizer containerCustomizer) {
        this.containerCustomizer = containerCustomizer;
    }

    public @Nullable ContainerCustomizer getContainerCustomizer() {
        return containerCustomizer;
    }

    /** Whether containers start with the context unless their endpoint says otherwise. */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /**
     * Whether the {@code @KafkoListener}s whose containers it makes take a whole poll ({@code true}) or one record
     * ({@code false}) where their annotation has no {@code batch} attribute: spring-kafka's {@code setBatchListener}.
     * Null (the default): as {@code kafko.listener.type} says. An annotation's {@code batch} attribute wins; endpoints
     * given in code keep their own. Set before the context starts.
     */
    public void setBatchListener(@Nullable Boolean batchListener) {
        this.batchListener = batchListener;
    }

    /** What {@link #setBatchListener} set, or null. */
    public @Nullable Boolean isBatchListener() {
        return batchListener;
    }

    /** The argument resolution used when the context defines no {@code kafkoHandlerMethodFactory} bean. */
    public synchronized MessageHandlerMethodFactory defaultHandlerMethodFactory() {
        if (defaultHandlerMethodFactory == null) {
            defaultHandlerMethodFactory = KafkoArgumentResolvers.handlerMethodFactory(converter, null);
        }
        return defaultHandlerMethodFactory;
    }

    /**
     * A container for an annotated method.
     *
     * @throws IllegalArgumentException naming the listener when its concurrency is below 1
     * @throws IllegalStateException naming the listener when the method takes an {@link Acknowledgment}
     *     but its ack mode (once the {@link ContainerCustomizer} and the endpoint's {@link ContainerPostProcessor}
     *     ran) is not a manual one: acknowledging would do nothing
     * @throws ContainerCustomizationException naming the listener when this factory's {@link ContainerCustomizer}
     *     or the endpoint's {@link ContainerPostProcessor} (which runs after it) throws
     */
    public ConcurrentMessageListenerContainer createListenerContainer(KafkoListenerEndpoint endpoint,
                                                                      MessageHandlerMethodFactory methods) {
        ContainerProperties properties = containerProperties;
        if (endpoint.concurrency() != null) {
            try {
                properties = properties.withConcurrency(endpoint.concurrency());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(describe(endpoint) + ": " + e.getMessage(), e);
            }
        }
        if (endpoint.ackMode() != null) {
            properties = properties.withAckMode(endpoint.ackMode());
        }
        if (endpoint.maxPollRecords() != null) {
            properties = properties.withMaxPollRecords(endpoint.maxPollRecords());
        }
        if (endpoint.offsetReset() != null) {
            properties = properties.withOffsetReset(endpoint.offsetReset());
        }
        if (endpoint.clientIdPrefix() != null) {
            properties = properties.withClientId(endpoint.clientIdPrefix());
        }
        RecordMessageConverter payloads = converter;
        MessageHandlerMethodFactory listenerMethods = methods;
        if (endpoint.contentTypeConverter() != null) {
            payloads = converter.tryingFirst(endpoint.contentTypeConverter());
            listenerMethods = KafkoArgumentResolvers.withPayloads(methods, payloads, describe(endpoint));
        }
        KafkoMessageListener adapter;
        if (endpoint.handlers().isEmpty()) {
            adapter = adapter(endpoint, listenerMethods, payloads, endpoint.method(), endpoint.replyTopic(),
                    endpoint.replyToHeader());
        } else {
            if (endpoint.batch()) {
                throw new IllegalStateException(describe(endpoint) + " is a class-level @KafkoListener made a batch"
                        + " listener (by its batch attribute, kafko.listener.type=batch or its container factory's"
                        + " setBatchListener(true)): its @KafkoHandler methods take one record at a time; give it"
                        + " batch = \"false\"");
            }
            List<DelegatingMessageListenerAdapter.Delegate> delegates = new ArrayList<>();
            for (KafkoListenerEndpoint.Handler h : endpoint.handlers()) {
                delegates.add(new DelegatingMessageListenerAdapter.Delegate(h.method(), h.isDefault(),
                        adapter(endpoint, listenerMethods, payloads, h.method(), h.replyTopic(), h.replyToHeader())));
            }
            adapter = new DelegatingMessageListenerAdapter(endpoint.id(), endpoint.bean(), delegates,
                    endpoint.bean().getClass().getClassLoader());
        }
        boolean start = endpoint.autoStartup() != null ? endpoint.autoStartup() : autoStartup;
        KafkoMessageListener filtered = filtered(adapter, endpoint.recordFilterStrategy());
        if (awaitRetryBackOff && !endpoint.batch()) {
            filtered = new RetryBackOffListener(filtered);
        }
        Pattern pattern = endpoint.topicPattern();
        ConcurrentMessageListenerContainer container;
        if (!endpoint.topicPartitions().isEmpty()) {
            container = new ConcurrentMessageListenerContainer(endpoint.id(),
                    endpoint.topicPartitions().toArray(TopicPartitionOffset[]::new), endpoint.groupId(), backend,
                    properties, start, filtered, errorHandler, instrumentation, executor);
        } else {
            container = pattern == null
                    ? new ConcurrentMessageListenerContainer(endpoint.id(), endpoint.topics(), endpoint.groupId(),
                            backend, properties, start, filtered, errorHandler, instrumentation, executor)
                    : new ConcurrentMessageListenerContainer(endpoint.id(), pattern, endpoint.groupId(),
                            backend, properties, start, filtered, errorHandler, instrumentation, executor);
        }
        configured(container, endpoint.containerPostProcessor());
        // against the ack mode the container runs with, which its customizer or post-processor may have set
        for (Method method : endpoint.handlers().isEmpty() ? List.of(endpoint.method())
                : endpoint.handlers().stream().map(KafkoListenerEndpoint.Handler::method).toList()) {
            checkAcknowledgment(endpoint, method, container.getContainerProperties());
        }
        return container;
    }

    private MessagingMessageListenerAdapter adapter(KafkoListenerEndpoint endpoint, MessageHandlerMethodFactory methods,
                                                    RecordMessageConverter payloads, Method method,
                                                    @Nullable String replyTopic, boolean replyToHeader) {
        InvocableHandlerMethod handler = methods.createInvocableHandlerMethod(endpoint.bean(), method);
        return new MessagingMessageListenerAdapter(handler, payloads, endpoint.batch(), endpoint.id(),
                endpoint.groupId(), replyTopic, replyToHeader, replyTemplate, endpoint.errorHandler(),
                new ExistingTopic(backend), endpoint.splitIterables(), endpoint.info());
    }

    /** Whether the backend has a topic of that name. */
    private static final class ExistingTopic implements Predicate<String> {

        private final LogBackend backend;

        ExistingTopic(LogBackend backend) {
            this.backend = backend;
        }

        @Override
        public boolean test(String topic) {
            return backend.topicId(topic) != null;
        }
    }

    /** Refuses an Acknowledgment parameter without a manual ack mode; warns of a manual one without any. */
    private static void checkAcknowledgment(KafkoListenerEndpoint endpoint, Method method, ContainerProperties properties) {
        if (!properties.ackMode().isManual() && takesAcknowledgment(method)) {
            throw new IllegalStateException(describe(endpoint, method) + " takes an Acknowledgment, which needs"
                    + " ackMode MANUAL or MANUAL_IMMEDIATE, but its ack mode is " + properties.ackMode() + ": set"
                    + " ackMode = \"manual\" (or \"manual-immediate\") on the @KafkoListener or"
                    + " kafko.listener.ack-mode, or remove the parameter");
        }
        if (properties.ackMode().isManual() && !canAcknowledge(method)) {
            // a recovered record is committed in every ack mode, cumulatively: the warning must not promise more
            LOG.warn("{} has ack mode {} but takes no Acknowledgment (nor a Message or headers that carry one):"
                    + " it commits only when its error handler recovers a failed record (dead letter or log), which"
                    + " commits the records before it in its partition too; the rest of what it processes is"
                    + " delivered again after a restart", describe(endpoint, method), properties.ackMode());
        }
    }

    /**
     * The new container with this factory's settings, then its customizer's, then the listener's post-processor's
     * ({@code postProcessor}, or null), as spring-kafka orders them; what either of the last two throws fails it.
     */
    private ConcurrentMessageListenerContainer configured(ConcurrentMessageListenerContainer container,
                                                          @Nullable ContainerPostProcessor postProcessor) {
        ObservationRegistry registry = observationRegistry;
        if (registry != null) { // else nothing is observed: a new container's default
            container.setObservationRegistry(registry, observationConvention);
        }
        container.setApplicationEventPublisher(eventPublisher);
        container.setRecordInterceptor(recordInterceptor);
        container.setBatchInterceptor(batchInterceptor);
        container.setTransactionManager(transactionManager);
        ContainerCustomizer customizer = containerCustomizer;
        if (customizer != null) {
            try {
                customizer.configure(container);
            } catch (RuntimeException e) {
                throw new ContainerCustomizationException("Listener '" + container.getListenerId() + "': the"
                        + " ContainerCustomizer of its container factory (" + customizer.getClass().getName()
                        + ") failed: " + e, e);
            }
        }
        if (postProcessor != null) {
            try {
                postProcessor.postProcess(container);
            } catch (RuntimeException e) {
                throw new ContainerCustomizationException("Listener '" + container.getListenerId() + "': its"
                        + " containerPostProcessor (" + postProcessor.getClass().getName() + ") failed: " + e, e);
            }
        }
        return container;
    }

    /** The listener behind the endpoint's record filter, else this factory's, if there is one. */
    private KafkoMessageListener filtered(KafkoMessageListener listener, @Nullable RecordFilterStrategy own) {
        RecordFilterStrategy filter = own != null ? own : recordFilterStrategy;
        return filter == null ? listener : new FilteringMessageListenerAdapter(listener, filter);
    }

    private static boolean takesAcknowledgment(Method method) {
        for (Class<?> type : method.getParameterTypes()) {
            if (Acknowledgment.class.isAssignableFrom(type)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a listener method can reach its {@link Acknowledgment}: as a parameter, in a {@code Message} (each
     * of a batch's {@code List<Message<?>>} carries the batch's), or in headers; one that cannot commits nothing
     * under a manual ack mode.
     */
    public static boolean canAcknowledge(Method method) {
        if (takesAcknowledgment(method)) {
            return true;
        }
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            Class<?> type = parameter.getParameterType();
            Header header = parameter.getParameterAnnotation(Header.class);
            if (Message.class.isAssignableFrom(type) || MessageHeaders.class.isAssignableFrom(type)
                    || isCollectionOfMessages(parameter)
                    || parameter.hasParameterAnnotation(Headers.class)
                    || header != null && (KafkoHeaders.ACKNOWLEDGMENT.equals(header.value())
                            || KafkoHeaders.ACKNOWLEDGMENT.equals(header.name()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isCollectionOfMessages(MethodParameter parameter) {
        if (!Collection.class.isAssignableFrom(parameter.getParameterType())) {
            return false;
        }
        Class<?> element = ResolvableType.forMethodParameter(parameter).asCollection().resolveGeneric(0);
        return element != null && Message.class.isAssignableFrom(element);
    }

    /** "Listener 'id' (Bean.method)", for errors about one endpoint. */
    private static String describe(KafkoListenerEndpoint endpoint) {
        return describe(endpoint, endpoint.method());
    }

    private static String describe(KafkoListenerEndpoint endpoint, Method method) {
        return "Listener '" + endpoint.id() + "' (" + method.getDeclaringClass().getSimpleName() + "."
                + method.getName() + ")";
    }

    /**
     * A container for a plain listener, with this factory's defaults (its record filter included) and its
     * {@link ContainerCustomizer}'s settings, for
     * {@link KafkoListenerEndpointRegistry#registerListenerContainer} (and, when it should go,
     * {@link KafkoListenerEndpointRegistry#unregisterListenerContainer}).
     *
     * @throws dev.kafko.InvalidNameException when a topic or the group breaks the naming rule
     */
    public ConcurrentMessageListenerContainer createListenerContainer(String id, String groupId, List<String> topics,
                                                                      KafkoMessageListener listener) {
        for (String topic : topics) {
            Kafko.checkName("topic", topic);
        }
        Kafko.checkName("group", groupId);
        return configured(new ConcurrentMessageListenerContainer(id, topics, groupId, backend, containerProperties,
                autoStartup, filtered(listener, null), errorHandler, instrumentation, executor), null);
    }

    /**
     * A container for a plain listener that reads every topic {@code topicPattern} matches (see
     * {@link ConcurrentMessageListenerContainer}), with this factory's defaults.
     *
     * @throws dev.kafko.InvalidNameException when the group breaks the naming rule
     */
    public ConcurrentMessageListenerContainer createListenerContainer(String id, String groupId, Pattern topicPattern,
                                                                      KafkoMessageListener listener) {
        Kafko.checkName("group", groupId);
        return configured(new ConcurrentMessageListenerContainer(id, topicPattern, groupId, backend,
                containerProperties, autoStartup, filtered(listener, null), errorHandler, instrumentation, executor),
                null);
    }

    /** Daemon threads: a member stuck in its listener must not keep the JVM alive once the context closed. */
    private static TaskExecutor daemonThreads() {
        SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("kafko-listener-");
        executor.setDaemon(true);
        return executor;
    }
}
