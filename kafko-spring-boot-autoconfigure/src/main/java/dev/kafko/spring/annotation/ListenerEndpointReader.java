package dev.kafko.spring.annotation;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ContainerPostProcessor;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.listener.adapter.RecordFilterStrategy;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.TopicPartitionOffset;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
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
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectFactory;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.Scope;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.util.StringUtils;

/**
 * Reads a {@link KafkoListener} into its {@link KafkoListenerEndpoint}: resolves each attribute ({@code ${...}}
 * placeholders, then {@code #{...}} SpEL, with {@code #{__listener}} the declaring bean), checks it (names,
 * numbers, the ack mode, the beans it names) and fails with an {@link InvalidKafkoListenerException} that names
 * the listener, its method and the attribute. On the thread that creates beans.
 */
final class ListenerEndpointReader {

    /** The group of the listeners with {@code idIsGroup = false} and no {@code groupId}. */
    static final String GROUP_ID_PROPERTY = "kafko.listener.group-id";

    /** The kind of the listeners without a {@code batch} attribute: {@code single} or {@code batch}. */
    static final String TYPE_PROPERTY = "kafko.listener.type";

    private final ConfigurableListableBeanFactory beanFactory;
    /** The ids of the listeners read without a {@code batch} attribute: their container factory's default applies. */
    private final Set<String> batchUnset = ConcurrentHashMap.newKeySet();

    ListenerEndpointReader(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /**
     * The bean of {@code type} that an attribute names.
     *
     * @param others how the message introduces the names of the beans of that type
     * @param listener the listener, as the message names it
     * @throws InvalidKafkoListenerException when there is no such bean, naming the listener, the attribute
     *     and the beans there are
     */
    static <T> T bean(ConfigurableListableBeanFactory factory, String name, Class<T> type, String attribute,
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
        return name.isEmpty() ? null : bean(beanFactory, name, type, attribute, "the "
                + type.getSimpleName() + " beans are", "@KafkoListener " + where);
    }

    /**
     * The endpoint of a listener method.
     *
     * @param method the annotated method, as its class declares it
     * @param invocable that method as the bean is called: the same, or, for a JDK proxy, its interface's
     */
    KafkoListenerEndpoint forMethod(KafkoListener listener, Object bean, Method method, Method invocable,
                                    String defaultId) {
        String declared = "on " + method.getDeclaringClass().getSimpleName() + "." + method.getName();
        return endpoint(listener, bean, defaultId, declared, false, new MethodHandler(method, invocable));
    }

    /** The one handler of a listener method, checked. */
    private final class MethodHandler
            implements BiFunction<String, BeanExpressionContext, List<KafkoListenerEndpoint.Handler>> {

        private final Method method;
        private final Method invocable;

        MethodHandler(Method method, Method invocable) {
            this.method = method;
            this.invocable = invocable;
        }

        @Override
        public List<KafkoListenerEndpoint.Handler> apply(String where, BeanExpressionContext ctx) {
            ListenerMethodChecks.refuseSuspendFunction(method, where);
            ListenerMethodChecks.refuseMultiValueReturn(method, where);
            SpringKafkaLeftovers.refuseSpringKafkaParameters(method, where);
            ListenerMethodChecks.refuseParameterAnnotationsTheProxyHides(method, invocable, where);
            // the annotated method's @SendTo: a JDK proxy's interface method does not carry it
            SendTo sendTo = AnnotatedElementUtils.findMergedAnnotation(method, SendTo.class);
            String replyTopic = sendTo == null ? null : replyTopic(sendTo, where, ctx);
            return List.of(new KafkoListenerEndpoint.Handler(invocable, false, replyTopic,
                    sendTo != null && replyTopic == null));
        }
    }

    /**
     * The endpoint of a class-level listener: its records go to the {@code @KafkoHandler} {@code methods}, in
     * that order, each replying where its own {@code @SendTo}, else the class's, says.
     */
    KafkoListenerEndpoint forClass(KafkoListener listener, Object bean, String defaultId, String declared,
                                   List<Method> methods, Map<Method, KafkoHandler> handlers, @Nullable SendTo classSendTo) {
        return endpoint(listener, bean, defaultId, declared, true, (where, ctx) -> {
            List<KafkoListenerEndpoint.Handler> resolved = new ArrayList<>();
            for (Method method : methods) {
                String handlerWhere = where + "." + method.getName();
                ListenerMethodChecks.refuseSuspendFunction(method, handlerWhere);
                ListenerMethodChecks.refuseMultiValueReturn(method, handlerWhere);
                SpringKafkaLeftovers.refuseSpringKafkaParameters(method, handlerWhere);
                SendTo own = AnnotatedElementUtils.findMergedAnnotation(method, SendTo.class);
                SendTo sendTo = own != null ? own : classSendTo;
                String replyTopic = sendTo == null ? null : replyTopic(sendTo, handlerWhere, ctx);
                Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
                ListenerMethodChecks.refuseParameterAnnotationsTheProxyHides(method, invocable, handlerWhere);
                resolved.add(new KafkoListenerEndpoint.Handler(invocable, handlers.get(method).isDefault(), replyTopic,
                        sendTo != null && replyTopic == null));
            }
            return resolved;
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
        // #{__listener} (or the beanRef's name) is the bean itself in SpEL, as in spring-kafka
        String beanRef = listener.beanRef().strip();
        if (beanRef.isEmpty()) {
            throw new InvalidKafkoListenerException("@KafkoListener " + declared + ": beanRef is blank; it names"
                    + " the bean in the annotation's SpEL (default " + ListenerScope.LISTENER + ")");
        }
        BeanExpressionContext ctx = new BeanExpressionContext(beanFactory, new ListenerScope(beanRef, bean));
        String id = resolveString(listener.id(), "id", declared, ctx);
        if (id == null) {
            id = defaultId;
        }
        // how every later failure names the listener: its id, then its method
        String where = "'" + id + "' " + declared;
        List<String> topics = resolveTopics(listener.topics(), where, ctx);
        Pattern topicPattern = resolvePattern(listener.topicPattern(), where, ctx);
        List<TopicPartitionOffset> assigned = ListenerTopicPartitions.resolve(listener.topicPartitions(), where,
                new AttributeResolver(where, ctx));
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
        boolean grouped = group == null && !listener.idIsGroup();
        if (grouped) {
            group = resolveString("${" + GROUP_ID_PROPERTY + ":}", "idIsGroup", where, ctx);
            if (group == null) {
                throw new InvalidKafkoListenerException("@KafkoListener " + where + " has idIsGroup = false and no"
                        + " groupId, and " + GROUP_ID_PROPERTY + " is not set: name its group with either");
            }
        }
        // names are checked here, before anything starts (the web server, the other listeners)
        for (String topic : topics) {
            checkName("topic", topic, where);
        }
        for (TopicPartitionOffset tpo : assigned) {
            checkName("topic", tpo.topic(), where);
        }
        checkName("group", group == null ? id : group, grouped ? where + " (its group from " + GROUP_ID_PROPERTY + ")"
                : where);
        String concurrency = resolveString(listener.concurrency(), "concurrency", where, ctx);
        String autoStartup = resolveString(listener.autoStartup(), "autoStartup", where, ctx);
        String batch = resolveString(listener.batch(), "batch", where, ctx);
        String ackMode = resolveString(listener.ackMode(), "ackMode", where, ctx);
        String containerFactory = resolveFactoryName(listener.containerFactory(), where, ctx);
        ListenerConsumerProperties consumer = ListenerConsumerProperties.read(listener.properties(), where,
                new AttributeResolver(where, ctx));
        String clientIdPrefix = resolveString(listener.clientIdPrefix(), "clientIdPrefix", where, ctx);
        String containerGroup = resolveString(listener.containerGroup(), "containerGroup", where, ctx);
        String info = resolveInfo(listener.info(), where, ctx);
        if (batch == null) {
            batchUnset.add(id);
        }
        return new KafkoListenerEndpoint(id, topics, group == null ? id : group,
                concurrency == null ? null : parseInt(concurrency, where),
                autoStartup == null ? null : parseBoolean(autoStartup, "autoStartup", where),
                batch != null ? parseBoolean(batch, "batch", where) : batchByDefault(where, ctx),
                ackMode == null ? null : parseAckMode(ackMode, where),
                bean, first.method(), first.replyTopic(), containerFactory, first.replyToHeader(),
                resolveBean(listener.filter(), RecordFilterStrategy.class, "filter", where, ctx),
                resolveBean(listener.errorHandler(), KafkoListenerErrorHandler.class, "errorHandler", where, ctx),
                classLevel ? resolved : List.of(), topicPattern, assigned, consumer.maxPollRecords(),
                consumer.offsetReset(), clientIdPrefix, containerGroup, listener.splitIterables(), info,
                resolveBean(listener.containerPostProcessor(), ContainerPostProcessor.class, "containerPostProcessor",
                        where, ctx),
                resolveBean(listener.contentTypeConverter(), SmartMessageConverter.class, "contentTypeConverter",
                        where, ctx));
    }

    /**
     * The bean name of the container factory the listener names, as spring-kafka takes it: a name, or SpEL giving a
     * name or the factory itself, which must then be a bean (the endpoint names its factory); {@code null} for none.
     */
    private @Nullable String resolveFactoryName(String raw, String where, BeanExpressionContext ctx) {
        if (!StringUtils.hasText(raw)) {
            return null;
        }
        Object resolved = resolve(raw, "containerFactory", where, ctx);
        if (!(resolved instanceof KafkoListenerContainerFactory factory)) {
            return asText(resolved, raw, "containerFactory", where);
        }
        String[] names = beanFactory.getBeanNamesForType(KafkoListenerContainerFactory.class);
        for (String name : names) {
            if (beanFactory.getBean(name) == factory) {
                return name;
            }
        }
        throw new InvalidKafkoListenerException("@KafkoListener " + where + ": containerFactory '" + raw
                + "' resolved to a KafkoListenerContainerFactory that is no bean; the factories are "
                + List.of(names) + ": declare it as a bean and name it, or return one of those");
    }

    /** The listener's info: text, or bytes read as UTF-8, as spring-kafka allows; {@code null} for none. */
    private @Nullable String resolveInfo(String raw, String where, BeanExpressionContext ctx) {
        if (!StringUtils.hasText(raw)) {
            return null;
        }
        Object resolved = resolve(raw, "info", where, ctx);
        if (resolved instanceof byte[] bytes) {
            return bytes.length == 0 ? null : new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        if (resolved != null && !(resolved instanceof String)) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": info '" + raw + "' resolved to a "
                    + resolved.getClass().getName() + ", neither text nor bytes");
        }
        return StringUtils.hasText((String) resolved) ? (String) resolved : null;
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
        if (sendTo.value().length == 1 && sendTo.value()[0].strip().startsWith("!{")) {
            // spring-kafka's per-record expression: as a topic name it would only fail the naming rule, unexplained
            throw new InvalidKafkoListenerException("@SendTo of @KafkoListener " + where + " is spring-kafka's runtime"
                    + " expression '" + sendTo.value()[0] + "', evaluated per record, which kafko does not have:"
                    + " return a Message with a KafkoHeaders.TOPIC header to choose the topic per record, or use"
                    + " @SendTo with no topic to reply to the request's KafkoHeaders.REPLY_TOPIC");
        }
        String reply = sendTo.value().length == 0 ? null : resolveString(sendTo.value()[0], "@SendTo", where, ctx);
        if (reply != null) {
            checkName("topic", reply, where);
        }
        return reply;
    }

    private static void checkName(String kind, String name, String where) {
        try {
            Kafko.checkName(kind, name);
        } catch (InvalidNameException e) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + ": " + e.getMessage(), e);
        }
    }

    /**
     * The topics, each entry resolved to a topic or to an array or collection of them; a {@code null} element
     * fails naming its index, as spring-kafka refuses it (it would have been the topic {@code "null"}).
     */
    private List<String> resolveTopics(String[] raw, String where, BeanExpressionContext ctx) {
        List<String> topics = new ArrayList<>();
        for (String value : raw) {
            Object resolved = resolve(value, "topics", where, ctx);
            if (resolved instanceof String[] || resolved instanceof Collection<?>) {
                List<?> elements = resolved instanceof String[] array ? Arrays.asList(array)
                        : new ArrayList<>((Collection<?>) resolved);
                int nul = elements.indexOf(null);
                if (nul >= 0) {
                    throw new InvalidKafkoListenerException("@KafkoListener " + where + ": topics '" + value
                            + "' resolved to " + elements + ", which holds no topic at index " + nul);
                }
                elements.forEach(t -> topics.add(String.valueOf(t)));
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
        return asText(resolve(value, attribute, where, ctx), value, attribute, where);
    }

    /** What an attribute resolved to, as text; {@code null} for nothing or blank text. */
    private static @Nullable String asText(@Nullable Object resolved, String value, String attribute, String where) {
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
        ConfigurableListableBeanFactory factory = beanFactory;
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

    /** {@link #resolve} for one listener, as {@link ListenerTopicPartitions} asks for it. */
    private final class AttributeResolver implements ListenerTopicPartitions.Resolver {

        private final String where;
        private final BeanExpressionContext ctx;

        AttributeResolver(String where, BeanExpressionContext ctx) {
            this.where = where;
            this.ctx = ctx;
        }

        @Override
        public @Nullable Object resolve(String value, String attribute) {
            return ListenerEndpointReader.this.resolve(value, attribute, where, ctx);
        }
    }

    /**
     * The scope of a listener's SpEL: {@code name} ({@code __listener} unless the annotation's {@code beanRef} says
     * otherwise) is the bean that declares it.
     */
    private record ListenerScope(String name, Object bean) implements Scope {

        static final String LISTENER = "__listener";

        @Override
        public Object get(String name, ObjectFactory<?> objectFactory) {
            return this.name.equals(name) ? bean : objectFactory.getObject();
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
            return name.equals(key) ? bean : null;
        }

        @Override
        public @Nullable String getConversationId() {
            return null;
        }
    }

    /** Whether the listener of that id was read without a {@code batch} attribute. Any thread. */
    boolean batchUnset(String id) {
        return batchUnset.contains(id);
    }

    /** Whether {@value #TYPE_PROPERTY} makes a listener without a {@code batch} attribute a batch listener. */
    private boolean batchByDefault(String where, BeanExpressionContext ctx) {
        String type = resolveString("${" + TYPE_PROPERTY + ":single}", "batch", where, ctx);
        String v = type == null ? "single" : type.trim();
        if (v.equalsIgnoreCase("single") || v.equalsIgnoreCase("batch")) {
            return v.equalsIgnoreCase("batch");
        }
        throw new InvalidKafkoListenerException("@KafkoListener " + where + " has no batch attribute, and "
                + TYPE_PROPERTY + " '" + type + "' is neither single nor batch");
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
}
