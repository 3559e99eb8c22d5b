package dev.kafko.spring.listener.adapter;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.support.KafkoNull;
import dev.kafko.spring.support.RecordMessageConverter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.converter.ConditionalGenericConverter;
import org.springframework.core.convert.converter.Converter;
import org.springframework.core.convert.support.DefaultConversionService;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.MessageMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.PayloadMethodArgumentResolver;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.messaging.support.GenericMessage;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.util.NumberUtils;
import org.springframework.validation.Validator;

/**
 * Builds the {@link MessageHandlerMethodFactory} that resolves {@code @KafkoListener} method
 * arguments: spring-messaging's resolvers ({@code @Payload}, {@code @Header}, {@code @Headers},
 * {@code Message<?>}) plus resolvers for {@link KafkoRecord} and {@link Acknowledgment}, payloads
 * converted by the given converter, header bytes read as UTF-8 text on demand: as a {@code String},
 * or parsed into a simple value type ({@code int}, {@code Long}, {@code UUID}, an enum...) by the
 * conversion service.
 */
public final class KafkoArgumentResolvers {

    /** The type of the parameter the Kotlin compiler adds to a suspend function, last. */
    private static final String CONTINUATION = "kotlin.coroutines.Continuation";

    private KafkoArgumentResolvers() {
    }

    /**
     * @param validator validates {@code @Valid}/{@code @Validated} payloads, when given
     */
    public static MessageHandlerMethodFactory handlerMethodFactory(RecordMessageConverter converter,
                                                                   @Nullable Validator validator) {
        return handlerMethodFactory(converter, validator, List.of());
    }

    /**
     * The factory with the application's own argument resolvers too, as spring-kafka's
     * {@code KafkaMessageHandlerMethodFactory.setCustomArgumentResolvers}: for the {@code kafkoHandlerMethodFactory}
     * bean of an application whose listeners take parameters of its own kinds. They are asked after kafko's own
     * ({@link KafkoRecord}, {@link Acknowledgment}) and Spring's annotated ones ({@code @Header}, {@code @Headers},
     * {@code Message}), before the payload's, which takes any parameter left; what one of them throws fails the
     * record as an argument that cannot be built, as a failure of kafko's own resolvers does. Kotlin suspend
     * functions run with them: a factory of the application's own making (a {@link DefaultMessageHandlerMethodFactory})
     * cannot run those, and their listeners fail start-up. The resolvers are fixed once the factory is made: a later
     * {@code setCustomArgumentResolvers} or {@code setArgumentResolvers} on it throws.
     *
     * @param validator validates {@code @Valid}/{@code @Validated} payloads, when given
     * @param customResolvers the application's resolvers, in the order they are asked
     */
    public static MessageHandlerMethodFactory handlerMethodFactory(
            RecordMessageConverter converter, @Nullable Validator validator,
            List<? extends HandlerMethodArgumentResolver> customResolvers) {
        List<HandlerMethodArgumentResolver> own = new ArrayList<>();
        for (HandlerMethodArgumentResolver resolver : customResolvers) {
            own.add(Objects.requireNonNull(resolver, "a custom argument resolver is null"));
        }
        return factory(converter.messageConverter(), headerConversion(converter), validator, List.copyOf(own));
    }

    /**
     * The factory {@code methods} is, with payloads converted by {@code payloads} (a listener's
     * {@code contentTypeConverter} before the converter it had) and everything else as it was: its validator, its
     * custom resolvers and its header conversion.
     *
     * @param listener names the listener in the error
     * @throws IllegalStateException when {@code methods} is not one {@link #handlerMethodFactory} made: a factory of
     *     the application's own making converts payloads its own way
     */
    public static MessageHandlerMethodFactory withPayloads(MessageHandlerMethodFactory methods,
                                                           RecordMessageConverter payloads, String listener) {
        if (!(methods instanceof FailureMarkingFactory made)) {
            throw new IllegalStateException(listener + " has a contentTypeConverter, but the context's"
                    + " MessageHandlerMethodFactory is a " + methods.getClass().getName() + ", which converts"
                    + " payloads its own way: make it with KafkoArgumentResolvers.handlerMethodFactory (which takes"
                    + " your own argument resolvers too), or drop the contentTypeConverter");
        }
        return factory(payloads.messageConverter(), made.headerConversion, made.validator, made.customResolvers);
    }

    private static FailureMarkingFactory factory(SmartMessageConverter payloads, ConversionService headerConversion,
                                                 @Nullable Validator validator,
                                                 List<HandlerMethodArgumentResolver> customResolvers) {
        FailureMarkingFactory factory = new FailureMarkingFactory(payloads, headerConversion, validator,
                customResolvers);
        factory.setConversionService(headerConversion);
        factory.setMessageConverter(payloads);
        if (validator != null) {
            factory.setValidator(validator);
        }
        List<HandlerMethodArgumentResolver> custom = new ArrayList<>();
        custom.add(new HeaderValueResolver(KafkoRecord.class, KafkoHeaders.RAW_DATA));
        custom.add(new HeaderValueResolver(Acknowledgment.class, KafkoHeaders.ACKNOWLEDGMENT));
        custom.addAll(customResolvers);
        factory.setCustomArgumentResolvers(custom);
        factory.afterPropertiesSet();
        return factory;
    }

    /** Whether the method's last parameter is the compiler's {@code Continuation}: a Kotlin suspend function. */
    static boolean isSuspendFunction(Method method) {
        Class<?>[] types = method.getParameterTypes();
        return types.length > 0 && types[types.length - 1].getName().equals(CONTINUATION);
    }

    /** Whether this is the {@code Continuation} parameter of a suspend function, which carries no part of a record. */
    static boolean isContinuation(MethodParameter parameter) {
        return parameter.getParameterType().getName().equals(CONTINUATION);
    }

    /**
     * Converts header bytes to what a parameter declares: a {@code String} (UTF-8), a simple value type parsed
     * from that text ({@code int}, {@code UUID}, an enum...), or anything else (an object key, an
     * {@code Instant}, a {@code List<String>} with its element type) read as JSON by {@code converter}, as the
     * template wrote it.
     */
    public static ConversionService headerConversion(RecordMessageConverter converter) {
        DefaultConversionService conversion = new DefaultConversionService();
        conversion.addConverter(new BytesToString());
        conversion.addConverter(new EpochMillisToTime(converter.messageConverter(), conversion));
        conversion.addConverter(new BytesToSimpleValue(conversion));
        conversion.addConverter(new BytesToObject(converter.messageConverter(), conversion));
        conversion.addConverter(new BytesToJsonContainer(converter.messageConverter()));
        return conversion;
    }

    /**
     * Spring's factory whose resolvers report every failure (a missing header as much as an
     * unreadable payload) as a {@link MethodArgumentResolutionException}, so the error handler can
     * tell "the arguments cannot be built" (retrying will not help) from "the method threw". Its payload
     * and message resolvers take only a tombstone ({@link KafkoNull}) for a missing payload: Spring's
     * also refuse an empty {@code byte[]} or {@code String}, a record value like any other here.
     */
    private static final class FailureMarkingFactory extends DefaultMessageHandlerMethodFactory {

        private final MessageConverter converter;
        private final ConversionService headerConversion;
        private final @Nullable Validator validator;
        /** The application's own resolvers, asked before the payload's. */
        private final List<HandlerMethodArgumentResolver> customResolvers;
        /** The resolvers {@link #initArgumentResolvers} made, for the handlers of suspend functions. */
        private List<HandlerMethodArgumentResolver> resolvers = List.of();
        /** Whether {@link #initArgumentResolvers} ran: the resolvers are fixed from then on. */
        private boolean initialised;

        FailureMarkingFactory(MessageConverter converter, ConversionService headerConversion,
                              @Nullable Validator validator, List<HandlerMethodArgumentResolver> customResolvers) {
            this.converter = converter;
            this.headerConversion = headerConversion;
            this.validator = validator;
            this.customResolvers = customResolvers;
        }

        @Override
        protected List<HandlerMethodArgumentResolver> initArgumentResolvers() {
            List<HandlerMethodArgumentResolver> resolvers = new ArrayList<>();
            for (HandlerMethodArgumentResolver resolver : super.initArgumentResolvers()) {
                resolvers.add(new FailureMarkingResolver(tombstoneAware(resolver)));
            }
            this.resolvers = List.copyOf(resolvers);
            initialised = true;
            return resolvers;
        }

        /**
         * Refused once the resolvers are made, which Spring's factory would ignore without a word (the handlers of
         * suspend functions among those that would never see them).
         */
        @Override
        public void setCustomArgumentResolvers(List<HandlerMethodArgumentResolver> customArgumentResolvers) {
            if (initialised) {
                throw new IllegalStateException("kafko's MessageHandlerMethodFactory has its argument resolvers"
                        + " already, and takes no custom ones now: pass them to"
                        + " KafkoArgumentResolvers.handlerMethodFactory(converter, validator, customResolvers)");
            }
            super.setCustomArgumentResolvers(customArgumentResolvers);
        }

        /**
         * Refused: it would come after kafko's resolvers, the payload's among them, which takes any parameter (or,
         * before, in place of them all).
         */
        @Override
        public void setArgumentResolvers(@Nullable List<HandlerMethodArgumentResolver> argumentResolvers) {
            throw new IllegalStateException("kafko's MessageHandlerMethodFactory keeps its own argument resolvers: pass"
                    + " yours to KafkoArgumentResolvers.handlerMethodFactory(converter, validator, customResolvers),"
                    + " which asks them before the payload's");
        }

        /**
         * Spring's handler, or, for a Kotlin suspend function, one that runs it as a coroutine and returns its
         * {@code Mono} ({@link SuspendFunctionHandler}): invoked as a plain method, the compiler's
         * {@code Continuation} parameter was taken for the payload and every record failed unrun.
         */
        @Override
        public InvocableHandlerMethod createInvocableHandlerMethod(Object bean, Method method) {
            if (isSuspendFunction(method)) {
                return SuspendFunctionHandler.of(bean, method, resolvers);
            }
            return super.createInvocableHandlerMethod(bean, method);
        }

        private HandlerMethodArgumentResolver tombstoneAware(HandlerMethodArgumentResolver resolver) {
            if (resolver.getClass() == PayloadMethodArgumentResolver.class) {
                return new PayloadMethodArgumentResolver(converter, validator) {
                    @Override
                    protected boolean isEmptyPayload(@Nullable Object payload) {
                        return isTombstone(payload);
                    }
                };
            }
            if (resolver.getClass() == MessageMethodArgumentResolver.class) {
                return new MessageMethodArgumentResolver(converter) {
                    @Override
                    protected boolean isEmptyPayload(@Nullable Object payload) {
                        return isTombstone(payload);
                    }
                };
            }
            return resolver;
        }

        private static boolean isTombstone(@Nullable Object payload) {
            return payload == null || payload instanceof KafkoNull;
        }
    }

    /** Rethrows a resolver's failure as a {@link MethodArgumentResolutionException}. */
    private record FailureMarkingResolver(HandlerMethodArgumentResolver delegate)
            implements HandlerMethodArgumentResolver {

        @Override
        public boolean supportsParameter(MethodParameter parameter) {
            return delegate.supportsParameter(parameter);
        }

        @Override
        public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) throws Exception {
            try {
                return delegate.resolveArgument(parameter, message);
            } catch (MethodArgumentResolutionException | MessageConversionException e) {
                throw e;
            } catch (Exception e) {
                throw new MethodArgumentResolutionException(message, parameter,
                        headerName(parameter) + String.valueOf(e.getMessage()), e);
            }
        }

        /** "header 'name': " for a {@code @Header} parameter, so that the failure names what Spring's names by index. */
        private static String headerName(MethodParameter parameter) {
            Header header = parameter.getParameterAnnotation(Header.class);
            if (header == null) {
                return "";
            }
            String name = !header.name().isEmpty() ? header.name()
                    : !header.value().isEmpty() ? header.value() : parameter.getParameterName();
            return "header '" + name + "': ";
        }
    }

    /** Header values are bytes; a {@code @Header String} parameter reads them as UTF-8. */
    private static final class BytesToString implements Converter<byte[], String> {
        @Override
        public String convert(byte[] source) {
            return new String(source, StandardCharsets.UTF_8);
        }
    }

    /**
     * An epoch-milliseconds number to a point in time, as Spring's formatting conversion (and so spring-kafka) reads
     * a {@code Long}: kafko's received timestamp (a {@code Long}), and header bytes that are a bare integer (the
     * dead-letter headers' original timestamp, a {@code long} or {@code Long} header the template wrote), to an
     * {@code Instant}, an {@code OffsetDateTime} or {@code ZonedDateTime} (UTC) or a {@code Date}. Read as JSON, the
     * number was taken for epoch seconds (a date some 57,000 years on), and a {@code Long} had no converter. Bytes
     * of any other form are read as before: as text where a text converter parses the type (a {@code Date}'s own
     * {@code toString()} form), else, or when that fails, as JSON (the quoted ISO text the template writes for an
     * {@code Instant} or a {@code Date}). Only these four types: a subclass ({@code java.sql.Timestamp}) is left to
     * the other converters, as a {@code Date} returned for it failed the call with a bare "argument type mismatch".
     */
    private record EpochMillisToTime(SmartMessageConverter json, ConversionService conversion)
            implements ConditionalGenericConverter {

        /** A bare integer that a {@code long} holds: epoch milliseconds. */
        private static final Pattern EPOCH_MILLIS = Pattern.compile("-?[0-9]{1,18}");
        private static final List<Class<?>> TARGETS = List.of(Instant.class, OffsetDateTime.class,
                ZonedDateTime.class, Date.class);

        @Override
        public Set<ConvertiblePair> getConvertibleTypes() {
            Set<ConvertiblePair> pairs = new HashSet<>();
            for (Class<?> target : TARGETS) {
                pairs.add(new ConvertiblePair(Long.class, target));
                pairs.add(new ConvertiblePair(byte[].class, target));
            }
            return pairs;
        }

        @Override
        public boolean matches(TypeDescriptor sourceType, TypeDescriptor targetType) {
            return TARGETS.contains(targetType.getObjectType());
        }

        @Override
        public @Nullable Object convert(@Nullable Object source, TypeDescriptor sourceType, TypeDescriptor targetType) {
            if (source == null) {
                return null;
            }
            Class<?> target = targetType.getObjectType();
            long millis;
            if (source instanceof Long value) {
                millis = value;
            } else {
                String text = new String((byte[]) source, StandardCharsets.UTF_8).strip();
                if (!EPOCH_MILLIS.matcher(text).matches()) {
                    if (!BytesToSimpleValue.parsesFromText(targetType, conversion)) {
                        return BytesToObject.read(json, (byte[]) source, target);
                    }
                    try {
                        return conversion.convert(text, BytesToSimpleValue.TEXT, targetType);
                    } catch (ConversionException asText) {
                        try {
                            return BytesToObject.read(json, (byte[]) source, target);
                        } catch (RuntimeException asJson) {
                            asText.addSuppressed(asJson);
                            throw asText;
                        }
                    }
                }
                millis = Long.parseLong(text);
            }
            Instant instant = Instant.ofEpochMilli(millis);
            if (target == Instant.class) {
                return instant;
            }
            if (target == OffsetDateTime.class) {
                return instant.atOffset(ZoneOffset.UTC);
            }
            if (target == ZonedDateTime.class) {
                return instant.atZone(ZoneOffset.UTC);
            }
            return Date.from(instant);
        }
    }

    /** A converter of header bytes to the types it {@link #matches}. */
    private interface FromHeaderBytes extends ConditionalGenericConverter {
        @Override
        default Set<ConvertiblePair> getConvertibleTypes() {
            return Set.of(new ConvertiblePair(byte[].class, Object.class));
        }
    }

    /**
     * Header bytes to a simple value type other than text (numbers, booleans, enums, UUIDs...): the
     * bytes are read as UTF-8 and the text converted by {@code conversion}. Collections, arrays and
     * {@code Object} are left to the other converters ({@link BytesToJsonContainer}, Spring's own).
     */
    private record BytesToSimpleValue(ConversionService conversion) implements FromHeaderBytes {

        static final TypeDescriptor TEXT = TypeDescriptor.valueOf(String.class);

        @Override
        public boolean matches(TypeDescriptor sourceType, TypeDescriptor targetType) {
            return parsesFromText(targetType, conversion);
        }

        /**
         * Whether {@code targetType} is a simple value type other than text that {@code conversion} parses. Of the
         * numbers, only those Spring's text conversion parses ({@code int} to {@code BigDecimal}): it claims every
         * {@code Number} and fails on the others ({@code AtomicLong}), whose text is also their JSON.
         */
        static boolean parsesFromText(TypeDescriptor targetType, ConversionService conversion) {
            Class<?> target = targetType.getObjectType();
            return target != Object.class && !CharSequence.class.isAssignableFrom(target)
                    && BeanUtils.isSimpleValueType(target)
                    && (!Number.class.isAssignableFrom(target) || NumberUtils.STANDARD_NUMBER_TYPES.contains(target))
                    && conversion.canConvert(TEXT, targetType);
        }

        @Override
        public @Nullable Object convert(@Nullable Object source, TypeDescriptor sourceType, TypeDescriptor targetType) {
            if (source == null) {
                return null;
            }
            String text = new String((byte[]) source, StandardCharsets.UTF_8).strip();
            return conversion.convert(text, TEXT, targetType);
        }
    }

    /**
     * Header bytes to an object of the application's (an object key above all, which the template
     * wrote as JSON), or to a value type no text converter parses ({@code Instant}, {@code LocalDate},
     * {@code Duration}: the template wrote those as JSON too): read as a payload would be, by the record
     * converter. Text, the simple values {@link BytesToSimpleValue} parses, arrays, collections, maps,
     * {@code Optional} and {@code Object} are left to the other converters.
     */
    private record BytesToObject(SmartMessageConverter json, ConversionService conversion) implements FromHeaderBytes {

        @Override
        public boolean matches(TypeDescriptor sourceType, TypeDescriptor targetType) {
            Class<?> target = targetType.getObjectType();
            // an Optional is Spring's ObjectToOptionalConverter's, which converts to the type within: read here
            // as JSON of a raw Optional, an Optional<Order> held a LinkedHashMap
            return target != Object.class && target != Optional.class && !target.isArray()
                    && !CharSequence.class.isAssignableFrom(target)
                    && !BytesToSimpleValue.parsesFromText(targetType, conversion)
                    && !Collection.class.isAssignableFrom(target) && !Map.class.isAssignableFrom(target);
        }

        @Override
        public @Nullable Object convert(@Nullable Object source, TypeDescriptor sourceType, TypeDescriptor targetType) {
            if (source == null) {
                return null;
            }
            return read(json, (byte[]) source, targetType.getObjectType());
        }

        static Object read(SmartMessageConverter json, byte[] source, Class<?> target) {
            return read(json, source, target, null);
        }

        /** {@link #read(SmartMessageConverter, byte[], Class)} with the converter's hint at the generic type. */
        static Object read(SmartMessageConverter json, byte[] source, Class<?> target, @Nullable Object hint) {
            Object value = json.fromMessage(new GenericMessage<>(source), target, hint);
            if (value == null) {
                throw new IllegalArgumentException("no converter reads the header's " + source.length
                        + " bytes as a " + target.getName()
                        + " (objects are read as JSON, with Jackson on the classpath)");
            }
            return value;
        }
    }

    /**
     * Header bytes to a collection, a map or an array (but {@code byte[]} and {@code Byte[]}), read as the JSON
     * the template writes for one, with the element types the parameter declares ({@code List<String>},
     * {@code Map<String, OrderId>}). Spring's own converters took the bytes themselves for the elements: a
     * {@code List<String>} header sent as {@code List.of("a", "b")} arrived as the numbers of its JSON's bytes.
     */
    private record BytesToJsonContainer(SmartMessageConverter json) implements FromHeaderBytes {

        @Override
        public boolean matches(TypeDescriptor sourceType, TypeDescriptor targetType) {
            Class<?> target = targetType.getObjectType();
            return Collection.class.isAssignableFrom(target) || Map.class.isAssignableFrom(target)
                    || target.isArray() && target != byte[].class && target != Byte[].class;
        }

        @Override
        public @Nullable Object convert(@Nullable Object source, TypeDescriptor sourceType, TypeDescriptor targetType) {
            if (source == null) {
                return null;
            }
            return BytesToObject.read(json, (byte[]) source, targetType.getObjectType(), hint(targetType));
        }

        /**
         * What tells the JSON converter the element types: the parameter declared, from which any Jackson converter
         * of Spring's reads them; else (the {@code List<T>} within an {@code Optional<List<T>>}, which Spring's
         * Optional converter describes by its type, no parameter) that type, which kafko's converter reads.
         */
        private static Object hint(TypeDescriptor targetType) {
            ResolvableType declared = targetType.getResolvableType();
            return declared.getSource() instanceof MethodParameter parameter ? parameter : declared;
        }
    }

    /** Resolves a parameter of one type from one message header. */
    private record HeaderValueResolver(Class<?> type, String header) implements HandlerMethodArgumentResolver {

        @Override
        public boolean supportsParameter(MethodParameter parameter) {
            return parameter.getParameterType() == type;
        }

        @Override
        public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) {
            Object value = message.getHeaders().get(header);
            if (value == null || !type.isInstance(value)) {
                throw new IllegalStateException("Parameter " + parameter.getParameterIndex() + " of "
                        + parameter.getMethod() + " wants a " + type.getSimpleName()
                        + ", which this delivery does not offer" + (type == KafkoRecord.class
                        ? " (batch listeners take List<KafkoRecord>)" : ""));
            }
            return value;
        }
    }
}
