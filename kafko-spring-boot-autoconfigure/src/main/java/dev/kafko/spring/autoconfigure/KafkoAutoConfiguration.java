package dev.kafko.spring.autoconfigure;

import static dev.kafko.spring.autoconfigure.KafkoPropertiesCheck.atLeastOne;
import static dev.kafko.spring.autoconfigure.KafkoPropertiesCheck.between;
import static dev.kafko.spring.autoconfigure.KafkoPropertiesCheck.notNegative;
import static dev.kafko.spring.autoconfigure.KafkoPropertiesCheck.positive;

import dev.kafko.Kafko;
import dev.kafko.KafkoObserver;
import dev.kafko.KafkoOptions;
import dev.kafko.spring.annotation.EnableKafko;
import dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.core.KafkoAdmin;
import dev.kafko.spring.core.KafkoBackend;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.core.KafkoTopicCreations;
import dev.kafko.spring.core.KafkoTopicProvisioner;
import dev.kafko.spring.core.LogBackend;
import dev.kafko.spring.listener.BatchInterceptor;
import dev.kafko.spring.listener.ContainerCustomizer;
import dev.kafko.spring.listener.ContainerProperties;
import dev.kafko.spring.listener.DeadLetterPublishingRecoverer;
import dev.kafko.spring.listener.DefaultErrorHandler;
import dev.kafko.spring.listener.KafkoErrorHandler;
import dev.kafko.spring.listener.LoggingRecordRecoverer;
import dev.kafko.spring.listener.RecordInterceptor;
import dev.kafko.spring.transaction.KafkoTransactionManager;
import dev.kafko.spring.listener.RetryListener;
import dev.kafko.spring.listener.adapter.KafkoArgumentResolvers;
import dev.kafko.spring.support.KafkoInstrumentation;
import dev.kafko.spring.support.LoggingProducerListener;
import dev.kafko.spring.support.ProducerListener;
import dev.kafko.spring.support.RecordMessageConverter;
import dev.kafko.spring.support.micrometer.KafkoListenerObservationConvention;
import dev.kafko.spring.support.micrometer.KafkoTemplateObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SearchStrategy;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.util.StringUtils;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.messaging.converter.AbstractMessageConverter;
import org.springframework.messaging.converter.ByteArrayMessageConverter;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.backoff.FixedBackOff;
import org.springframework.validation.Validator;

/**
 * Auto-configures kafko: the {@link Kafko} instance on {@code kafko.data-dir} (or an ephemeral
 * directory), declared topics, the {@link KafkoTemplate}, {@code @KafkoListener} processing and the
 * listener containers with their error handling. Every bean backs off when the application defines
 * its own; {@code kafko.enabled=false} switches it all off. Engine options without a property come from
 * {@link KafkoOptionsCustomizer} beans.
 */
@AutoConfiguration(afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnBooleanProperty(name = "kafko.enabled", matchIfMissing = true)
@EnableConfigurationProperties(KafkoProperties.class)
public final class KafkoAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(KafkoAutoConfiguration.class);
    /** The properties that only the auto-configured error handler reads. */
    private static final String[] ERROR_HANDLER_PROPERTIES = {"kafko.listener.retry", "kafko.listener.dead-letter"};

    /** The error handler this configuration made, if it made one: any other is the application's own bean. */
    private @Nullable KafkoErrorHandler ownErrorHandler;

    private static final String JSON_MAPPER = "tools.jackson.databind.json.JsonMapper";
    private static final String TEMPLATE_BEAN = "kafkoTemplate";
    private static final String PRODUCER_LISTENER_BEAN = "kafkoProducerListener";

    /** Not needed (and not created) when the application opens its own {@link Kafko}. */
    @Bean
    @ConditionalOnMissingBean({KafkoDataDirectory.class, Kafko.class})
    KafkoDataDirectory kafkoDataDirectory(KafkoProperties properties, ConfigurableListableBeanFactory beanFactory,
                                          Environment environment) {
        KafkoPropertiesCheck.check(properties, beanFactory.getBeanClassLoader());
        if (properties.isEphemeral()) {
            return KafkoDataDirectory.ephemeral();
        }
        // an empty value leaves the other keys at their defaults, but not this one: an unset ${DATA_DIR:} would
        // open a new, empty log in the working directory, where no volume may be, and nothing would say so
        String named = Binder.get(environment).bind("kafko.data-dir", String.class).orElse(null);
        if (named != null && named.isBlank()) {
            throw new InvalidKafkoPropertyException("kafko.data-dir", "is empty: name the log's directory (the default,"
                    + " kafko-data in the working directory, is taken only when the key is not set at all), or set"
                    + " kafko.ephemeral=true for a log of the application's own, deleted when it closes");
        }
        Path dir = properties.getDataDir();
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new InvalidKafkoPropertyException("kafko.data-dir", "names " + dir.toAbsolutePath()
                    + ", which is a file, not a directory");
        }
        return KafkoDataDirectory.of(dir);
    }

    /** Closed by the container after every bean that uses it (the listener registry included) is gone. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Kafko kafko(KafkoDataDirectory directory, KafkoProperties properties,
                ObjectProvider<KafkoOptionsCustomizer> customizers, ObjectProvider<KafkoObserver> observers,
                ConfigurableListableBeanFactory beanFactory, Environment environment) {
        // (again: an application's own KafkoDataDirectory bean skips the check above)
        KafkoPropertiesCheck.check(properties, beanFactory.getBeanClassLoader());
        SpringKafkaProperties.warnIfSetWithoutSpringKafka(environment, beanFactory.getBeanClassLoader());
        Kafko kafko = Kafko.open(directory.path(), options(directory, properties, customizers, observers));
        if (LOG.isInfoEnabled()) {
            LOG.info("kafko opened {}{}: {} existing topic(s)", kafko.dataDir(),
                    directory.isEphemeral() ? " (ephemeral: deleted on close)" : "", kafko.topics().size());
        }
        return kafko;
    }

    /**
     * The options of the {@link Kafko} bean: the {@code kafko.*} properties, then every
     * {@link KafkoOptionsCustomizer} in order, then the observer, which composes every {@link KafkoObserver}
     * bean after the one a customizer set, so that no customizer drops the metrics.
     */
    private static KafkoOptions options(KafkoDataDirectory directory, KafkoProperties properties,
                                        ObjectProvider<KafkoOptionsCustomizer> customizers,
                                        ObjectProvider<KafkoObserver> observers) {
        KafkoOptions.Builder builder = KafkoOptions.builder()
                .topicDefaults(properties.topicDefaults())
                .maxPollRecords(atLeastOne("kafko.listener.max-poll-records",
                        properties.getListener().getMaxPollRecords()))
                .linger(notNegative("kafko.linger", properties.getLinger()))
                .maxQueuedBytes(notNegative("kafko.max-queued-bytes", properties.getMaxQueuedBytes()).toBytes())
                .maxBlock(notNegative("kafko.max-block", properties.getMaxBlock()))
                .compactionBufferBytes(between("kafko.compaction-buffer-size", properties.getCompactionBufferSize(),
                        KafkoOptions.MIN_COMPACTION_BUFFER_BYTES, KafkoOptions.MAX_COMPACTION_BUFFER_BYTES))
                .offsetReset(properties.getOffsetReset())
                // an ephemeral directory is deleted on close: forcing its topic metadata to disk buys nothing, and
                // neither does a durable close (its fsyncs, index files and markers were half a context's close)
                .fsyncMetadata(!directory.isEphemeral())
                .durableClose(!directory.isEphemeral());
        for (KafkoOptionsCustomizer customizer : customizers.orderedStream().toList()) {
            customizer.customize(builder);
        }
        KafkoOptions customized = builder.build();
        List<KafkoObserver> all = new ArrayList<>();
        if (customized.observer() != KafkoObserver.NOOP) {
            all.add(customized.observer());
        }
        for (KafkoObserver observer : observers.orderedStream().toList()) {
            if (!all.contains(observer)) {
                all.add(observer);
            }
        }
        return customized.toBuilder().observer(CompositeKafkoObserver.of(all)).build();
    }

    @Bean
    @ConditionalOnMissingBean
    KafkoTopicProvisioner kafkoTopicProvisioner(Kafko kafko, KafkoProperties properties, ListableBeanFactory beans) {
        requireOpened(kafko);
        TopicDeclarations declared = TopicDeclarations.of(properties, beans);
        KafkoTopicProvisioner provisioner = new KafkoTopicProvisioner(kafko, declared.configs,
                declared.defaultPartitions, properties.isAutoCreateTopics(), declared.declaredBy);
        // every topic of an ephemeral log is new: a line per topic at each context start says nothing
        provisioner.setLogCreations(!properties.isEphemeral());
        provisioner.setModifyTopicConfigs(properties.isModifyTopicConfigs());
        provisioner.setDeclaredKeys(declared.keys);
        return provisioner;
    }

    @Bean
    @ConditionalOnMissingBean
    KafkoAdmin kafkoAdmin(Kafko kafko, KafkoTopicProvisioner topics) {
        return new KafkoAdmin(kafko, topics);
    }

    /**
     * In a child context of one with kafko (a context hierarchy), whose template and listeners use the parent's
     * {@link Kafko} and provisioner: the topics the child declares ({@code NewTopic} beans, {@code kafko.topics} of
     * its environment), created or checked on that {@code Kafko} as the child starts. The parent's provisioner reads
     * only its own context's beans: a topic declared in the child was otherwise never created. (The one above is made
     * when no context of the hierarchy has a provisioner.)
     */
    @Bean
    @ConditionalOnMissingBean(value = KafkoTopicProvisioner.class, search = SearchStrategy.CURRENT)
    KafkoTopicProvisioner kafkoChildTopicProvisioner(Kafko kafko, KafkoProperties properties,
                                                     ListableBeanFactory beans) {
        return kafkoTopicProvisioner(kafko, properties, beans);
    }

    /**
     * The {@code NewTopic} beans the provisioner could not be given when it was made: given once every singleton
     * exists. One per context: a child context's hands its own beans to its own provisioner.
     */
    @Bean
    @ConditionalOnMissingBean(search = SearchStrategy.CURRENT)
    LateTopicDeclarations kafkoLateTopicDeclarations(KafkoProperties properties, ListableBeanFactory beans) {
        return new LateTopicDeclarations(properties, beans);
    }

    /** Part of the {@link Kafko} bean's observer, as every {@link KafkoObserver} bean: tells the topics it creates. */
    @Bean
    @ConditionalOnMissingBean
    KafkoTopicCreations kafkoTopicCreations() {
        return new KafkoTopicCreations();
    }

    /**
     * The backend watches topic creations through the {@link KafkoTopicCreations} bean only when the {@link Kafko}
     * bean's observer includes it (an application's own {@code Kafko} bean may not).
     */
    @Bean
    @ConditionalOnMissingBean
    LogBackend kafkoBackend(Kafko kafko, KafkoTopicProvisioner topics, ObjectProvider<KafkoTopicCreations> creations) {
        requireOpened(kafko);
        KafkoTopicCreations watch = creations.getIfUnique();
        boolean wired = watch != null && CompositeKafkoObserver.includes(kafko.options().observer(), watch);
        return new KafkoBackend(kafko, topics, wired ? watch : null);
    }

    @Bean
    @ConditionalOnMissingBean
    RecordMessageConverter kafkoRecordMessageConverter(ConfigurableListableBeanFactory beanFactory) {
        // built on first use: String and byte[] values (and payloads of records without headers for
        // String and byte[] parameters) never reach it, and a cold start need not load it
        return new RecordMessageConverter(new LazyMessageConverter(new RecordConverters(beanFactory)));
    }

    /**
     * The converters of record payloads: bytes (as a {@code byte[]} or a {@code ByteBuffer}), Strings and, when
     * Jackson is there, JSON (built on first use). Each
     * reads a value by the type it is read into, whatever a record's {@code contentType} header says (a record that
     * names {@code application/json} still reaches a {@code String} listener as its text), as the template writes
     * values by their type.
     */
    private static final class RecordConverters implements Supplier<MessageConverter> {

        private final ConfigurableListableBeanFactory beanFactory;

        RecordConverters(ConfigurableListableBeanFactory beanFactory) {
            this.beanFactory = beanFactory;
        }

        @Override
        public MessageConverter get() {
            List<MessageConverter> converters = new ArrayList<>(List.of(byTargetType(new ByteArrayMessageConverter()),
                    new ByteBufferMessageConverter(), byTargetType(new StringMessageConverter())));
            ClassLoader classLoader = beanFactory.getBeanClassLoader();
            if (ClassUtils.isPresent(JSON_MAPPER, classLoader)) {
                converters.add(new LazyMessageConverter(() -> byTargetType(JacksonConverters.json(beanFactory,
                        classLoader))));
            } else {
                converters.add(new WithoutJsonConverter());
            }
            return new CompositeMessageConverter(converters);
        }

        /**
         * The converter (a Spring {@link AbstractMessageConverter}) without a content type resolver: it then takes
         * any content type for one it reads. Typed as the interface so that the class verifier loads none of the
         * converters before the first record needs them.
         */
        private static MessageConverter byTargetType(MessageConverter converter) {
            ((AbstractMessageConverter) converter).setContentTypeResolver(null);
            return converter;
        }
    }

    @Bean(name = KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME)
    @ConditionalOnMissingBean(name = KafkoListenerAnnotationBeanPostProcessor.HANDLER_METHOD_FACTORY_BEAN_NAME)
    MessageHandlerMethodFactory kafkoHandlerMethodFactory(RecordMessageConverter converter,
                                                          ObjectProvider<Validator> validators) {
        return KafkoArgumentResolvers.handlerMethodFactory(converter, new LazyValidator(validators));
    }

    @Bean
    @ConditionalOnMissingBean
    ProducerListener<?, ?> kafkoProducerListener() {
        return new LoggingProducerListener<>();
    }

    @Bean
    @ConditionalOnMissingBean
    @SuppressWarnings("unchecked")
    KafkoTemplate<?, ?> kafkoTemplate(LogBackend backend, RecordMessageConverter converter, KafkoProperties properties,
                                      ObjectProvider<ProducerListener<?, ?>> producerListener,
                                      ObjectProvider<KafkoInstrumentation> instrumentation,
                                      ObjectProvider<ObservationRegistry> observationRegistry,
                                      ObjectProvider<KafkoTemplateObservationConvention> observationConvention,
                                      ListableBeanFactory beanFactory) {
        KafkoTemplate<Object, Object> template = new KafkoTemplate<>(backend, converter);
        String defaultTopic = properties.getTemplate().getDefaultTopic();
        // blank (an unset ${DEFAULT_TOPIC:}) is none, as the start-up check of the properties takes it
        template.setDefaultTopic(StringUtils.hasText(defaultTopic) ? defaultTopic : null);
        ProducerListener<?, ?> listener = producerListener.getIfUnique();
        if (listener == null) {
            listener = besideTheLoggingOne(beanFactory);
        }
        if (listener != null) {
            template.setProducerListener((ProducerListener<Object, Object>) listener);
        } else if (producerListener.stream().findAny().isPresent()) {
            LOG.warn("Several ProducerListener beans and none of them @Primary: the KafkoTemplate uses none of them"
                    + " and logs failed sends itself; mark the one to use @Primary");
        }
        template.setInstrumentation(CompositeKafkoInstrumentation.of(instrumentation));
        if (properties.getTemplate().isObservationEnabled()) {
            template.setObservationRegistry(observationRegistry("kafko.template.observation-enabled",
                    observationRegistry));
            template.setObservationConvention(observationConvention.getIfUnique());
        }
        if (properties.getTemplate().isTransactional()) {
            template.setTransactional(true);
        }
        template.setAllowNonTransactional(properties.getTemplate().isAllowNonTransactional());
        return template;
    }

    /**
     * The one {@link ProducerListener} bean beside the auto-configured logging one, or null. The logging one backs off
     * when the application defines its own, so both are there only when a bean was added after that check: a test's
     * {@code @MockitoBean ProducerListener<K, V>}, which sits beside the {@code ProducerListener<?, ?>} rather than
     * replacing it, and whose mock the template must tell (as {@code @MockitoBean KafkoTemplate<K, V>} keeps the
     * replies on the auto-configured template).
     */
    @SuppressWarnings("rawtypes")
    private static @Nullable ProducerListener<?, ?> besideTheLoggingOne(ListableBeanFactory beanFactory) {
        Map<String, ProducerListener> all = beanFactory.getBeansOfType(ProducerListener.class);
        if (all.size() != 2 || !(all.get(PRODUCER_LISTENER_BEAN) instanceof LoggingProducerListener<?, ?>)) {
            return null;
        }
        all.remove(PRODUCER_LISTENER_BEAN);
        return all.values().iterator().next();
    }

    @Bean
    @ConditionalOnMissingBean
    KafkoErrorHandler kafkoErrorHandler(KafkoProperties properties, LogBackend backend,
                                        ObjectProvider<KafkoInstrumentation> instrumentation,
                                        ObjectProvider<RetryListener> retryListeners,
                                        ConfigurableListableBeanFactory beanFactory) {
        KafkoProperties.Listener listener = properties.getListener();
        int attempts = atLeastOne("kafko.listener.retry.max-attempts", listener.getRetry().getMaxAttempts());
        FixedBackOff backOff = new FixedBackOff(
                notNegative("kafko.listener.retry.backoff", listener.getRetry().getBackoff()).toMillis(), attempts - 1L);
        DefaultErrorHandler handler = new DefaultErrorHandler(backOff, listener.getDeadLetter().isEnabled()
                ? new DeadLetterPublishingRecoverer(backend, CompositeKafkoInstrumentation.of(instrumentation))
                : new LoggingRecordRecoverer());
        for (String name : listener.getRetry().getNotRetryable()) {
            handler.addNotRetryableExceptions(throwableClass(name.strip(), beanFactory.getBeanClassLoader()));
        }
        List<RetryListener> listeners = new ArrayList<>();
        for (Iterator<RetryListener> it = retryListeners.orderedStream().iterator(); it.hasNext(); ) {
            listeners.add(it.next());
        }
        if (!listeners.isEmpty()) {
            handler.setRetryListeners(listeners.toArray(new RetryListener[0]));
        }
        ownErrorHandler = handler;
        return handler;
    }

    /**
     * Warns when {@code kafko.listener.retry.*} or {@code kafko.listener.dead-letter.*} are set while the listeners use
     * the application's own error handler, which does not read them: the retries and dead letters configured there
     * would silently not happen.
     */
    static void warnOfUnreadErrorHandlerProperties(Environment environment) {
        List<String> set = new ArrayList<>();
        for (String prefix : ERROR_HANDLER_PROPERTIES) {
            ConfigurationPropertyName name = ConfigurationPropertyName.of(prefix);
            for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
                if (source.containsDescendantOf(name) == ConfigurationPropertyState.PRESENT) {
                    set.add(prefix + ".*");
                    break;
                }
            }
        }
        if (!set.isEmpty()) {
            LOG.warn("{} {} set, but the listeners use the application's own KafkoErrorHandler bean, which does not"
                    + " read them: configure its retries and recoverer on that bean", String.join(" and ", set),
                    set.size() == 1 ? "is" : "are");
        }
    }

    /**
     * Warns of {@link RetryListener} beans that the application's own error handler was not given: the auto-configured
     * handler is given every one, the application's own only those it is given ({@code setRetryListeners}), and the
     * others would silently never be told of a failure.
     */
    static void warnOfRetryListenersNotGiven(KafkoErrorHandler errorHandler, ListableBeanFactory beanFactory) {
        // singletons only: each lookup of a prototype makes a new instance, which no handler could have been given
        Map<String, RetryListener> beans = beanFactory.getBeansOfType(RetryListener.class, false, false);
        if (beans.isEmpty()) {
            return;
        }
        List<RetryListener> given = errorHandler instanceof DefaultErrorHandler handler ? handler.getRetryListeners()
                : List.of();
        List<String> notGiven = new ArrayList<>();
        for (Map.Entry<String, RetryListener> bean : beans.entrySet()) {
            if (!given.contains(bean.getValue())) {
                notGiven.add(bean.getKey());
            }
        }
        if (!notGiven.isEmpty()) {
            LOG.warn("RetryListener bean(s) {} will not be told of failed deliveries: the listeners use the"
                    + " application's own KafkoErrorHandler bean ({}), which was not given them; pass them to its"
                    + " setRetryListeners", notGiven, errorHandler.getClass().getName());
        }
    }

    static Class<? extends Throwable> throwableClass(String name, @Nullable ClassLoader classLoader) {
        Class<?> type;
        try {
            type = ClassUtils.forName(name, classLoader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new InvalidKafkoPropertyException("kafko.listener.retry.not-retryable", "names " + name
                    + ", which is not a class on the classpath (" + e + ")");
        }
        if (!Throwable.class.isAssignableFrom(type)) {
            throw new InvalidKafkoPropertyException("kafko.listener.retry.not-retryable", "names " + name
                    + ", which is not an exception");
        }
        return type.asSubclass(Throwable.class);
    }

    @Bean
    @ConditionalOnMissingBean(name = KafkoListenerAnnotationBeanPostProcessor.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
    @SuppressWarnings("unchecked")
    KafkoListenerContainerFactory kafkoListenerContainerFactory(LogBackend backend, RecordMessageConverter converter,
                                                                KafkoProperties properties,
                                                                KafkoErrorHandler errorHandler,
                                                                ObjectProvider<KafkoTemplate<?, ?>> template,
                                                                ObjectProvider<KafkoInstrumentation> instrumentation,
                                                                ObjectProvider<ObservationRegistry> observationRegistry,
                                                                ObjectProvider<KafkoListenerObservationConvention>
                                                                        observationConvention,
                                                                ObjectProvider<RecordInterceptor> recordInterceptor,
                                                                ObjectProvider<BatchInterceptor> batchInterceptor,
                                                                ObjectProvider<ContainerCustomizer> containerCustomizer,
                                                                Environment environment,
                                                                ListableBeanFactory beanFactory) {
        KafkoProperties.Listener listener = properties.getListener();
        KafkoListenerContainerFactory factory = new KafkoListenerContainerFactory(backend, converter);
        positive("kafko.listener.poll-timeout", listener.getPollTimeout());
        notNegative("kafko.listener.shutdown-timeout", listener.getShutdownTimeout());
        factory.setContainerProperties(new ContainerProperties(listener.getAckMode(),
                atLeastOne("kafko.listener.concurrency", listener.getConcurrency()), listener.getPollTimeout(),
                atLeastOne("kafko.listener.max-poll-records", listener.getMaxPollRecords()),
                listener.getShutdownTimeout(), atLeastOne("kafko.listener.ack-count", listener.getAckCount()),
                positive("kafko.listener.ack-time", listener.getAckTime()), listener.getIdleEventInterval(),
                listener.getIdlePartitionEventInterval()));
        factory.setErrorHandler(errorHandler);
        factory.setAutoStartup(listener.isAutoStartup());
        if (errorHandler != ownErrorHandler) {
            warnOfUnreadErrorHandlerProperties(environment);
            warnOfRetryListenersNotGiven(errorHandler, beanFactory);
        }
        factory.setReplyTemplate((KafkoTemplate<Object, Object>) replyTemplate(template, beanFactory));
        factory.setInstrumentation(CompositeKafkoInstrumentation.of(instrumentation));
        if (listener.isObservationEnabled()) {
            factory.setObservationRegistry(observationRegistry("kafko.listener.observation-enabled",
                    observationRegistry));
            factory.setObservationConvention(observationConvention.getIfUnique());
        }
        // as Boot's spring-kafka auto-configuration: the single interceptor bean of each kind, none when several
        factory.setRecordInterceptor(recordInterceptor.getIfUnique());
        factory.setBatchInterceptor(batchInterceptor.getIfUnique());
        if (properties.getTemplate().isTransactional()) {
            // as Boot's spring-kafka auto-configuration: the single KafkoTransactionManager bean, none when several
            factory.setTransactionManager(beanFactory.getBeanProvider(KafkoTransactionManager.class).getIfUnique());
        }
        // as Boot's spring-kafka auto-configuration (ifAvailable): the single customizer bean, or the primary one;
        // several without a primary fail the start with a NoUniqueBeanDefinitionException
        factory.setContainerCustomizer(containerCustomizer.getIfAvailable());
        SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("kafko-listener-");
        executor.setVirtualThreads(Threading.VIRTUAL.isActive(environment));
        // as virtual threads are: a member stuck in its listener past the shutdown timeout (a method that
        // never returns, a future that never completes) must not keep the JVM alive after the context closed
        executor.setDaemon(true);
        factory.setTaskExecutor(executor);
        return factory;
    }

    /** The context's observation registry for a property that asks for observations; a warning when there is none. */
    private static ObservationRegistry observationRegistry(String property, ObjectProvider<ObservationRegistry> registry) {
        ObservationRegistry unique = registry.getIfUnique();
        if (unique == null) {
            LOG.warn("{}=true, but {}: nothing is observed", property, registry.stream().findAny().isPresent()
                    ? "there are several ObservationRegistry beans and none is @Primary"
                    : "there is no ObservationRegistry bean (Spring Boot's Actuator or tracing modules provide one)");
            return ObservationRegistry.NOOP;
        }
        return unique;
    }

    /**
     * Keeps beans with {@code @KafkoListener} methods out of lazy initialization
     * ({@code spring.main.lazy-initialization=true}): nothing else asks for them, so their listeners
     * would never be registered, and nothing would be consumed.
     */
    @Bean
    static LazyInitializationExcludeFilter kafkoListenerLazyInitializationExcludeFilter() {
        return new ListenerBeansExcludeFilter();
    }

    /** An empty value of a {@code kafko.} key leaves it unset, as Spring Boot's own prefixes do. */
    @Bean
    static ConfigurationPropertiesBindHandlerAdvisor kafkoEmptyValueBindHandlerAdvisor() {
        return new EmptyValueBindHandlerAdvisor();
    }

    /**
     * Keeps the {@link Kafko} instance and the declared topics out of lazy initialization: the data directory
     * is locked, the properties checked and the topics created (or their partition counts checked) at
     * start-up, as without it, not at the first send.
     */
    @Bean
    static LazyInitializationExcludeFilter kafkoLazyInitializationExcludeFilter() {
        return LazyInitializationExcludeFilter.forBeanTypes(KafkoDataDirectory.class, Kafko.class,
                KafkoTopicProvisioner.class, LateTopicDeclarations.class);
    }

    /**
     * Applies {@link EnableKafko} unless the application already did in this context: a child context of
     * one with kafko (a context hierarchy) gets its own, so that its {@code @KafkoListener} methods run,
     * on the parent's {@link Kafko}.
     */
    @Configuration(proxyBeanMethods = false)
    @EnableKafko
    @ConditionalOnMissingBean(name = KafkoListenerAnnotationBeanPostProcessor.BEAN_NAME, search = SearchStrategy.CURRENT)
    static class EnableKafkoConfiguration {
    }

    /**
     * The template {@code @SendTo} replies go through: the only one, or the {@code @Primary} one; among
     * several, the one named {@code kafkoTemplate} (the auto-configured one: a test's
     * {@code @MockitoBean KafkoTemplate<K, V>} adds a second template beside it rather than replacing
     * it, and the listeners' replies keep going to the log); else none, which a listener with
     * {@code @SendTo} reports when it is created.
     */
    static @Nullable KafkoTemplate<?, ?> replyTemplate(ObjectProvider<KafkoTemplate<?, ?>> templates,
                                                      ListableBeanFactory beanFactory) {
        KafkoTemplate<?, ?> unique = templates.getIfUnique();
        if (unique != null || !beanFactory.containsBean(TEMPLATE_BEAN)) {
            return unique;
        }
        return beanFactory.getBean(TEMPLATE_BEAN) instanceof KafkoTemplate<?, ?> named ? named : null;
    }

    /**
     * Refuses a {@link Kafko} bean that was never opened, one that has no options (a test's {@code @MockitoBean Kafko}
     * or {@code mock(Kafko.class)}): the beans over it would fail later with a {@code NullPointerException}.
     */
    static void requireOpened(Kafko kafko) {
        if (kafko.options() == null) {
            throw new IllegalStateException("The Kafko bean (" + kafko.getClass().getName() + ") has no options: a"
                    + " mock of it (@MockitoBean Kafko)? kafko's topics, template and listeners need an opened Kafko;"
                    + " with kafko.ephemeral=true a test gets a fresh log of its own: mock the KafkoTemplate, or the"
                    + " beans the listeners call, instead");
        }
    }
}
