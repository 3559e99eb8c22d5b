package dev.kafko.spring.listener.adapter;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.core.KafkoOperations;
import dev.kafko.spring.listener.AwaitedStage;
import dev.kafko.spring.listener.ConsumerSeekAware;
import dev.kafko.spring.listener.KafkoListenerErrorHandler;
import dev.kafko.spring.listener.KafkoMessageListener;
import dev.kafko.spring.listener.ListenerExecutionFailedException;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.RecordMessageConverter;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.ValueConstants;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.support.MessageHeaderAccessor;
import org.springframework.util.ClassUtils;

/**
 * Delivers records to a {@code @KafkoListener} method: builds the Spring {@link Message}, lets
 * spring-messaging's {@link InvocableHandlerMethod} resolve the arguments and invoke the method,
 * and sends a non-null return value to the {@code @SendTo} topic (or, where {@code @SendTo} names
 * none, to the request's {@link KafkoHeaders#REPLY_TOPIC}; see {@link ReplySender}); an {@link Optional} is
 * sent as its value (an empty one sends nothing), Kotlin's {@code Unit} is no value either (nothing is sent: a Kotlin
 * lambda or {@code mono { }} block whose last expression is a statement returns it), and a {@link CompletionStage}
 * (or a single-value reactive
 * type, a {@code Mono}: see {@link ReactiveReturns}) is awaited (see
 * {@link #completed}) and its result sent. A Kotlin {@code suspend fun} is invoked as a coroutine whose
 * {@code Mono} is awaited the same way ({@link SuspendFunctionHandler}). Called only on a
 * container member's polling thread; several members may share one adapter (it keeps no per-call state).
 * What the method throws goes to its {@link KafkoListenerErrorHandler}, when it has one, whose result
 * stands for the method's.
 *
 * <p>A record listener whose only parameter is the payload gets a message that carries just the
 * record's own headers (a converter may read them): the {@code kafko_received*} headers, the
 * acknowledgment and the raw record are added only for methods that can read them.
 *
 * <p>A batch listener's payload parameter is a {@code List<T>}: each record is converted to
 * {@code T} ({@code KafkoRecord} is passed as it is, a {@code Message<T>} gets its payload converted
 * to {@code T} and {@code Message<?>} or {@code Message<byte[]>} the raw bytes; a tombstone is a
 * {@code null} element, or a message whose payload is {@link dev.kafko.spring.support.KafkoNull}), and the
 * {@code kafko_received*} headers hold lists in record order (keys as {@code byte[]}, or converted to
 * {@code T} when the method declares {@code @Header(RECEIVED_KEY) List<T>}: text, a number, an object
 * read as JSON, as a single {@code @Header} of that type would be). A record of a {@code List<T>} whose payload does
 * not convert is a {@code null} element, its failure in {@link KafkoHeaders#CONVERSION_FAILURES} (see
 * {@link BatchMessages}); one of a {@code List<Message<T>>} fails the batch, as in spring-kafka.
 */
public final class MessagingMessageListenerAdapter implements KafkoMessageListener {

    /** Kotlin's {@code Unit}, named so that the class needs no Kotlin on the class path. */
    private static final String KOTLIN_UNIT = "kotlin.Unit";

    /** Whether Reactive Streams is on the classpath, so that a reactive return type may be awaited. */
    static final boolean REACTIVE_STREAMS = ClassUtils.isPresent("org.reactivestreams.Publisher",
            MessagingMessageListenerAdapter.class.getClassLoader());

    private final InvocableHandlerMethod handler;
    private final RecordMessageConverter converter;
    private final boolean batch;
    /** Builds a batch method's message; null for a record listener. */
    private final @Nullable BatchMessages batchMessages;
    /** The method reads nothing but the payload, so the record's message needs no kafko headers. */
    private final boolean payloadOnly;
    /**
     * {@code String} or {@code byte[]} when the method's one parameter is a plain one of these (no
     * annotation, so nothing to validate): the payload is then converted here and handed to the
     * method as a provided argument, skipping the resolver lookup; otherwise {@code null}.
     */
    private final @Nullable Class<?> plainPayloadType;
    private final String listenerId;
    private final String groupId;
    /**
     * Sends the method's results; {@code null} when it has no {@code @SendTo} and is not declared to return a
     * {@code Message} or a {@code Collection} of them.
     */
    private final @Nullable ReplySender replies;
    private final @Nullable KafkoListenerErrorHandler errorHandler;
    /** The listener's {@link KafkoHeaders#LISTENER_INFO}, or {@code null} for none. */
    private final @Nullable String listenerInfo;

    /**
     * An adapter whose method has no {@code @SendTo} ({@code replyTopic} null) or one that names a topic,
     * and no {@link KafkoListenerErrorHandler}.
     */
    public MessagingMessageListenerAdapter(InvocableHandlerMethod handler, RecordMessageConverter converter,
                                           boolean batch, String listenerId, String groupId,
                                           @Nullable String replyTopic,
                                           @Nullable KafkoOperations<Object, Object> replyTemplate) {
        this(handler, converter, batch, listenerId, groupId, replyTopic, false, replyTemplate, null);
    }

    /**
     * @param replyTopic the topic {@code @SendTo} names, or {@code null}
     * @param replyToHeader whether the method has a {@code @SendTo} that names no topic: its results go to
     *     the topic in each request's {@link KafkoHeaders#REPLY_TOPIC} header (record listeners only);
     *     ignored when {@code replyTopic} is set
     * @param replyTemplate what sends the results; required with {@code @SendTo}
     * @param errorHandler what handles the method's failures before the container does, or {@code null}
     * @throws IllegalStateException when a {@code @SendTo} has no template to send with, or a batch
     *     listener's names no topic
     */
    public MessagingMessageListenerAdapter(InvocableHandlerMethod handler, RecordMessageConverter converter,
                                           boolean batch, String listenerId, String groupId,
                                           @Nullable String replyTopic, boolean replyToHeader,
                                           @Nullable KafkoOperations<Object, Object> replyTemplate,
                                           @Nullable KafkoListenerErrorHandler errorHandler) {
        this(handler, converter, batch, listenerId, groupId, replyTopic, replyToHeader, replyTemplate, errorHandler,
                topic -> true);
    }

    /**
     * As the constructor above, with what tells whether a topic exists.
     *
     * @param existingTopic whether a topic of that name exists: a reply topic named by a request's
     *     {@link KafkoHeaders#REPLY_TOPIC} header must, since the records a listener reads must not be
     *     able to make it create topics ({@link dev.kafko.spring.core.LogBackend#topicId} is one such test)
     */
    public MessagingMessageListenerAdapter(InvocableHandlerMethod handler, RecordMessageConverter converter,
                                           boolean batch, String listenerId, String groupId,
                                           @Nullable String replyTopic, boolean replyToHeader,
                                           @Nullable KafkoOperations<Object, Object> replyTemplate,
                                           @Nullable KafkoListenerErrorHandler errorHandler,
                                           Predicate<String> existingTopic) {
        this(handler, converter, batch, listenerId, groupId, replyTopic, replyToHeader, replyTemplate, errorHandler,
                existingTopic, true);
    }

    /**
     * As the constructor above, with whether an {@code Iterable} result is sent as a record per element
     * ({@code splitIterables}, spring-kafka's default) or as one record; an {@code Iterable} of {@code Message}s is
     * always sent a record per message.
     */
    public MessagingMessageListenerAdapter(InvocableHandlerMethod handler, RecordMessageConverter converter,
                                           boolean batch, String listenerId, String groupId,
                                           @Nullable String replyTopic, boolean replyToHeader,
                                           @Nullable KafkoOperations<Object, Object> replyTemplate,
                                           @Nullable KafkoListenerErrorHandler errorHandler,
                                           Predicate<String> existingTopic, boolean splitIterables) {
        this(handler, converter, batch, listenerId, groupId, replyTopic, replyToHeader, replyTemplate, errorHandler,
                existingTopic, splitIterables, null);
    }

    /**
     * As the constructor above, with the listener's {@code info}: the {@link KafkoHeaders#LISTENER_INFO} header of
     * every message it is given ({@code null}: none).
     */
    public MessagingMessageListenerAdapter(InvocableHandlerMethod handler, RecordMessageConverter converter,
                                           boolean batch, String listenerId, String groupId,
                                           @Nullable String replyTopic, boolean replyToHeader,
                                           @Nullable KafkoOperations<Object, Object> replyTemplate,
                                           @Nullable KafkoListenerErrorHandler errorHandler,
                                           Predicate<String> existingTopic, boolean splitIterables,
                                           @Nullable String listenerInfo) {
        if ((replyTopic != null || replyToHeader) && replyTemplate == null) {
            throw new IllegalStateException("Listener '" + listenerId + "' has @SendTo("
                    + (replyTopic == null ? "" : "\"" + replyTopic + "\"")
                    + ") but its container factory has no KafkoTemplate to send its replies with: a factory of your"
                    + " own (one replacing 'kafkoListenerContainerFactory' included) has one only once given it with"
                    + " setReplyTemplate, whatever KafkoTemplate beans there are; the auto-configured factory takes"
                    + " the only KafkoTemplate bean, else the @Primary one, else the one named 'kafkoTemplate'");
        }
        if (KafkoArgumentResolvers.isSuspendFunction(handler.getMethod())
                && !(handler instanceof SuspendFunctionHandler)) {
            // a plain handler passes the Continuation the payload: every record would fail unrun, then be committed
            throw new IllegalStateException("Listener '" + listenerId + "' (" + handler.getMethod() + ") is a Kotlin"
                    + " suspend function, which the handler its MessageHandlerMethodFactory made (a "
                    + handler.getClass().getName() + ") cannot run as a coroutine: drop the factory bean, or make it"
                    + " with KafkoArgumentResolvers.handlerMethodFactory (which takes your own argument resolvers too:"
                    + " handlerMethodFactory(converter, validator, customResolvers))");
        }
        // without @SendTo, a method declared to return messages sends them to their topics, as in spring-kafka
        boolean sends = replyTopic != null || replyToHeader || returnsMessages(handler.getMethod());
        this.replies = replyTemplate == null || !sends ? null : new ReplySender(listenerId, replyTopic,
                replyTopic != null || replyToHeader, replyTemplate, batch, existingTopic, splitIterables);
        this.handler = handler;
        this.converter = converter;
        this.batch = batch;
        this.batchMessages = batch ? new BatchMessages(handler.getMethod(), converter, listenerId) : null;
        if (batchMessages != null) {
            requireListHeaders(handler.getMethod(), listenerId, listenerInfo != null,
                    batchMessages.reportsConversionFailures());
        }
        this.payloadOnly = !batch && readsOnlyPayload(handler.getMethod());
        this.plainPayloadType = payloadOnly ? plainPayloadType(handler.getMethod()) : null;
        this.listenerId = listenerId;
        this.groupId = groupId;
        this.errorHandler = errorHandler;
        this.listenerInfo = listenerInfo;
    }

    @Override
    public @Nullable ConsumerSeekAware seekAware() {
        return handler.getBean() instanceof ConsumerSeekAware aware ? aware : null;
    }

    @Override
    public boolean isBatch() {
        return batch;
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment) throws Exception {
        onMessage(records, acknowledgment, 1);
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt)
            throws Exception {
        Message<?> message;
        Object plain = null;
        if (batchMessages != null) {
            message = batchMessages.build(records, listenerInfo == null
                    ? Map.of(KafkoHeaders.ACKNOWLEDGMENT, acknowledgment, KafkoHeaders.GROUP_ID, groupId,
                            KafkoHeaders.LISTENER_ID, listenerId)
                    : Map.of(KafkoHeaders.ACKNOWLEDGMENT, acknowledgment, KafkoHeaders.GROUP_ID, groupId,
                            KafkoHeaders.LISTENER_ID, listenerId, KafkoHeaders.LISTENER_INFO, listenerInfo));
        } else if (payloadOnly) {
            Message<Object> single = converter.toPayloadMessage(records.get(0));
            message = single;
            plain = plainPayloadType == null ? null : converter.plainPayload(single, plainPayloadType);
        } else {
            message = converter.toMessage(records.get(0), acknowledgment, groupId, listenerId, deliveryAttempt,
                    listenerInfo);
        }
        Object result;
        try {
            result = completed(plain == null ? handler.invoke(message) : handler.invoke(message, plain));
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Exception | Error e) {
            if (errorHandler == null || e instanceof StopCancellation) {
                throw e; // a stage the stop cancelled is no failure to handle: its record comes again
            }
            // a payload-only message lacks the received headers, which the handler may want
            Message<?> delivery = payloadOnly
                    ? converter.toMessage(records.get(0), acknowledgment, groupId, listenerId, deliveryAttempt,
                            listenerInfo)
                    : message;
            Method method = handler.getMethod();
            result = handleError(delivery, "Listener '" + listenerId + "' (" + method.getDeclaringClass().getSimpleName()
                    + "." + method.getName() + ") threw " + e, e);
        }
        reply(result, records);
    }

    /** The end of a wait that the member's stop cancelled past its shutdown timeout: no failure of the listener. */
    static final class StopCancellation extends CancellationException {
        private static final long serialVersionUID = 1L;

        StopCancellation(AwaitedStage awaited) {
            super("the container stopped past its shutdown timeout and cancelled the stage the listener returned;"
                    + " the records it was for are " + awaited.notCommittedAtCancel(false));
        }
    }

    /**
     * A record of a class-level listener that no handler takes ({@code failure}, a conversion error), handled
     * as this handler's own failure would be: by the listener's {@link KafkoListenerErrorHandler}, whose
     * result is sent as this handler's reply, else thrown.
     */
    public void onUndeliverable(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt,
                                Exception failure) throws Exception {
        if (errorHandler == null || batch) {
            throw failure;
        }
        reply(handleError(converter.toMessage(records.get(0), acknowledgment, groupId, listenerId, deliveryAttempt,
                listenerInfo),
                "Listener '" + listenerId + "' could not deliver the record: " + failure.getMessage(), failure), records);
    }

    private @Nullable Object handleError(Message<?> delivery, String what, Throwable e) throws Exception {
        return Objects.requireNonNull(errorHandler, "errorHandler")
                .handleError(delivery, new ListenerExecutionFailedException(what, e));
    }

    private void reply(@Nullable Object result, List<KafkoRecord> records) {
        if (result instanceof Optional<?> optional) {
            result = optional.orElse(null);
        }
        if (result != null && result.getClass().getName().equals(KOTLIN_UNIT)) {
            result = null; // Kotlin's "no value", as a suspend fun returning Unit sends nothing
        }
        if (result != null && replies != null) {
            replies.send(result, records);
        }
    }

    /**
     * The method's result, or, when it returned a {@link CompletionStage}, what the stage completes with:
     * the record counts as processed (and is committed) only then, and a stage that fails is a failure of
     * the method, thrown here with the stage's cause, so that it is retried and recovered as a throw is.
     * Waits on the polling thread; an interrupt while waiting fails the delivery (interrupt status kept). A stop that
     * overruns its shutdown timeout cancels the stage ({@link AwaitedStage}): a {@link CancellationException} then
     * ends the delivery, the record not committed. A stage that failed with a {@code CancellationException} of its own
     * (a subclass, or one with a message: a coroutine's {@code withTimeout}) fails with that very exception, as with any
     * failure, on every JDK (newer ones wrap it in {@code get()}); a bare one, which {@code cancel} leaves, fails with
     * an {@link IllegalStateException} that says the stage was cancelled.
     */
    static @Nullable Object completed(@Nullable Object result) throws Exception {
        if (result != null && !(result instanceof CompletionStage<?>) && REACTIVE_STREAMS) {
            CompletableFuture<Object> reactive = ReactiveReturns.toFuture(result);
            if (reactive != null) {
                result = reactive;
            }
        }
        if (!(result instanceof CompletionStage<?> stage)) {
            return result;
        }
        CompletableFuture<?> future = stage.toCompletableFuture();
        AwaitedStage awaited = AwaitedStage.current(); // null off a member's polling thread
        if (awaited != null) {
            // a stop that overruns its shutdown timeout cancels it (a Mono's subscription with it), so the member ends
            awaited.awaiting(() -> future.cancel(true));
        }
        try {
            return awaited == null ? future.get() : awaited.await(future);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null
                    ? c.getCause() : e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw e;
        } catch (CancellationException e) {
            if (awaited != null && awaited.cancelledByStop()) {
                throw new StopCancellation(awaited);
            }
            // what the stage itself failed with: get() throws it on JDK 17, but newer JDKs throw a new
            // CancellationException("get") whose cause it is, which would pass any cancellation for the listener's own
            Throwable own = future.handle((value, failure) -> failure).getNow(null);
            CancellationException stored = own instanceof CancellationException c ? c : e;
            if (stored.getClass() != CancellationException.class || stored.getMessage() != null) {
                // the stage failed with a cancellation of its own (a coroutine's withTimeout, a cancelled job): that
                // is the listener's failure, named as such in the dead letter, as spring-kafka names it
                throw stored;
            }
            throw new IllegalStateException("the CompletionStage the listener returned was cancelled", stored);
        } finally {
            if (awaited != null) {
                awaited.awaited();
            }
        }
    }

    /** Whether every argument is the payload: no headers, no message, no record, no acknowledgment. */
    static boolean readsOnlyPayload(Method method) {
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            Class<?> type = parameter.getParameterType();
            if (parameter.hasParameterAnnotation(Header.class) || parameter.hasParameterAnnotation(Headers.class)
                    || Message.class.isAssignableFrom(type) || MessageHeaders.class.isAssignableFrom(type)
                    || MessageHeaderAccessor.class.isAssignableFrom(type) || type == KafkoRecord.class
                    || type == Acknowledgment.class) {
                return false;
            }
        }
        return true;
    }

    /** {@code String} or {@code byte[]} when that is the type of the method's one, unannotated parameter. */
    static @Nullable Class<?> plainPayloadType(Method method) {
        if (method.getParameterCount() != 1 || method.getParameterAnnotations()[0].length != 0) {
            return null;
        }
        Class<?> type = method.getParameterTypes()[0];
        return type == String.class || type == byte[].class ? type : null;
    }

    /** The headers a batch listener receives as one list, an element per record. */
    private static final Set<String> LIST_HEADERS = Set.of(KafkoHeaders.RECEIVED_KEY, KafkoHeaders.RECEIVED_TOPIC,
            KafkoHeaders.RECEIVED_PARTITION, KafkoHeaders.OFFSET, KafkoHeaders.RECEIVED_TIMESTAMP);

    /** What the lists of the per-record headers hold (the keys' are converted to the element type declared). */
    private static final Map<String, Class<?>> LIST_HEADER_ELEMENTS = Map.of(KafkoHeaders.RECEIVED_TOPIC, String.class,
            KafkoHeaders.RECEIVED_PARTITION, Integer.class, KafkoHeaders.OFFSET, Long.class,
            KafkoHeaders.RECEIVED_TIMESTAMP, Long.class);

    /**
     * The headers of a batch listener's message: the per-record ones as lists, and those of the whole delivery.
     * A record's own headers (and its delivery attempt) are not among them.
     */
    private static final Set<String> BATCH_HEADERS = Set.of(KafkoHeaders.RECEIVED_KEY, KafkoHeaders.RECEIVED_TOPIC,
            KafkoHeaders.RECEIVED_PARTITION, KafkoHeaders.OFFSET, KafkoHeaders.RECEIVED_TIMESTAMP,
            KafkoHeaders.RAW_DATA, KafkoHeaders.ACKNOWLEDGMENT, KafkoHeaders.GROUP_ID, KafkoHeaders.LISTENER_ID,
            MessageHeaders.ID, MessageHeaders.TIMESTAMP);

    /**
     * Refuses a batch method that reads one of the per-record headers into a single value: it would
     * silently get the first record's, or fail on every batch; and one that requires a header a batch does
     * not carry, which would fail every batch (each record then dead-lettered or logged, unprocessed).
     */
    private static void requireListHeaders(Method method, String listenerId, boolean hasInfo,
                                           boolean hasConversionFailures) {
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            Header header = parameter.getParameterAnnotation(Header.class);
            if (header == null) {
                continue;
            }
            String name = header.value().isEmpty() ? header.name() : header.value();
            Class<?> type = parameter.getParameterType();
            if (LIST_HEADERS.contains(name) && !List.class.isAssignableFrom(type) && type != Object.class) {
                throw new IllegalStateException("Batch listener '" + listenerId + "' (" + method + ") reads @Header(\""
                        + name + "\") as a " + type.getSimpleName() + "; a batch has one per record: declare a List");
            }
            Class<?> holds = LIST_HEADER_ELEMENTS.get(name);
            if (holds != null && List.class.isAssignableFrom(type)) {
                // the header resolver hands the list over as it is, unconverted: a List<Instant> of timestamps
                // would hold Longs, and fail with a ClassCastException in the method, every batch dead-lettered
                Class<?> element = ResolvableType.forMethodParameter(parameter).asCollection().getGeneric(0).resolve();
                if (element != null && !element.isAssignableFrom(holds)) {
                    throw new IllegalStateException("Batch listener '" + listenerId + "' (" + method
                            + ") reads @Header(\"" + name + "\") as a List<" + element.getSimpleName()
                            + ">; a batch gives it as a List<" + holds.getSimpleName() + ">: declare that");
                }
            }
            boolean required = header.required() && ValueConstants.DEFAULT_NONE.equals(header.defaultValue())
                    && !parameter.isOptional();
            // a name left to a placeholder or an expression is resolved at each call: not judged here
            boolean resolvedLater = name.contains("${") || name.contains("#{");
            if (required && !name.isEmpty() && !resolvedLater && !BATCH_HEADERS.contains(name)
                    && !(hasInfo && name.equals(KafkoHeaders.LISTENER_INFO))
                    && !(hasConversionFailures && name.equals(KafkoHeaders.CONVERSION_FAILURES))) {
                throw new IllegalStateException("Batch listener '" + listenerId + "' (" + method + ") requires @Header(\""
                        + name + "\"), which a batch does not carry" + (name.equals(KafkoHeaders.CONVERSION_FAILURES)
                        ? ": only a List<T> payload's records are converted one by one, a failure reported there (a"
                        + " List<KafkoRecord> is not converted; a List<Message<T>> record that does not convert fails"
                        + " the batch, as in spring-kafka)"
                        : " (a record's own headers and its delivery attempt are per record): take a List<Message<?>> or"
                        + " List<KafkoRecord> payload to read them, or declare the header required = false"));
            }
        }
    }

    /**
     * Whether the method is declared to return a {@code Message} or a {@code Collection} of them: spring-kafka's
     * test ({@code KafkaUtils.returnTypeMessageOrCollectionOf}) of a method without {@code @SendTo} whose results
     * are sent to the topics the messages name.
     */
    static boolean returnsMessages(Method method) {
        Type type = method.getGenericReturnType();
        if (type instanceof ParameterizedType parameterized && parameterized.getRawType() == Collection.class) {
            Type element = parameterized.getActualTypeArguments()[0];
            return element == Message.class
                    || element instanceof ParameterizedType p && p.getRawType() == Message.class;
        }
        return type == Message.class || type instanceof ParameterizedType p && p.getRawType() == Message.class;
    }
}
