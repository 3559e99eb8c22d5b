package dev.kafko.spring.annotation;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.scope.ScopedProxyFactoryBean;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.Scope;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.StringUtils;

/**
 * Finds {@link KafkoListener} methods (repeated and meta-annotated ones too), resolves their
 * attributes ({@code ${...}} placeholders, then {@code #{...}} SpEL) into
 * {@link KafkoListenerEndpoint}s and, once every singleton exists, hands them to the
 * {@link KafkoListenerEndpointRegistry}. It starts nothing: the registry does, as a
 * {@code SmartLifecycle}. Called by the container on the thread that creates beans.
 */
public final class KafkoListenerAnnotationBeanPostProcessor
        implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton, Ordered {

    /** The bean name {@link EnableKafko} registers this processor under. */
    public static final String BEAN_NAME = "dev.kafko.spring.annotation.internalKafkoListenerAnnotationProcessor";
    /** The name of an optional {@link MessageHandlerMethodFactory} bean that replaces the default one. */
    public static final String HANDLER_METHOD_FACTORY_BEAN_NAME = "kafkoHandlerMethodFactory";
    /** The name of the container factory a listener uses when it names none. */
    public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "kafkoListenerContainerFactory";

    private final Set<Class<?>> withoutListeners = ConcurrentHashMap.newKeySet();
    private final List<KafkoListenerEndpoint> pending = new ArrayList<>();
    /** Where the listener of each id registered here was declared, for the error that names two of one id. */
    private final Map<String, String> declaredAt = new HashMap<>();
    private @Nullable ConfigurableListableBeanFactory beanFactory;
    private volatile boolean singletonsReady;

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (beanFactory instanceof ConfigurableListableBeanFactory configurable) {
            this.beanFactory = configurable;
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (ScopedProxyUtils.isScopedTarget(beanName) || bean instanceof ScopedObject) {
            // the listener is registered once, on the scoped proxy when its factory is made (below), which
            // calls the scope's current instance: each instance the scope makes (a refresh), and the proxy
            // each time its factory hands it out, would otherwise register it again
            return bean;
        }
        if (bean instanceof ScopedProxyFactoryBean scoped) {
            // the proxy is made with its factory, but nothing asks for it before a record would
            Object proxy = scoped.getObject();
            if (proxy != null) {
                registerListeners(proxy, beanName);
            }
            return bean;
        }
        registerListeners(bean, beanName);
        return bean;
    }

    private void registerListeners(Object bean, String beanName) {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (withoutListeners.contains(targetClass) || !mayHaveListeners(targetClass)) {
            return;
        }
        Map<Method, Set<KafkoListener>> annotated = listenerMethods(targetClass);
        Set<KafkoListener> onClass = classListeners(targetClass);
        Map<Method, KafkoHandler> handlers = handlerMethods(targetClass);
        if (onClass.isEmpty() && !handlers.isEmpty()) {
            throw new InvalidKafkoListenerException(targetClass.getName() + " has @KafkoHandler methods "
                    + handlers.keySet().stream().map(Method::getName).sorted().toList()
                    + " but no @KafkoListener on the class: nothing would call them");
        }
        if (annotated.isEmpty() && onClass.isEmpty()) {
            withoutListeners.add(targetClass);
            return;
        }
        if (!onClass.isEmpty()) {
            registerClassListeners(bean, beanName, targetClass, onClass, handlers);
        }
        annotated.forEach((method, listeners) -> {
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            int n = 0;
            for (KafkoListener listener : listeners) {
                String defaultId = groupSafe(beanName + "." + method.getName() + (listeners.size() > 1 ? "-" + n : ""));
                register(endpoint(listener, bean, invocable, defaultId));
                n++;
            }
        });
    }

    /**
     * A class-level listener: one endpoint per annotation, whose records go to the {@code @KafkoHandler}
     * methods (ordered by their signatures, so that messages about them are stable).
     */
    private void registerClassListeners(Object bean, String beanName, Class<?> targetClass, Set<KafkoListener> listeners,
                                        Map<Method, KafkoHandler> handlers) {
        String declared = "on " + targetClass.getSimpleName();
        if (handlers.isEmpty()) {
            throw new InvalidKafkoListenerException("@KafkoListener " + declared + " is on the class, which has no"
                    + " @KafkoHandler methods to deliver the records to");
        }
        List<Method> methods = new ArrayList<>(handlers.keySet());
        methods.sort(Comparator.comparing(Method::toGenericString));
        List<Method> defaults = methods.stream().filter(m -> handlers.get(m).isDefault()).toList();
        if (defaults.size() > 1) {
            throw new InvalidKafkoListenerException("@KafkoListener " + declared + " has " + defaults.size()
                    + " @KafkoHandler(isDefault = true) methods " + defaults.stream().map(Method::getName).toList()
                    + "; at most one handler takes the records no other handler takes");
        }
        SendTo classSendTo = AnnotatedElementUtils.findMergedAnnotation(targetClass, SendTo.class);
        int n = 0;
        for (KafkoListener listener : listeners) {
            String defaultId = groupSafe(beanName + (listeners.size() > 1 ? "-" + n : ""));
            register(endpoint(listener, bean, defaultId, declared, true, (where, ctx) -> {
                List<KafkoListenerEndpoint.Handler> resolved = new ArrayList<>();
                for (Method method : methods) {
                    String handlerWhere = where + "." + method.getName();
                    refuseSuspendFunction(method, handlerWhere);
                    SendTo own = AnnotatedElementUtils.findMergedAnnotation(method, SendTo.class);
                    SendTo sendTo = own != null ? own : classSendTo;
                    String replyTopic = sendTo == null ? null : replyTopic(sendTo, handlerWhere, ctx);
                    resolved.add(new KafkoListenerEndpoint.Handler(AopUtils.selectInvocableMethod(method,
                            bean.getClass()), handlers.get(method).isDefault(), replyTopic,
                            sendTo != null && replyTopic == null));
                }
                return resolved;
            }));
            n++;
        }
    }

    /**
     * False for classes that cannot declare {@code @KafkoListener} methods, so that the framework's
     * own beans (most of a Boot context) are not searched method by method: the JDK's and Spring's
     * classes know nothing of kafko. A subclass in an application package is still searched, and
     * finds the listener methods it inherits.
     */
    /**
     * Whether {@code type} has {@code @KafkoListener} methods (the annotation itself, repeated or
     * as a meta-annotation). Any thread.
     */
    public static boolean hasListenerMethods(Class<?> type) {
        return mayHaveListeners(type) && (!listenerMethods(type).isEmpty() || !classListeners(type).isEmpty());
    }

    private static Set<KafkoListener> classListeners(Class<?> targetClass) {
        return AnnotatedElementUtils.findMergedRepeatableAnnotations(targetClass, KafkoListener.class,
                KafkoListeners.class);
    }

    private static Map<Method, KafkoHandler> handlerMethods(Class<?> targetClass) {
        return MethodIntrospector.selectMethods(targetClass, (MethodIntrospector.MetadataLookup<KafkoHandler>)
                method -> AnnotatedElementUtils.findMergedAnnotation(method, KafkoHandler.class));
    }

    private static Map<Method, Set<KafkoListener>> listenerMethods(Class<?> targetClass) {
        return MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<Set<KafkoListener>>) method -> {
                    Set<KafkoListener> found = AnnotatedElementUtils.findMergedRepeatableAnnotations(method,
                            KafkoListener.class, KafkoListeners.class);
                    return found.isEmpty() ? null : found;
                });
    }

    static boolean mayHaveListeners(Class<?> type) {
        return !type.getName().startsWith("org.springframework.") && AnnotationUtils.isCandidateClass(type,
                List.of(KafkoListener.class, KafkoListeners.class, KafkoHandler.class));
    }

    private synchronized void register(KafkoListenerEndpoint endpoint) {
        String other = declaredAt.get(endpoint.id());
        boolean taken = singletonsReady ? registry().getListenerContainer(endpoint.id()) != null
                : pending.stream().anyMatch(e -> e.id().equals(endpoint.id()));
        if (other != null && taken) {
            throw new InvalidKafkoListenerException("@KafkoListener '" + endpoint.id() + "' "
                    + declaration(endpoint) + ": the listener " + other + " has that id too; listener ids must be"
                    + " unique");
        }
        declaredAt.put(endpoint.id(), declaration(endpoint));
        if (singletonsReady) {
            registry().registerListenerContainer(createContainer(endpoint), true);
        } else {
            pending.add(endpoint);
        }
    }

    private static String declaration(KafkoListenerEndpoint endpoint) {
        return "on " + endpoint.method().getDeclaringClass().getName() + "." + endpoint.method().getName();
    }

    @Override
    public synchronized void afterSingletonsInstantiated() {
        singletonsReady = true;
        KafkoListenerEndpointRegistry registry = registry();
        for (KafkoListenerEndpoint endpoint : pending) {
            registry.registerListenerContainer(createContainer(endpoint), false);
        }
        pending.clear();
    }

    private KafkoListenerEndpointRegistry registry() {
        return requireBeanFactory().getBean(KafkoListenerEndpointRegistry.BEAN_NAME, KafkoListenerEndpointRegistry.class);
    }

    private MessageListenerContainer createContainer(KafkoListenerEndpoint endpoint) {
        ConfigurableListableBeanFactory factory = requireBeanFactory();
        KafkoListenerContainerFactory containers = containerFactory(factory, endpoint);
        // the registry's containers run on what the factory was built with (kafko itself): destroying
        // those beans destroys the registry first, which stops the containers, also when the context
        // fails before its lifecycle ever stops them
        for (String name : factory.getBeanNamesForType(KafkoListenerContainerFactory.class, false, false)) {
            factory.registerDependentBean(name, KafkoListenerEndpointRegistry.BEAN_NAME);
        }
        MessageHandlerMethodFactory methods = factory.containsBean(HANDLER_METHOD_FACTORY_BEAN_NAME)
                ? factory.getBean(HANDLER_METHOD_FACTORY_BEAN_NAME, MessageHandlerMethodFactory.class)
                : containers.defaultHandlerMethodFactory();
        try {
            return containers.createListenerContainer(endpoint, methods);
        } catch (InvalidKafkoListenerException e) {
            throw e;
        } catch (IllegalStateException | IllegalArgumentException e) {
            // the factory's checks of the method (an Acknowledgment outside the manual ack modes, a batch
            // without a List payload, ...) name the listener: reported by the same failure analysis
            throw new InvalidKafkoListenerException(e.getMessage(), e);
        }
    }

    /**
     * The factory the endpoint names, else the one named {@value #DEFAULT_CONTAINER_FACTORY_BEAN_NAME}, else
     * the only or primary one.
     */
    private static KafkoListenerContainerFactory containerFactory(ConfigurableListableBeanFactory factory,
            KafkoListenerEndpoint endpoint) {
        String name = endpoint.containerFactory();
        if (name == null && factory.containsBean(DEFAULT_CONTAINER_FACTORY_BEAN_NAME)) {
            name = DEFAULT_CONTAINER_FACTORY_BEAN_NAME;
        }
        if (name == null) {
            return factory.getBean(KafkoListenerContainerFactory.class);
        }
        return bean(factory, name, KafkoListenerContainerFactory.class, "containerFactory", "the factories are",
                "@KafkoListener '" + endpoint.id() + "' on " + endpoint.method().getDeclaringClass().getSimpleName()
                        + "." + endpoint.method().getName());
    }

    /**
     * The bean of {@code type} that an attribute names.
     *
     * @param others how the message introduces the names of the beans of that type
     * @param listener the listener, as the message names it
     * @throws InvalidKafkoListenerException when there is no such bean, naming the listener, the attribute
     *     and the beans there are
     */
    private static <T> T bean(ConfigurableListableBeanFactory factory, String name, Class<T> type, String attribute,
                              String others, String listener) {
        if (!factory.containsBean(name) || !factory.isTypeMatch(name, type)) {
            throw new InvalidKafkoListenerException(listener + ": " + attribute + " '" + name + "' is no "
                    + type.getSimpleName() + " bean; " + others + " " + List.of(factory.getBeanNamesForType(type)));
        }
        return factory.getBean(name, type);
    }

    /**
     * What an attribute that names a bean resolves to: the bean of that name or, as in spring-kafka, the
     * object a SpEL expression returns when it is one of {@code type}; {@code null} for an empty value.
     */
    private <T> @Nullable T resolveBean(String value, Class<T> type, String attribute, String where,
                                        BeanExpressionContext ctx) {
        if (!StringUtils.hasText(value)) {
            return null;
        }
        Object resolved = resolve(value, attribute, where, ctx);
        if (type.isInstance(resolved)) {
            return type.cast(resolved);
        }
        if (resolved != null && !(resolved instanceof String)) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + attribute + " '"
                    + value + "' resolved to a " + resolved.getClass().getName() + ", neither a " + type.getSimpleName()
                    + " nor a bean name");
        }
        String name = resolved == null ? "" : ((String) resolved).strip();
        return name.isEmpty() ? null : bean(requireBeanFactory(), name, type, attribute, "the "
                + type.getSimpleName() + " beans are", "@KafkoListener " + where);
    }

    private KafkoListenerEndpoint endpoint(KafkoListener listener, Object bean, Method method, String defaultId) {
        String declared = "on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
        return endpoint(listener, bean, defaultId, declared, false, (where, ctx) -> {
            refuseSuspendFunction(method, where);
            SendTo sendTo = AnnotatedElementUtils.findMergedAnnotation(method, SendTo.class);
            String replyTopic = sendTo == null ? null : replyTopic(sendTo, where, ctx);
            return List.of(new KafkoListenerEndpoint.Handler(method, false, replyTopic,
                    sendTo != null && replyTopic == null));
        });
    }

    /**
     * The endpoint of a listener annotation.
     *
     * @param declared where the annotation is, as failures name it after the listener's id
     * @param classLevel whether it is on a class: the handlers are then the endpoint's, else the one handler
     *     stands for the annotated method
     * @param handlers the handlers, given how failures name the listener and the SpEL context
     */
    private KafkoListenerEndpoint endpoint(KafkoListener listener, Object bean, String defaultId, String declared,
            boolean classLevel, BiFunction<String, BeanExpressionContext, List<KafkoListenerEndpoint.Handler>> handlers) {
        // #{__listener} is the bean itself in SpEL, as in spring-kafka
        BeanExpressionContext ctx = new BeanExpressionContext(requireBeanFactory(), new ListenerScope(bean));
        String id = resolveString(listener.id(), "id", declared, ctx);
        if (id == null) {
            id = defaultId;
        }
        // how every later failure names the listener: its id, then its method
        String where = "'" + id + "' " + declared;
        List<String> topics = resolveTopics(listener.topics(), where, ctx);
        Pattern topicPattern = resolvePattern(listener.topicPattern(), where, ctx);
        List<TopicPartitionOffset> assigned = ListenerTopicPartitions.resolve(listener.topicPartitions(), where,
                (value, attribute) -> resolve(value, attribute, where, ctx));
        if (topics.isEmpty() && topicPattern == null && assigned.isEmpty()) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " names no topic");
        }
        if (!topics.isEmpty() && topicPattern != null) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " names topics " + topics
                    + " and a topicPattern '" + topicPattern + "': give one or the other");
        }
        if (!assigned.isEmpty() && (!topics.isEmpty() || topicPattern != null)) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " names topicPartitions " + assigned
                    + " and " + (topicPattern != null ? "a topicPattern '" + topicPattern + "'" : "topics " + topics)
                    + ": give one of topics, topicPattern and topicPartitions");
        }
        List<KafkoListenerEndpoint.Handler> resolved = handlers.apply(where, ctx);
        KafkoListenerEndpoint.Handler first = resolved.get(0);
        String group = resolveString(listener.groupId(), "groupId", where, ctx);
        // names are checked here, before anything starts (the web server, the other listeners)
        for (String topic : topics) {
            checkName("topic", topic, where);
        }
        for (TopicPartitionOffset tpo : assigned) {
            checkName("topic", tpo.topic(), where);
        }
        checkName("group", group == null ? id : group, where);
        String concurrency = resolveString(listener.concurrency(), "concurrency", where, ctx);
        String autoStartup = resolveString(listener.autoStartup(), "autoStartup", where, ctx);
        String batch = resolveString(listener.batch(), "batch", where, ctx);
        String ackMode = resolveString(listener.ackMode(), "ackMode", where, ctx);
        String containerFactory = resolveString(listener.containerFactory(), "containerFactory", where, ctx);
        return new KafkoListenerEndpoint(id, topics, group == null ? id : group,
                concurrency == null ? null : parseInt(concurrency, where),
                autoStartup == null ? null : parseBoolean(autoStartup, "autoStartup", where),
                batch != null && parseBoolean(batch, "batch", where), ackMode == null ? null : parseAckMode(ackMode, where),
                bean, first.method(), first.replyTopic(), containerFactory, first.replyToHeader(),
                resolveBean(listener.filter(), RecordFilterStrategy.class, "filter", where, ctx),
                resolveBean(listener.errorHandler(), KafkoListenerErrorHandler.class, "errorHandler", where, ctx),
                classLevel ? resolved : List.of(), topicPattern, assigned);
    }

    /** The topic pattern, compiled; {@code null} when none is given (or it resolves to nothing). */
    private @Nullable Pattern resolvePattern(String raw, String where, BeanExpressionContext ctx) {
        if (!StringUtils.hasText(raw)) {
            return null;
        }
        Object resolved = resolve(raw, "topicPattern", where, ctx);
        if (resolved instanceof Pattern pattern) {
            return pattern;
        }
        if (resolved != null && !(resolved instanceof String)) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": topicPattern '" + raw
                    + "' resolved to a " + resolved.getClass().getName() + ", not text or a Pattern");
        }
        String regex = (String) resolved;
        if (!StringUtils.hasText(regex)) {
            return null;
        }
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": topicPattern '" + regex
                    + "' is not a regular expression: " + e.getDescription() + " near index " + e.getIndex(), e);
        }
    }

    /**
     * The topic {@code @SendTo} names, checked against the naming rule; {@code null} when it names none
     * (no value, or one that resolves to nothing): then, as in spring-kafka, each reply goes to the topic
     * in its request's {@code KafkoHeaders.REPLY_TOPIC} header.
     */
    private @Nullable String replyTopic(SendTo sendTo, String where, BeanExpressionContext ctx) {
        if (sendTo.value().length > 1) {
            throw new InvalidKafkoListenerException("@SendTo of @KafkoListener " + where + " must name one topic at most");
        }
        String reply = sendTo.value().length == 0 ? null : resolveString(sendTo.value()[0], "@SendTo", where, ctx);
        if (reply != null) {
            checkName("topic", reply, where);
        }
        return reply;
    }

    /**
     * A Kotlin {@code suspend fun} compiles to a method whose last parameter is a {@code Continuation}:
     * the container would take that for the payload, fail every record as a conversion error and commit
     * past it without the function ever running. It is refused before anything starts instead.
     */
    private static void refuseSuspendFunction(Method method, String where) {
        Class<?>[] types = method.getParameterTypes();
        if (types.length > 0 && types[types.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " is a Kotlin suspend"
                    + " function, which kafko cannot invoke: make it a plain function, or return the work as a"
                    + " Mono (kotlinx-coroutines-reactor's mono { ... }) or a CompletableFuture, which are awaited"
                    + " before the record is committed");
        }
    }

    private static void checkName(String kind, String name, String where) {
        try {
            Kafko.checkName(kind, name);
        } catch (InvalidNameException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + e.getMessage(), e);
        }
    }

    private List<String> resolveTopics(String[] raw, String where, BeanExpressionContext ctx) {
        List<String> topics = new ArrayList<>();
        for (String value : raw) {
            Object resolved = resolve(value, "topics", where, ctx);
            if (resolved instanceof String[] array) {
                topics.addAll(List.of(array));
            } else if (resolved instanceof Collection<?> collection) {
                collection.forEach(t -> topics.add(String.valueOf(t)));
            } else if (resolved != null && StringUtils.hasText(resolved.toString())) {
                topics.add(resolved.toString());
            } else {
                throw new InvalidKafkoListenerException("@KafkoListener " + where + ": topic '" + value
                        + "' resolved to nothing");
            }
        }
        return topics;
    }

    private @Nullable String resolveString(String value, String attribute, String where, BeanExpressionContext ctx) {
        if (!StringUtils.hasText(value)) {
            return null;
        }
        Object resolved = resolve(value, attribute, where, ctx);
        if (resolved == null) {
            return null;
        }
        if (!(resolved instanceof String) && !(resolved instanceof Number) && !(resolved instanceof Boolean)) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + attribute + " '" + value
                    + "' resolved to a " + resolved.getClass().getName() + ", not text");
        }
        String text = resolved.toString();
        return StringUtils.hasText(text) ? text : null;
    }

    /** Placeholders, then SpEL; a failure of either names the listener's method and the attribute. */
    private @Nullable Object resolve(String value, String attribute, String where, BeanExpressionContext ctx) {
        ConfigurableListableBeanFactory factory = requireBeanFactory();
        try {
            String embedded = factory.resolveEmbeddedValue(value);
            BeanExpressionResolver resolver = factory.getBeanExpressionResolver();
            if (resolver == null || embedded == null) {
                return embedded;
            }
            return resolver.evaluate(embedded, ctx);
        } catch (RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + attribute + " '" + value
                    + "' could not be resolved: " + cause.getMessage(), e);
        }
    }

    /** The scope of a listener's SpEL: {@code __listener} is the bean that declares it. */
    private record ListenerScope(Object bean) implements Scope {

        static final String LISTENER = "__listener";

        @Override
        public Object get(String name, ObjectFactory<?> objectFactory) {
            return LISTENER.equals(name) ? bean : objectFactory.getObject();
        }

        @Override
        public @Nullable Object remove(String name) {
            return null;
        }

        @Override
        public void registerDestructionCallback(String name, Runnable callback) {
        }

        @Override
        public @Nullable Object resolveContextualObject(String key) {
            return LISTENER.equals(key) ? bean : null;
        }

        @Override
        public @Nullable String getConversationId() {
            return null;
        }
    }

    /**
     * A default id that is also a valid group name (the group defaults to the id): a nested class's
     * bean name holds {@code $}, which the naming rule refuses, so every character outside
     * {@code [A-Za-z0-9._-]} becomes {@code .}.
     */
    static String groupSafe(String id) {
        StringBuilder sb = new StringBuilder(id.length());
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            sb.append(ok ? c : '.');
        }
        return sb.toString();
    }

    private static boolean parseBoolean(String value, String attribute, String where) {
        String v = value.trim();
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + attribute + " '" + value
                + "' is neither true nor false");
    }

    private static int parseInt(String value, String where) {
        int concurrency;
        try {
            concurrency = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": concurrency '" + value
                    + "' is not a number", e);
        }
        if (concurrency < 1) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": concurrency '" + value
                    + "' must be at least 1");
        }
        return concurrency;
    }

    private static AckMode parseAckMode(String value, String where) {
        try {
            return AckMode.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": ackMode '" + value
                    + "' is not one of " + Arrays.stream(AckMode.values())
                    .map(m -> m.name().toLowerCase(Locale.ROOT).replace('_', '-')).collect(Collectors.joining(", ")),
                    e);
        }
    }

    private ConfigurableListableBeanFactory requireBeanFactory() {
        if (beanFactory == null) {
            throw new IllegalStateException("@KafkoListener processing needs a ConfigurableListableBeanFactory");
        }
        return beanFactory;
    }
}
