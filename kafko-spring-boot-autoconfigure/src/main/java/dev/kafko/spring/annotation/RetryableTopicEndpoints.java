package dev.kafko.spring.annotation;

import dev.kafko.InvalidNameException;
import dev.kafko.Kafko;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.DltLogger;
import dev.kafko.spring.listener.RetryTopics;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.annotation.DurationFormat;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The endpoints of a {@link RetryableTopic} listener: its own, one per retry topic and one per dead-letter topic
 * (the listener's, then each of its exception-based routes'), each with the part it plays (which decides its container's error handler and whether it waits for each
 * record's back-off).
 */
final class RetryableTopicEndpoints {

    /** The part an endpoint plays in a retryable listener. */
    enum Part { MAIN, RETRY, DLT }

    /**
     * An endpoint and its part, with the plans of the listener's topics (one per topic, in the listener's order);
     * {@code retryTopicSuffix} as resolved, which the retry topics' names start with.
     */
    record Planned(KafkoListenerEndpoint endpoint, Part part, List<RetryTopics> plans, String retryTopicSuffix) {

        Planned {
            plans = List.copyOf(plans);
        }

        /** The plan of the listener's first topic, whose settings every plan shares. */
        RetryTopics topics() {
            return plans.get(0);
        }
    }

    private RetryableTopicEndpoints() {
    }

    /**
     * @throws InvalidKafkoListenerException naming the listener when the annotation cannot work with it
     */
    static List<Planned> of(KafkoListenerEndpoint main, RetryableTopic retryable, Class<?> targetClass,
                            ConfigurableListableBeanFactory factory) {
        String where = "@RetryableTopic listener '" + main.id() + "' on " + targetClass.getName() + "."
                + main.method().getName();
        refuseShape(main, where);
        List<RetryTopics> plans = new ArrayList<>();
        String retrySuffix = text(factory, retryable.retryTopicSuffix(), where);
        String dltSuffix = text(factory, retryable.dltTopicSuffix(), where);
        boolean traversingCauses = !isUnset(factory, retryable.traversingCauses(), where)
                && booleanOf(factory, retryable.traversingCauses(), "traversingCauses", where);
        List<RetryTopics.DltRoute> routes = new ArrayList<>();
        for (ExceptionBasedDltDestination destination : retryable.exceptionBasedDltRouting()) {
            routes.add(new RetryTopics.DltRoute(text(factory, destination.suffix(), where),
                    Arrays.asList(destination.exceptions())));
        }
        for (String topic : main.topics()) {
            RetryTopics topics;
            try {
                BackOff backOff = retryable.backOff();
                List<Class<? extends Throwable>> include = new ArrayList<>(Arrays.asList(retryable.include()));
                include.addAll(throwables(factory, retryable.includeNames(), "includeNames", targetClass, where));
                List<Class<? extends Throwable>> exclude = new ArrayList<>(Arrays.asList(retryable.exclude()));
                exclude.addAll(throwables(factory, retryable.excludeNames(), "excludeNames", targetClass, where));
                topics = new RetryTopics(topic, intOf(factory, retryable.attempts(), "attempts", where),
                        millisOf(factory, backOff.delayString(), backOff.delay(), "backOff delayString", where),
                        multiplierOf(factory, backOff.multiplierString(), backOff.multiplier(), where),
                        millisOf(factory, backOff.maxDelayString(), backOff.maxDelay(), "backOff maxDelayString", where),
                        retrySuffix, dltSuffix, include, exclude, retryable.dltStrategy(),
                        retryable.topicSuffixingStrategy(), retryable.sameIntervalTopicReuseStrategy())
                        .withJitter(millisOf(factory, backOff.jitterString(), backOff.jitter(), "backOff jitterString",
                                where))
                        .withTraversingCauses(traversingCauses)
                        .withDltRouting(dltSuffix, routes)
                        .withTimeout(millisOf(factory, retryable.timeout(), 0, "timeout", where))
                        .withTopicCreation(booleanOf(factory, retryable.autoCreateTopics(), "autoCreateTopics", where),
                                isUnset(factory, retryable.numPartitions(), where) ? 0
                                        : partitionsOf(factory, retryable.numPartitions(), where));
            } catch (IllegalArgumentException e) {
                throw new InvalidKafkoListenerException(where + ": " + e.getMessage(), e);
            }
            plans.add(topics);
        }
        checkNames(plans, main, where);
        if (!isUnset(factory, retryable.replicationFactor(), where)) {
            int replicas = intOf(factory, retryable.replicationFactor(), "replicationFactor", where);
            if (replicas != 1 && replicas != -1) {
                throw new InvalidKafkoListenerException(where + ": replicationFactor '" + replicas + "' cannot be"
                        + " kept: a kafko topic is one copy on one disk (1, -1 or leave it out)");
            }
        }
        Integer concurrency = isUnset(factory, retryable.concurrency(), where) ? main.concurrency()
                : Integer.valueOf(positiveOf(factory, retryable.concurrency(), "concurrency", where));
        String containers = isUnset(factory, retryable.listenerContainerFactory(), where) ? main.containerFactory()
                : containerFactory(factory, text(factory, retryable.listenerContainerFactory(), where).strip(), where);
        if (!plans.get(0).hasDltTopic()) {
            // a @DltHandler of the bean is for its other @RetryableTopic listeners, if any
            return plan(main, plans, retrySuffix, concurrency, containers, null, null, null, null);
        }
        Boolean autoStartDlt = isUnset(factory, retryable.autoStartDltHandler(), where) ? main.autoStartup()
                : Boolean.valueOf(booleanOf(factory, retryable.autoStartDltHandler(), "autoStartDltHandler", where));
        Method handler = dltHandler(targetClass, where);
        return plan(main, plans, retrySuffix, concurrency, containers, autoStartDlt, main.bean(), handler,
                handler == null ? null : invocable(main.bean(), handler, where, "@DltHandler"));
    }

    /**
     * The endpoints of a listener without {@code @RetryableTopic} that the {@link RetryTopicConfiguration} bean
     * {@code configName} applies to; its dead letters go to the configuration's handler method, else to the logger.
     * {@code listenerBeanName} is the listener's bean, which may still be being made: a handler method of that bean is
     * called on it.
     *
     * @throws InvalidKafkoListenerException naming the listener and the bean when they cannot work together
     */
    static List<Planned> of(KafkoListenerEndpoint main, RetryTopicConfiguration config, String configName,
                            Class<?> targetClass, String listenerBeanName, ConfigurableListableBeanFactory factory) {
        String where = "listener '" + main.id() + "' on " + targetClass.getName() + "." + main.method().getName()
                + " (given retry topics by the RetryTopicConfiguration bean '" + configName + "')";
        refuseShape(main, where);
        List<RetryTopics> plans = new ArrayList<>();
        try {
            for (String topic : main.topics()) {
                plans.add(config.plan(topic));
            }
        } catch (IllegalArgumentException e) {
            throw new InvalidKafkoListenerException(where + ": " + e.getMessage(), e);
        }
        checkNames(plans, main, where);
        RetryTopics topics = plans.get(0);
        Integer concurrency = config.concurrency() != null ? config.concurrency() : main.concurrency();
        Boolean autoStartDlt = config.autoStartDltHandler() != null ? config.autoStartDltHandler()
                : main.autoStartup();
        String containers = config.listenerFactoryBeanName() != null
                ? containerFactory(factory, config.listenerFactoryBeanName(), where)
                : config.listenerFactory() != null ? beanNameOf(factory, config.listenerFactory(), where)
                : main.containerFactory();
        String beanName = config.dltHandlerBeanName();
        String methodName = config.dltHandlerMethodName();
        if (!topics.hasDltTopic() || beanName == null || methodName == null) {
            return plan(main, plans, config.retryTopicSuffix(), concurrency, containers, autoStartDlt, null, null,
                    null);
        }
        Object bean;
        try {
            bean = beanName.equals(listenerBeanName) ? main.bean() : factory.getBean(beanName);
        } catch (BeansException e) {
            throw new InvalidKafkoListenerException(where + " whose dead-letter handler bean '" + beanName
                    + "' cannot be had: " + e.getMessage(), e);
        }
        Class<?> handlerClass = AopUtils.getTargetClass(bean);
        List<Method> named = new ArrayList<>();
        ReflectionUtils.doWithMethods(handlerClass, named::add,
                m -> m.getName().equals(methodName) && !m.isBridge() && !m.isSynthetic()
                        && m.getDeclaringClass() != Object.class);
        // a method and the superclass's (or interface's default) method it overrides are one method, called as the
        // class has it: counted once, not as an overload
        List<Method> found = new ArrayList<>();
        for (Method m : named) {
            Method specific = BridgeMethodResolver.findBridgedMethod(ClassUtils.getMostSpecificMethod(m, handlerClass));
            if (!found.contains(specific)) {
                found.add(specific);
            }
        }
        if (found.size() != 1) {
            throw new InvalidKafkoListenerException(where + " whose dead-letter handler " + handlerClass.getName()
                    + "." + methodName + " (bean '" + beanName + "') " + (found.isEmpty() ? "does not exist"
                    : "is overloaded " + found.size() + " times; name a method that is not"));
        }
        Method handler = found.get(0);
        ReflectionUtils.makeAccessible(handler);
        return plan(main, plans, config.retryTopicSuffix(), concurrency, containers, autoStartDlt, bean, handler,
                invocable(bean, handler, where, "dead-letter handler"));
    }

    /**
     * Refuses retry and dead-letter topic names outside the naming rule, which the listener's topic keeps but its
     * suffixes (and the back-off's digits) may not: at 249 characters at most, {@code orders-retry-1000} is longer
     * than {@code orders}; and names that are one of the listener's own topics (a listener of {@code orders} and
     * {@code orders-retry}).
     */
    private static void checkNames(List<RetryTopics> plans, KafkoListenerEndpoint main, String where) {
        Map<String, String> topicOfName = new HashMap<>();
        for (RetryTopics topics : plans) {
            List<String> names = new ArrayList<>(topics.retryTopics());
            names.addAll(topics.dltTopics());
            for (String name : names) {
                try {
                    Kafko.checkName("topic", name);
                } catch (InvalidNameException e) {
                    throw new InvalidKafkoListenerException(where + ": its " + (topics.isDltTopic(name)
                            ? "dead-letter" : "retry") + " topic '" + name + "' breaks the topic naming rule ("
                            + e.getMessage() + "); shorten the topic or the suffixes, or name the retry topics by"
                            + " index (topicSuffixingStrategy SUFFIX_WITH_INDEX_VALUE)", e);
                }
                if (main.topics().contains(name)) {
                    // a listener of orders and orders-retry: its retry container would read its own topic
                    throw new InvalidKafkoListenerException(where + ": its " + (topics.isDltTopic(name)
                            ? "dead-letter" : "retry") + " topic '" + name + "' of topic '" + topics.topic()
                            + "' is one of the topics it listens to; give it another retryTopicSuffix or"
                            + " dltTopicSuffix");
                }
                String other = topicOfName.putIfAbsent(name, topics.topic());
                if (other != null && !other.equals(topics.topic())) {
                    // topics q and q-x under the suffixes -x-y and -y: q's retry topic would be q-x's dead letters
                    throw new InvalidKafkoListenerException(where + ": the topic '" + name + "' would be a retry or"
                            + " dead-letter topic of both its topics '" + other + "' and '" + topics.topic()
                            + "'; give it other retryTopicSuffix and dltTopicSuffix");
                }
            }
        }
    }

    /** Refuses a listener that cannot take retry topics: a batch, pattern, fixed-partition or class-level one. */
    private static void refuseShape(KafkoListenerEndpoint main, String where) {
        if (main.batch()) {
            throw new InvalidKafkoListenerException(where + " is a batch listener: retry topics take one record at a"
                    + " time (spring-kafka's do too); under kafko.listener.type=batch, give it batch = \"false\"");
        }
        if (main.topicPattern() != null || !main.topicPartitions().isEmpty() || main.topics().isEmpty()) {
            throw new InvalidKafkoListenerException(where + " must read its topics by name (no topicPattern,"
                    + " no topicPartitions); it reads " + (main.topicPattern() != null ? "the pattern '"
                    + main.topicPattern() + "'" : !main.topicPartitions().isEmpty() ? "partitions "
                    + main.topicPartitions() : main.topics()));
        }
        if (!main.handlers().isEmpty()) {
            throw new InvalidKafkoListenerException(where + " is a class-level listener; put @RetryableTopic on a"
                    + " @KafkoListener method");
        }
    }

    /** Whether retry topics can work with {@code main}: a record listener of named topics. */
    static boolean canTakeRetryTopics(KafkoListenerEndpoint main) {
        return !main.batch() && main.topicPattern() == null && main.topicPartitions().isEmpty()
                && !main.topics().isEmpty() && main.handlers().isEmpty();
    }

    /**
     * The listener's endpoint, one per retry topic and one per dead-letter topic, the latter read by {@code handler}
     * of {@code handlerBean} (called as {@code invocable}), or by the logger when {@code handler} is null.
     */
    private static List<Planned> plan(KafkoListenerEndpoint main, List<RetryTopics> plans, String retrySuffix,
                                      @Nullable Integer concurrency, @Nullable String containers,
                                      @Nullable Boolean autoStartDlt,
                                      @Nullable Object handlerBean, @Nullable Method handler,
                                      @Nullable Method invocable) {
        // every topic's plan has the same settings, so the same suffixes: the i-th retry topic of each topic is read
        // by one container (as spring-kafka has one endpoint per retry topic suffix), and so is the j-th dead-letter
        // topic, each named after the listener and that suffix
        RetryTopics first = plans.get(0);
        List<Planned> planned = new ArrayList<>();
        planned.add(new Planned(main, Part.MAIN, plans, retrySuffix));
        for (int i = 0; i < first.retryTopics().size(); i++) {
            List<String> topics = new ArrayList<>();
            for (RetryTopics plan : plans) {
                topics.add(plan.retryTopics().get(i));
            }
            planned.add(new Planned(copy(main, main.id() + suffixOf(first, first.retryTopics().get(i)), topics,
                    main.bean(), main.method(), main.ackMode(), true, concurrency, main.autoStartup(), containers),
                    Part.RETRY, plans, retrySuffix));
        }
        for (int j = 0; j < first.dltTopics().size(); j++) {
            List<String> topics = new ArrayList<>();
            for (RetryTopics plan : plans) {
                topics.add(plan.dltTopics().get(j));
            }
            String dltId = main.id() + suffixOf(first, first.dltTopics().get(j));
            // the logger, and a handler that cannot acknowledge, would under a manual ack mode (the listener's, or the
            // factory's) leave every dead letter uncommitted, to be handled again at each start: each is committed
            planned.add(new Planned(handler == null || handlerBean == null || invocable == null
                    ? copy(main, dltId, topics, new DltLogger(main.id()), DltLogger.METHOD, AckMode.RECORD, false,
                            concurrency, autoStartDlt, containers)
                    : copy(main, dltId, topics, handlerBean, invocable, KafkoListenerContainerFactory
                            .canAcknowledge(handler) || (main.ackMode() != null && !main.ackMode().isManual())
                                    ? main.ackMode() : AckMode.RECORD, false, concurrency, autoStartDlt, containers),
                    Part.DLT, plans, retrySuffix));
        }
        return planned;
    }

    /** What {@code name}, a retry or dead-letter topic of {@code plan}, adds to its listener topic's name. */
    private static String suffixOf(RetryTopics plan, String name) {
        return name.substring(plan.topic().length());
    }

    /**
     * The factory bean {@code name} of the retry and dead-letter containers, once checked to be one: refused naming
     * the listener, rather than at the first retry container's making, which names only that container.
     */
    private static String containerFactory(ConfigurableListableBeanFactory factory, String name, String where) {
        ListenerEndpointReader.bean(factory, name, KafkoListenerContainerFactory.class, "listenerContainerFactory",
                "the KafkoListenerContainerFactory beans are", where);
        return name;
    }

    /** The name of the bean {@code containers} is: a factory that is no bean has no name to make containers by. */
    private static String beanNameOf(ConfigurableListableBeanFactory factory, KafkoListenerContainerFactory containers,
                                     String where) {
        for (String name : factory.getBeanNamesForType(KafkoListenerContainerFactory.class)) {
            if (factory.getBean(name) == containers) {
                return name;
            }
        }
        throw new InvalidKafkoListenerException(where + ": its listenerFactory is no bean of the context; declare"
                + " it as a @Bean (or give its bean name)");
    }

    /** The {@code Throwable} types {@code names} name, loaded as the bean's class is. */
    private static List<Class<? extends Throwable>> throwables(ConfigurableListableBeanFactory factory,
                                                               String[] names, String attribute, Class<?> targetClass,
                                                               String where) {
        List<Class<? extends Throwable>> types = new ArrayList<>();
        for (String name : names) {
            String resolved = text(factory, name, where).strip();
            if (resolved.isEmpty()) {
                continue; // a placeholder that names no class, as an empty array
            }
            Class<?> type;
            try {
                type = ClassUtils.forName(resolved, targetClass.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                throw new InvalidKafkoListenerException(where + ": " + attribute + " names '" + resolved + "', which"
                        + " is not a class on the class path (" + e + ")", e);
            }
            if (!Throwable.class.isAssignableFrom(type)) {
                throw new InvalidKafkoListenerException(where + ": " + attribute + " names '" + resolved + "', which"
                        + " is not a Throwable");
            }
            types.add(type.asSubclass(Throwable.class));
        }
        return types;
    }

    /**
     * The handler as the bean is called: a JDK proxy's (an interface-based {@code @Transactional} bean, say) through
     * its interface's method, as the listener method is; the class's method would not be the proxy's. A private one
     * of a class proxy is refused, as a private listener method is: called on the proxy, it would run on the proxy's
     * own fields, never set, without the advice.
     */
    private static Method invocable(Object bean, Method handler, String where, String role) {
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(handler, bean.getClass());
        } catch (IllegalStateException e) {
            // a JDK proxy without the method on its interfaces, or a class proxy that cannot pass a private one on
            throw new InvalidKafkoListenerException(where + ": its " + role + " " + handler.getName() + " cannot be"
                    + " called through the proxy the bean is exposed as: " + e.getMessage(), e);
        }
        ListenerMethodChecks.refuseParameterAnnotationsTheProxyHides(handler, invocable,
                where + " (its " + role + " " + handler.getName() + ")");
        return invocable;
    }

    private static KafkoListenerEndpoint copy(KafkoListenerEndpoint main, String id, List<String> topics, Object bean,
                                              Method method, @Nullable AckMode ackMode, boolean sameReplies,
                                              @Nullable Integer concurrency, @Nullable Boolean autoStartup,
                                              @Nullable String containers) {
        return new KafkoListenerEndpoint(id, topics, main.groupId(), concurrency, autoStartup,
                false, ackMode, bean, method, sameReplies ? main.replyTopic() : null, containers,
                sameReplies && main.replyToHeader(), sameReplies ? main.recordFilterStrategy() : null,
                sameReplies ? main.errorHandler() : null, List.of(), null, List.of(),
                // the listener's max.poll.records, as spring-kafka gives each retry and dead-letter endpoint the
                // listener's properties; not its auto.offset.reset: a retry topic's group that started at the end
                // would skip what was forwarded to it before its first poll
                main.maxPollRecords(), null,
                // named as the main one's members, with the part's suffix (spring-kafka suffixes its client ids)
                main.clientIdPrefix() != null && id.startsWith(main.id())
                        ? main.clientIdPrefix() + id.substring(main.id().length()) : null,
                // as spring-kafka, which reads the listener's annotation again for each retry and dead-letter endpoint
                main.containerGroup(), main.splitIterables(), main.info(), main.containerPostProcessor(),
                main.contentTypeConverter());
    }

    /** The bean's one {@link DltHandler} method, or null. */
    private static @Nullable Method dltHandler(Class<?> targetClass, String where) {
        List<Method> found = new ArrayList<>();
        ReflectionUtils.doWithMethods(targetClass, found::add,
                m -> AnnotatedElementUtils.hasAnnotation(m, DltHandler.class) && !m.isBridge());
        if (found.size() > 1) {
            throw new InvalidKafkoListenerException(where + ": " + targetClass.getName() + " has "
                    + found.size() + " @DltHandler methods " + found.stream().map(Method::getName).sorted().toList()
                    + "; it takes one");
        }
        if (found.isEmpty()) {
            return null;
        }
        Method m = found.get(0);
        ReflectionUtils.makeAccessible(m);
        return m;
    }

    private static int intOf(ConfigurableListableBeanFactory factory, String value, String attribute, String where) {
        String resolved = text(factory, value, where);
        try {
            return Integer.parseInt(resolved.strip());
        } catch (NumberFormatException e) {
            throw new InvalidKafkoListenerException(where + ": " + attribute + " '" + resolved + "' is not a whole"
                    + " number");
        }
    }

    private static int positiveOf(ConfigurableListableBeanFactory factory, String value, String attribute,
                                  String where) {
        int n = intOf(factory, value, attribute, where);
        if (n < 1) {
            throw new InvalidKafkoListenerException(where + ": " + attribute + " '" + text(factory, value, where)
                    + "' must be at least 1");
        }
        return n;
    }

    /**
     * {@code numPartitions}: at least 1, or -1 (spring-kafka's broker default, as ported code gives it, which the
     * builder's {@code autoCreateTopicsWith} takes too) for the listener topic's count, 0.
     */
    private static int partitionsOf(ConfigurableListableBeanFactory factory, String value, String where) {
        int n = intOf(factory, value, "numPartitions", where);
        if (n == -1) {
            return 0;
        }
        if (n < 1) {
            throw new InvalidKafkoListenerException(where + ": numPartitions '" + text(factory, value, where)
                    + "' must be at least 1 (or -1, or left out, for the listener topic's count)");
        }
        return n;
    }

    private static boolean booleanOf(ConfigurableListableBeanFactory factory, String value, String attribute,
                                     String where) {
        String resolved = text(factory, value, where).strip();
        if (resolved.equalsIgnoreCase("true") || resolved.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(resolved);
        }
        throw new InvalidKafkoListenerException(where + ": " + attribute + " '" + resolved + "' is neither true nor"
                + " false");
    }

    private static long millisOf(ConfigurableListableBeanFactory factory, String value, long otherwise, String attribute,
                                 String where) {
        String resolved = text(factory, value, where).strip();
        if (resolved.isEmpty()) {
            return otherwise;
        }
        try {
            // as spring-kafka's BackOffFactory reads them: simple (500ms), ISO-8601 (PT1M) or composite (1s500ms)
            return DurationFormatterUtils.detectAndParse(resolved, DurationFormat.Unit.MILLIS).toMillis();
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new InvalidKafkoListenerException(where + ": " + attribute + " '" + resolved + "' is not a"
                    + " duration (500ms, 5s, 1s500ms, PT1M, or milliseconds)");
        }
    }

    private static double multiplierOf(ConfigurableListableBeanFactory factory, String value, double otherwise,
                                       String where) {
        String resolved = text(factory, value, where).strip();
        if (resolved.isEmpty()) {
            return otherwise;
        }
        try {
            return Double.parseDouble(resolved);
        } catch (NumberFormatException e) {
            throw new InvalidKafkoListenerException(where + ": backOff multiplierString '" + resolved + "' is not a"
                    + " number");
        }
    }

    /**
     * Whether an attribute whose empty value means "not set" is not set: empty, or a placeholder or expression that
     * resolves to nothing ({@code "${retry.concurrency:}"}), as {@code @KafkoListener}'s attributes take it.
     */
    private static boolean isUnset(ConfigurableListableBeanFactory factory, String value, String where) {
        return text(factory, value, where).isBlank();
    }

    /**
     * An attribute's text: placeholders resolved, then SpEL ({@code #{...}}) evaluated against the bean factory, as
     * spring-kafka resolves {@code @RetryableTopic}'s attributes; an expression may give text, a number, a boolean
     * or a class (its name), and null counts as nothing.
     *
     * @throws InvalidKafkoListenerException naming the listener when the value cannot be resolved or gives another
     *                                       kind of object
     */
    private static String text(ConfigurableListableBeanFactory factory, String value, String where) {
        Object resolved;
        try {
            String embedded = factory.resolveEmbeddedValue(value);
            BeanExpressionResolver resolver = factory.getBeanExpressionResolver();
            if (embedded == null) {
                resolved = value;
            } else {
                resolved = resolver == null ? embedded
                        : resolver.evaluate(embedded, new BeanExpressionContext(factory, null));
            }
        } catch (RuntimeException e) {
            throw new InvalidKafkoListenerException(where + ": '" + value + "' could not be resolved: "
                    + NestedExceptionUtils.getMostSpecificCause(e).getMessage(), e);
        }
        if (resolved == null) {
            return "";
        }
        if (resolved instanceof Class<?> type) {
            return type.getName();
        }
        if (!(resolved instanceof String) && !(resolved instanceof Number) && !(resolved instanceof Boolean)) {
            throw new InvalidKafkoListenerException(where + ": '" + value + "' resolved to a "
                    + resolved.getClass().getName() + ", not text, a number, a boolean or a class");
        }
        return resolved.toString();
    }
}
