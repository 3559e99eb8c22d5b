package dev.kafko.spring.listener.adapter;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.listener.ConsumerSeekAware;
import dev.kafko.spring.listener.KafkoMessageListener;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.support.MessageHeaderAccessor;
import org.springframework.util.ClassUtils;

/**
 * Delivers each record of a class-level {@code @KafkoListener} to one of its {@code @KafkoHandler} methods,
 * chosen by the class of the record's payload (see {@link dev.kafko.spring.annotation.KafkoHandler}): the
 * class its {@link KafkoHeaders#TYPE} header names, loaded without being initialized and used only to pick
 * the handler (the handler's converter decides what is built, as for any listener); {@code String}, then
 * {@code byte[]}, for a record without that header; {@code @Payload(required = false)} for a tombstone.
 * The choice per named class is remembered. A record no handler takes goes to the default handler, or
 * fails with a {@link MessageConversionException} (no retries). Called only on a member's polling thread;
 * the handlers' adapters keep no per-call state.
 */
public final class DelegatingMessageListenerAdapter implements KafkoMessageListener {

    /** One handler: its method's payload type and the adapter that invokes it. */
    public record Delegate(Method method, boolean isDefault, KafkoMessageListener adapter) {
    }

    private record Candidate(Delegate delegate, @Nullable Class<?> payloadType, boolean optionalPayload) {
    }

    private final String listenerId;
    private final List<Candidate> candidates;
    private final @Nullable Delegate defaultDelegate;
    private final @Nullable Object bean;
    private final @Nullable ClassLoader classLoader;
    /** The delegate for each class a type header named (a class loaded once, so the map stays small). */
    private final Map<Class<?>, Delegate> byClass = new ConcurrentHashMap<>();

    /**
     * @param bean the listener bean (for {@link ConsumerSeekAware})
     * @throws IllegalArgumentException when there is no delegate or more than one default
     */
    public DelegatingMessageListenerAdapter(String listenerId, Object bean, List<Delegate> delegates,
                                            @Nullable ClassLoader classLoader) {
        if (delegates.isEmpty()) {
            throw new IllegalArgumentException("Listener '" + listenerId + "' has no @KafkoHandler methods");
        }
        this.listenerId = listenerId;
        this.bean = bean;
        this.classLoader = classLoader;
        List<Candidate> list = new ArrayList<>();
        Delegate dflt = null;
        for (Delegate d : delegates) {
            if (d.isDefault()) {
                if (dflt != null) {
                    throw new IllegalArgumentException("Listener '" + listenerId + "' has two default @KafkoHandler"
                            + " methods: " + dflt.method() + " and " + d.method());
                }
                dflt = d;
            }
            MethodParameter payload = payloadParameter(d.method());
            list.add(new Candidate(d, payload == null ? null : payloadType(payload), payload != null
                    && payload.hasParameterAnnotation(Payload.class)
                    && !payload.getParameterAnnotation(Payload.class).required()));
        }
        refuseTies(listenerId, list);
        this.candidates = List.copyOf(list);
        this.defaultDelegate = dflt;
    }

    /**
     * Two handlers no record can be told apart for (dispatch is by the payload's class, so {@code Envelope<A>}
     * and {@code Envelope<B>} are one type), or two for tombstones: one of them would never be called, or get
     * records of the other's type.
     */
    private static void refuseTies(String listenerId, List<Candidate> list) {
        for (int i = 0; i < list.size(); i++) {
            for (int j = i + 1; j < list.size(); j++) {
                Candidate a = list.get(i);
                Candidate b = list.get(j);
                // (a default handler of a type another takes still gets what no class names: records without
                // a type header, or of classes not on the class path)
                boolean sameType = a.payloadType() != null && a.payloadType() == b.payloadType()
                        && !a.delegate().isDefault() && !b.delegate().isDefault();
                if (sameType || (a.optionalPayload() && b.optionalPayload())) {
                    throw new IllegalArgumentException("Listener '" + listenerId + "': @KafkoHandler methods "
                            + a.delegate().method().getName() + " and " + b.delegate().method().getName() + " both take "
                            + (sameType ? "a payload of " + a.payloadType().getName() + " (records are dispatched by"
                            + " their payload's class, type arguments aside)" : "tombstones (@Payload(required = false))")
                            + ": no record could tell them apart");
                }
            }
        }
    }

    @Override
    public @Nullable ConsumerSeekAware seekAware() {
        return bean instanceof ConsumerSeekAware aware ? aware : null;
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment) throws Exception {
        onMessage(records, acknowledgment, 1);
    }

    @Override
    public void onMessage(List<KafkoRecord> records, Acknowledgment acknowledgment, int deliveryAttempt)
            throws Exception {
        Delegate delegate;
        try {
            delegate = delegateFor(records.get(0));
        } catch (MessageConversionException e) {
            // as a payload that could not be converted: the listener's error handler, if it has one, sees it
            if (candidates.get(0).delegate().adapter() instanceof MessagingMessageListenerAdapter first) {
                first.onUndeliverable(records, acknowledgment, deliveryAttempt, e);
                return;
            }
            throw e;
        }
        delegate.adapter().onMessage(records, acknowledgment, deliveryAttempt);
    }

    /** The handler the record goes to. */
    Delegate delegateFor(KafkoRecord record) {
        if (record.value() == null) {
            for (Candidate c : candidates) {
                if (c.optionalPayload()) {
                    return c.delegate();
                }
            }
            return orDefault(record, "a tombstone (no handler has @Payload(required = false))");
        }
        byte[] typeHeader = record.headers().lastValue(KafkoHeaders.TYPE);
        if (typeHeader == null) {
            // sent as it is: text, or bytes (a byte[] or a ByteBuffer)
            Delegate d = exact(String.class);
            d = d != null ? d : exact(byte[].class);
            d = d != null ? d : exact(ByteBuffer.class);
            return d != null ? d : orDefault(record, "a record without a " + KafkoHeaders.TYPE + " header (no"
                    + " handler takes a String, a byte[] or a ByteBuffer)");
        }
        String name = new String(typeHeader, StandardCharsets.UTF_8);
        Class<?> type = load(name);
        if (type == null) {
            return orDefault(record, "a record of " + name + ", which is not on the class path");
        }
        Delegate known = byClass.get(type);
        if (known != null) {
            return known;
        }
        Delegate chosen = mostSpecific(type);
        if (chosen == null) {
            chosen = orDefault(record, "a payload of " + type.getName());
        }
        byClass.put(type, chosen);
        return chosen;
    }

    private @Nullable Delegate exact(Class<?> type) {
        for (Candidate c : candidates) {
            if (c.payloadType() == type) {
                return c.delegate();
            }
        }
        return null;
    }

    /**
     * The handler whose payload type takes {@code type} and is a subtype of every other such handler's (a
     * default handler counts only when it is the only one that takes it); null when none takes it.
     *
     * @throws MessageConversionException when two handlers take it and neither is more specific
     */
    private @Nullable Delegate mostSpecific(Class<?> type) {
        List<Candidate> taking = new ArrayList<>();
        for (Candidate c : candidates) {
            if (c.payloadType() != null && c.payloadType().isAssignableFrom(type)) {
                taking.add(c);
            }
        }
        if (taking.size() > 1) {
            taking.removeIf(c -> c.delegate().isDefault());
        }
        Candidate best = null;
        for (Candidate c : taking) {
            if (best == null || best.payloadType().isAssignableFrom(c.payloadType())) {
                best = c;
            }
        }
        for (Candidate c : taking) {
            if (c != best && !c.payloadType().isAssignableFrom(best.payloadType())) {
                throw new MessageConversionException("Listener '" + listenerId + "': a payload of " + type.getName()
                        + " is taken by two @KafkoHandler methods, neither more specific than the other: "
                        + best.delegate().method() + " and " + c.delegate().method());
            }
        }
        return best == null ? null : best.delegate();
    }

    private Delegate orDefault(KafkoRecord record, String what) {
        if (defaultDelegate != null) {
            return defaultDelegate;
        }
        List<String> takes = new ArrayList<>();
        for (Candidate c : candidates) {
            takes.add(c.payloadType() == null ? "(no payload)" : c.payloadType().getSimpleName());
        }
        throw new MessageConversionException("Listener '" + listenerId + "' has no @KafkoHandler for " + what + " ("
                + record.topic() + "-" + record.partition() + "@" + record.offset() + "); its handlers take " + takes
                + " and none is @KafkoHandler(isDefault = true)");
    }

    /** The class named, without initializing it; null when there is none of that name. */
    private @Nullable Class<?> load(String name) {
        try {
            return ClassUtils.forName(name, classLoader);
        } catch (ClassNotFoundException | LinkageError | IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The method's payload parameter: the one annotated {@code @Payload}, else the first that is no header,
     * acknowledgment, record, message metadata or a suspend function's {@code Continuation}; a {@code Message<T>}
     * parameter stands for its {@code T}.
     */
    static @Nullable MethodParameter payloadParameter(Method method) {
        MethodParameter first = null;
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            if (parameter.hasParameterAnnotation(Payload.class)) {
                return parameter;
            }
            Class<?> type = parameter.getParameterType();
            if (first == null && !parameter.hasParameterAnnotation(Header.class)
                    && !parameter.hasParameterAnnotation(Headers.class) && type != Acknowledgment.class
                    && type != KafkoRecord.class && !MessageHeaders.class.isAssignableFrom(type)
                    && !MessageHeaderAccessor.class.isAssignableFrom(type)
                    && !KafkoArgumentResolvers.isContinuation(parameter)) {
                first = parameter;
            }
        }
        return first;
    }

    private static Class<?> payloadType(MethodParameter parameter) {
        Class<?> type = parameter.getParameterType();
        if (Message.class.isAssignableFrom(type)) {
            Class<?> payload = ResolvableType.forMethodParameter(parameter).as(Message.class).resolveGeneric(0);
            return payload == null ? Object.class : payload;
        }
        return ClassUtils.resolvePrimitiveIfNecessary(type);
    }
}
