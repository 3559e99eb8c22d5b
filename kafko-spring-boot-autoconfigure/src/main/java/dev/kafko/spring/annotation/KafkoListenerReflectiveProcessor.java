package dev.kafko.spring.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.MessageMappingReflectiveProcessor;

/**
 * Internal: the hints ahead-of-time processing registers for a {@link KafkoListener} or {@link KafkoHandler}
 * method, for a native image. Those of a {@code @MessageMapping} method (as spring-kafka's annotations get
 * them): the method for invocation, its payload and reply types for JSON binding. And the permitted
 * subclasses of every sealed type among those: a record's {@link dev.kafko.spring.support.KafkoHeaders#TYPE}
 * header names its own class, which the converter loads by name and reads the JSON as. And the exception classes
 * a {@link RetryableTopic} on the method names by {@code includeNames} and {@code excludeNames}, which the start
 * loads by name (a placeholder is resolved only at run time, so a class it names is not registered). Called by
 * Spring's ahead-of-time processing, on the build's thread.
 */
final class KafkoListenerReflectiveProcessor extends MessageMappingReflectiveProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    protected void registerMethodHints(ReflectionHints hints, Method method) {
        super.registerMethodHints(hints, method);
        RetryableTopic retryable = AnnotatedElementUtils.findMergedAnnotation(method, RetryableTopic.class);
        if (retryable != null) {
            ClassLoader classLoader = method.getDeclaringClass().getClassLoader();
            for (String[] names : List.of(retryable.includeNames(), retryable.excludeNames())) {
                for (String name : names) {
                    hints.registerTypeIfPresent(classLoader, name.strip(), hint -> { });
                }
            }
        }
    }

    @Override
    protected void registerParameterHints(ReflectionHints hints, Method method) {
        super.registerParameterHints(hints, method);
        for (int i = 0; i < method.getParameterCount(); i++) {
            MethodParameter parameter = new MethodParameter(method, i);
            if (Message.class.isAssignableFrom(parameter.getParameterType()) || couldBePayload(parameter)) {
                registerSealedSubclasses(hints, ResolvableType.forMethodParameter(parameter), new HashSet<>());
            }
        }
    }

    @Override
    protected void registerReturnValueHints(ReflectionHints hints, Method method) {
        super.registerReturnValueHints(hints, method);
        registerSealedSubclasses(hints, ResolvableType.forMethodReturnType(method), new HashSet<>());
    }

    /**
     * The permitted subclasses of {@code type} and of its type arguments ({@code List<Event>}), at every depth; each
     * type is walked once ({@code seen}), so a type variable bounded by itself ({@code T extends Comparable<T>}) ends.
     */
    private void registerSealedSubclasses(ReflectionHints hints, ResolvableType type, Set<Type> seen) {
        if (!seen.add(type.getType())) {
            return;
        }
        Class<?> raw = type.resolve();
        if (raw != null && raw.isSealed()) {
            for (Class<?> subclass : raw.getPermittedSubclasses()) {
                bindings.registerReflectionHints(hints, subclass);
                registerSealedSubclasses(hints, ResolvableType.forClass(subclass), seen);
            }
        }
        for (ResolvableType argument : type.getGenerics()) {
            registerSealedSubclasses(hints, argument, seen);
        }
    }
}
