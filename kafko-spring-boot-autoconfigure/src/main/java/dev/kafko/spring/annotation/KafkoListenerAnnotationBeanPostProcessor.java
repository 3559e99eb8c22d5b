package dev.kafko.spring.annotation;

import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.MessageListenerContainer;
import dev.kafko.spring.listener.RetryTopics;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.scope.ScopedProxyFactoryBean;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * Finds {@link KafkoListener} methods (repeated and meta-annotated ones too), has their attributes read
 * into {@link KafkoListenerEndpoint}s ({@link ListenerEndpointReader}) and, once every singleton exists,
 * hands them to the
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

    private static final Logger LOG = LoggerFactory.getLogger(KafkoListenerAnnotationBeanPostProcessor.class);

    private final Set<Class<?>> withoutListeners = ConcurrentHashMap.newKeySet();
    /** The endpoints read before every singleton existed, with the names of their beans. */
    private final List<Pending> pending = new ArrayList<>();
    /** Where the listener of each id registered here was declared, for the error that names two of one id. */
    private final Map<String, String> declaredAt = new HashMap<>();
    private @Nullable ConfigurableListableBeanFactory beanFactory;
    /** Made from the bean factory on first use; on the thread that creates beans. */
    private @Nullable ListenerEndpointReader endpoints;
    private volatile boolean singletonsReady;
    /** The {@link RetryTopicConfiguration} beans and the retry topics planned from them; made on first use. */
    private @Nullable RetryConfigurations retryConfigurations;

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
        // FactoryBean first: a cheaper test for every other bean than loading ScopedProxyFactoryBean
        if (bean instanceof FactoryBean<?> && bean instanceof ScopedProxyFactoryBean scoped) {
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
        if (withoutListeners.contains(targetClass) || !ListenerSearch.mayHaveListeners(targetClass)) {
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
        for (Map.Entry<Method, Set<KafkoListener>> entry : annotated.entrySet()) {
            Method method = entry.getKey();
            Set<KafkoListener> listeners = entry.getValue();
            Method invocable;
            try {
                invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            } catch (IllegalStateException e) {
                // a JDK proxy whose interfaces lack the method (or have it only with a generic type's erasure)
                throw new InvalidKafkoListenerException("@KafkoListener on " + targetClass.getSimpleName() + "."
                        + method.getName() + " of bean '" + beanName + "': " + e.getMessage(), e);
            }
            int n = 0;
            RetryableTopic retryable = AnnotatedElementUtils.findMergedAnnotation(method, RetryableTopic.class);
            for (KafkoListener listener : listeners) {
                String defaultId = groupSafe(beanName + "." + method.getName() + (listeners.size() > 1 ? "-" + n : ""));
                KafkoListenerEndpoint endpoint = endpoints().forMethod(listener, bean, method, invocable, defaultId);
                if (retryable != null) {
                    registerAll(RetryableTopicEndpoints.of(endpoint, retryable, targetClass, requireBeanFactory()),
                            beanName);
                } else {
                    registerConfigurable(endpoint, beanName, targetClass);
                }
                n++;
            }
        }
    }

    /**
     * Registers a listener that a {@link RetryTopicConfiguration} bean may give retry topics. Before every singleton
     * exists, which bean applies is decided once they do ({@link #afterSingletonsInstantiated}): a configuration bean,
     * or its dead-letter handler's bean, may not be made yet, nor be made while the listener's bean is (a
     * {@code @Bean} method on the listener's own class, a handler bean that needs the listener's); read now, such a
     * bean would be missing for this listener, or the start would fail on a cycle.
     */
    private void registerConfigurable(KafkoListenerEndpoint endpoint, String beanName, Class<?> targetClass) {
        if (!singletonsReady) {
            register(endpoint, beanName, null, targetClass);
            return;
        }
        KafkoListenerEndpoint kind = withFactoryBatch(endpoint);
        List<RetryableTopicEndpoints.Planned> parts = retryConfigurations().partsFor(kind, beanName, targetClass);
        if (parts == null) {
            register(kind, beanName, null);
        } else {
            registerAll(parts, beanName);
        }
    }

    /** Registers a retryable listener's endpoints, having checked every id first: none starts when one is taken. */
    private void registerAll(List<RetryableTopicEndpoints.Planned> parts, String beanName) {
        for (RetryableTopicEndpoints.Planned planned : parts) {
            refuseTakenId(planned.endpoint());
        }
        for (RetryableTopicEndpoints.Planned planned : parts) {
            register(planned.endpoint(), beanName, planned);
        }
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
            KafkoListenerEndpoint endpoint = endpoints().forClass(listener, bean, defaultId, declared, methods,
                    handlers, classSendTo);
            registerConfigurable(endpoint, beanName, targetClass);
            n++;
        }
    }

    /**
     * Whether {@code type} has {@code @KafkoListener} methods (the annotation itself, repeated or
     * as a meta-annotation). Any thread.
     */
    public static boolean hasListenerMethods(Class<?> type) {
        return ListenerSearch.mayHaveListeners(type) && (!listenerMethods(type).isEmpty() || !classListeners(type).isEmpty());
    }

    private static Set<KafkoListener> classListeners(Class<?> targetClass) {
        return AnnotatedElementUtils.findMergedRepeatableAnnotations(targetClass, KafkoListener.class,
                KafkoListeners.class);
    }

    private static Map<Method, KafkoHandler> handlerMethods(Class<?> targetClass) {
        return MethodIntrospector.selectMethods(targetClass, HandlerLookup.INSTANCE);
    }

    private static Map<Method, Set<KafkoListener>> listenerMethods(Class<?> targetClass) {
        return MethodIntrospector.selectMethods(targetClass, ListenerLookup.INSTANCE);
    }

    /** A method's {@code @KafkoHandler}, or null. */
    private static final class HandlerLookup implements MethodIntrospector.MetadataLookup<KafkoHandler> {

        static final HandlerLookup INSTANCE = new HandlerLookup();

        @Override
        public @Nullable KafkoHandler inspect(Method method) {
            return AnnotatedElementUtils.findMergedAnnotation(method, KafkoHandler.class);
        }
    }

    /** A method's {@code @KafkoListener}s (repeated or meta-annotated ones too), or null when it has none. */
    private static final class ListenerLookup implements MethodIntrospector.MetadataLookup<Set<KafkoListener>> {

        static final ListenerLookup INSTANCE = new ListenerLookup();

        @Override
        public @Nullable Set<KafkoListener> inspect(Method method) {
            Set<KafkoListener> found = AnnotatedElementUtils.findMergedRepeatableAnnotations(method,
                    KafkoListener.class, KafkoListeners.class);
            return found.isEmpty() ? null : found;
        }
    }

    private void register(KafkoListenerEndpoint endpoint, String beanName,
                          RetryableTopicEndpoints.@Nullable Planned retry) {
        register(endpoint, beanName, retry, null);
    }

    /** {@code configurable}: the listener's class, when a {@link RetryTopicConfiguration} is yet to be looked for. */
    private synchronized void register(KafkoListenerEndpoint endpoint, String beanName,
                                       RetryableTopicEndpoints.@Nullable Planned retry,
                                       @Nullable Class<?> configurable) {
        refuseTakenId(endpoint);
        declaredAt.put(endpoint.id(), declaration(endpoint));
        if (singletonsReady) {
            // before the container is made: a refused one would have been registered for nothing
            refuseTakenGroupBean(endpoint);
            MessageListenerContainer container = createContainer(endpoint, retry);
            // in its group before it starts, so that a group.stop() from then on stops it too; started by the
            // registry, as its registration would be while it runs: not once unregistered meanwhile (by another
            // thread), and when the join or the start fails, this very container is unregistered again
            register(endpoint, container, true);
        } else {
            pending.add(new Pending(endpoint, beanName, retry, configurable));
        }
    }

    /** Fails naming both listeners when a listener of the endpoint's id is registered or waits to be. */
    private synchronized void refuseTakenId(KafkoListenerEndpoint endpoint) {
        String other = declaredAt.get(endpoint.id());
        boolean taken = singletonsReady ? registry().getListenerContainer(endpoint.id()) != null
                : isPending(endpoint.id());
        if (other != null && taken) {
            throw new InvalidKafkoListenerException("@KafkoListener '" + endpoint.id() + "' "
                    + declaration(endpoint) + ": the listener " + other + " has that id too; listener ids must be"
                    + " unique");
        }
    }

    /** Whether an endpoint of that id waits for the singletons. */
    private boolean isPending(String id) {
        for (Pending p : pending) {
            if (p.endpoint().id().equals(id)) {
                return true;
            }
        }
        return false;
    }

    private record Pending(KafkoListenerEndpoint endpoint, String beanName,
                           RetryableTopicEndpoints.@Nullable Planned retry, @Nullable Class<?> configurable) {
    }

    private static String declaration(KafkoListenerEndpoint endpoint) {
        return "on " + endpoint.method().getDeclaringClass().getName() + "." + endpoint.method().getName();
    }

    @Override
    public synchronized void afterSingletonsInstantiated() {
        // the retry topics RetryTopicConfiguration beans give, now that every one of them can be had: each part's id
        // checked as it is planned, the parts in the place of their listener's endpoint
        List<Pending> ordered = new ArrayList<>();
        for (Pending p : List.copyOf(pending)) {
            if (p.configurable() == null) {
                ordered.add(p);
                continue;
            }
            KafkoListenerEndpoint kind = withFactoryBatch(p.endpoint());
            List<RetryableTopicEndpoints.Planned> parts = retryConfigurations().partsFor(kind, p.beanName(),
                    p.configurable());
            if (parts == null) {
                ordered.add(new Pending(kind, p.beanName(), null, null));
                continue;
            }
            for (RetryableTopicEndpoints.Planned planned : parts) {
                if (planned.part() != RetryableTopicEndpoints.Part.MAIN) {
                    refuseTakenId(planned.endpoint());
                }
            }
            for (RetryableTopicEndpoints.Planned planned : parts) {
                Pending part = new Pending(planned.endpoint(), p.beanName(), planned, null);
                if (planned.part() != RetryableTopicEndpoints.Part.MAIN) {
                    declaredAt.put(planned.endpoint().id(), declaration(planned.endpoint()));
                    pending.add(part);
                }
                ordered.add(part);
            }
        }
        pending.clear();
        pending.addAll(ordered);
        singletonsReady = true;
        KafkoListenerEndpointRegistry registry = registry();
        for (Pending p : pending) {
            MessageListenerContainer container = createContainer(exposed(p.endpoint(), p.beanName()), p.retry());
            register(p.endpoint(), container, false);
        }
        pending.clear();
    }

    /** The endpoint as its container factory's {@code setBatchListener} makes it ({@link BatchByFactory}). */
    private KafkoListenerEndpoint withFactoryBatch(KafkoListenerEndpoint endpoint) {
        return BatchByFactory.apply(endpoint, endpoints().batchUnset(endpoint.id()),
                containerFactory(requireBeanFactory(), endpoint));
    }

    /**
     * Registers the endpoint's container, in its {@code containerGroup} if it names one ({@link ContainerGroupBeans},
     * a class that stays unloaded at start-up otherwise) before the registry starts it.
     */
    private void register(KafkoListenerEndpoint endpoint, MessageListenerContainer container, boolean startIfRunning) {
        if (endpoint.containerGroup() == null) {
            registry().registerListenerContainer(container, startIfRunning);
        } else {
            registry().registerListenerContainer(container, startIfRunning, registered -> ContainerGroupBeans.join(
                    requireBeanFactory(), registry(), endpoint, registered, declaration(endpoint)));
        }
    }

    private void refuseTakenGroupBean(KafkoListenerEndpoint endpoint) {
        if (endpoint.containerGroup() != null) {
            ContainerGroupBeans.refuseTakenName(requireBeanFactory(), registry(), endpoint, declaration(endpoint));
        }
    }

    /**
     * The endpoint on the object the context exposes under the bean's name. This processor sees a bean as the
     * post-processors ordered before it left it: one ordered after it (Boot's method validation, registered by
     * an auto-configuration that comes after kafko's, or any later {@code AbstractAdvisingBeanPostProcessor})
     * may still wrap it in a proxy, and the listener would then call the bean around that proxy's advice (a
     * {@code @Validated} listener's constraints never checked), without a word. spring-kafka does the same;
     * Spring's {@code @EventListener} calls the bean the context holds, as this does once every singleton
     * exists.
     */
    private KafkoListenerEndpoint exposed(KafkoListenerEndpoint endpoint, String beanName) {
        ConfigurableListableBeanFactory factory = requireBeanFactory();
        Object seen = endpoint.bean();
        if (!factory.containsSingleton(beanName)) {
            return endpoint;
        }
        Object exposed = factory.getSingleton(beanName);
        if (exposed == seen) {
            return beneathEarlyClassProxy(endpoint, beanName);
        }
        if (exposed == null || exposed instanceof FactoryBean<?>
                || AopProxyUtils.ultimateTargetClass(exposed) != AopProxyUtils.ultimateTargetClass(seen)) {
            return endpoint;
        }
        Method unroutable = AopUtils.isCglibProxy(exposed) ? unroutable(endpoint) : null;
        if (unroutable != null) {
            // a class proxy cannot override a final method nor pass a private one on: called on the proxy, the
            // method would run on the proxy itself, whose fields were never set. The bean is called as before.
            warnUnroutable(endpoint, beanName, "exposed as a class proxy made by a post-processor that runs after"
                    + " kafko's", unroutable);
            return endpoint;
        }
        Method method = invocable(endpoint, endpoint.method(), exposed, beanName);
        List<KafkoListenerEndpoint.Handler> handlers = endpoint.handlers().stream()
                .map(h -> new KafkoListenerEndpoint.Handler(invocable(endpoint, h.method(), exposed, beanName),
                        h.isDefault(), h.replyTopic(), h.replyToHeader()))
                .toList();
        return onBean(endpoint, exposed, method, handlers);
    }

    /**
     * The endpoint on the bean beneath the class proxy it was registered on (one an auto-proxy creator made before
     * this processor saw the bean: {@code @Transactional}, an aspect) when that proxy cannot pass its method on: a
     * final method (every Kotlin function not declared {@code open}) would run on the proxy itself, whose fields were
     * never set, without the advice either way.
     */
    private static KafkoListenerEndpoint beneathEarlyClassProxy(KafkoListenerEndpoint endpoint, String beanName) {
        Object proxy = endpoint.bean();
        Method unroutable = AopUtils.isCglibProxy(proxy) ? unroutable(endpoint) : null;
        Object target = unroutable == null ? null : AopProxyUtils.getSingletonTarget(proxy);
        if (target == null) {
            return endpoint;
        }
        warnUnroutable(endpoint, beanName, "a class proxy", unroutable);
        return onBean(endpoint, target, endpoint.method(), endpoint.handlers());
    }

    private static void warnUnroutable(KafkoListenerEndpoint endpoint, String beanName, String proxy,
                                       Method unroutable) {
        LOG.warn("@KafkoListener '{}' {}: bean '{}' is {}, which cannot pass a call of the {} method {} on to the"
                + " bean: the listener calls the bean beneath the proxy, without its advice; make the method neither"
                + " final nor private (open, in Kotlin)", endpoint.id(), declaration(endpoint), beanName, proxy,
                Modifier.isFinal(unroutable.getModifiers()) ? "final" : "private", unroutable.getName());
    }

    private static KafkoListenerEndpoint onBean(KafkoListenerEndpoint endpoint, Object bean, Method method,
                                                List<KafkoListenerEndpoint.Handler> handlers) {
        return new KafkoListenerEndpoint(endpoint.id(), endpoint.topics(), endpoint.groupId(), endpoint.concurrency(),
                endpoint.autoStartup(), endpoint.batch(), endpoint.ackMode(), bean, method, endpoint.replyTopic(),
                endpoint.containerFactory(), endpoint.replyToHeader(), endpoint.recordFilterStrategy(),
                endpoint.errorHandler(), handlers, endpoint.topicPattern(), endpoint.topicPartitions(),
                endpoint.maxPollRecords(), endpoint.offsetReset(), endpoint.clientIdPrefix(), endpoint.containerGroup(),
                endpoint.splitIterables(), endpoint.info(), endpoint.containerPostProcessor(),
                endpoint.contentTypeConverter());
    }

    /** The endpoint's first method a class proxy cannot pass on to its bean (final or private), or null. */
    private static @Nullable Method unroutable(KafkoListenerEndpoint endpoint) {
        List<Method> methods = new ArrayList<>();
        methods.add(endpoint.method());
        endpoint.handlers().forEach(h -> methods.add(h.method()));
        for (Method m : methods) {
            int modifiers = m.getModifiers();
            if (!Modifier.isStatic(modifiers) && (Modifier.isFinal(modifiers) || Modifier.isPrivate(modifiers))) {
                return m;
            }
        }
        return null;
    }

    private static Method invocable(KafkoListenerEndpoint endpoint, Method method, Object exposed, String beanName) {
        // named by the method checked: a class-level listener's endpoint method is only its first handler
        String where = "'" + endpoint.id() + "' on " + method.getDeclaringClass().getName() + "." + method.getName();
        try {
            Method invocable = AopUtils.selectInvocableMethod(method, exposed.getClass());
            ListenerMethodChecks.refuseParameterAnnotationsTheProxyHides(method, invocable, where);
            return invocable;
        } catch (InvalidKafkoListenerException e) {
            throw e;
        } catch (IllegalStateException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": bean '" + beanName
                    + "' is exposed as a JDK proxy by a post-processor that runs after kafko's: " + e.getMessage(), e);
        }
    }

    private KafkoListenerEndpointRegistry registry() {
        return requireBeanFactory().getBean(KafkoListenerEndpointRegistry.BEAN_NAME, KafkoListenerEndpointRegistry.class);
    }

    private MessageListenerContainer createContainer(KafkoListenerEndpoint endpoint,
                                                     RetryableTopicEndpoints.@Nullable Planned retry) {
        ConfigurableListableBeanFactory factory = requireBeanFactory();
        KafkoListenerContainerFactory containers = containerFactory(factory, endpoint);
        endpoint = BatchByFactory.apply(endpoint, endpoints().batchUnset(endpoint.id()), containers);
        if (retry != null && retry.part() == RetryableTopicEndpoints.Part.MAIN && endpoint.batch()) {
            throw new InvalidKafkoListenerException("@KafkoListener '" + endpoint.id() + "' "
                    + declaration(endpoint) + " is made a batch listener by its container factory's"
                    + " setBatchListener(true): retry topics take one record at a time; give it batch = \"false\"");
        }
        if (retry != null) {
            if (retry.part() == RetryableTopicEndpoints.Part.MAIN) {
                for (RetryTopics topics : retry.plans()) {
                    retryConfigurations().warnIfSharedWithAnotherGroup(endpoint, topics);
                }
            }
            containers = RetryableTopicContainers.factoryFor(containers, retry);
        } else {
            RetryableTopicContainers.warnOfRetryTopicsLeftBehind(containers.getBackend(), endpoint);
        }
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
        String listener = "@KafkoListener '" + endpoint.id() + "' on "
                + endpoint.method().getDeclaringClass().getSimpleName() + "." + endpoint.method().getName();
        if (name == null) {
            // as getBean(type) below, which finds a factory of a parent context too
            if (BeanFactoryUtils.beanNamesForTypeIncludingAncestors(factory, KafkoListenerContainerFactory.class)
                    .length == 0) {
                throw new InvalidKafkoListenerException(listener + ": there is no KafkoListenerContainerFactory bean"
                        + " to make its container. Boot's auto-configuration defines one unless kafko.enabled=false;"
                        + " without it, define one beside @EnableKafko");
            }
            return factory.getBean(KafkoListenerContainerFactory.class);
        }
        return ListenerEndpointReader.bean(factory, name, KafkoListenerContainerFactory.class, "containerFactory",
                "the factories are", listener);
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

    private synchronized RetryConfigurations retryConfigurations() {
        RetryConfigurations configs = retryConfigurations;
        if (configs == null) {
            configs = new RetryConfigurations(requireBeanFactory());
            retryConfigurations = configs;
        }
        return configs;
    }

    private ListenerEndpointReader endpoints() {
        ListenerEndpointReader reader = endpoints;
        if (reader == null) {
            reader = new ListenerEndpointReader(requireBeanFactory());
            endpoints = reader;
        }
        return reader;
    }

    private ConfigurableListableBeanFactory requireBeanFactory() {
        if (beanFactory == null) {
            throw new IllegalStateException("@KafkoListener processing needs a ConfigurableListableBeanFactory");
        }
        return beanFactory;
    }
}
