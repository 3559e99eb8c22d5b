package dev.kafko.spring.annotation;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.util.ClassUtils;

/**
 * The shapes of a listener method kafko refuses before anything starts, each failing with an
 * {@link InvalidKafkoListenerException} that names the method and what to change: a Kotlin suspend function it cannot
 * run, a result that may hold many values, and parameter annotations a JDK proxy hides. Stateless.
 */
final class ListenerMethodChecks {

    private ListenerMethodChecks() {
    }

    /**
     * A Kotlin {@code suspend fun} compiles to a method whose last parameter is a {@code Continuation}. kafko runs
     * one as a coroutine through Spring's {@code CoroutinesUtils} and awaits it as it awaits a {@code Mono}, which
     * needs kotlinx-coroutines-reactor and kotlin-reflect: without either, the method is refused before anything
     * starts, naming what to add (invoked as a plain method, the container took the {@code Continuation} for the
     * payload and failed every record unrun, then committed it). So is a method that takes a {@code Continuation}
     * but is no Kotlin function, and a suspend function whose result may hold many values (a {@code Flow}, a
     * {@code Flux}), which would fail every record. Only the class names are looked up: the starter does not need
     * Kotlin on its class path.
     */
    static void refuseSuspendFunction(Method method, String where) {
        Class<?>[] types = method.getParameterTypes();
        if (types.length == 0 || !types[types.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
            return;
        }
        // CoroutinesUtils, in spring-core, links against both from its own class loader
        ClassLoader loader = KotlinDetector.class.getClassLoader();
        List<String> missing = new ArrayList<>();
        if (!ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", loader)) {
            missing.add("org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
        }
        if (!KotlinDetector.isKotlinReflectPresent()) {
            missing.add("org.jetbrains.kotlin:kotlin-reflect");
        }
        if (!missing.isEmpty()) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " is a Kotlin suspend function,"
                    + " which kafko runs as a coroutine through kotlinx-coroutines-reactor and kotlin-reflect: add "
                    + String.join(" and ", missing) + " to the application's dependencies, or make it a plain"
                    + " function");
        }
        if (!KotlinDetector.isKotlinType(method.getDeclaringClass())) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " takes a"
                    + " kotlin.coroutines.Continuation as its last parameter but is no Kotlin suspend function (its"
                    + " class has no Kotlin metadata): kafko cannot invoke it");
        }
        // the function's declared result is the continuation's type argument (Continuation<? super Flow<T>>)
        Class<?> result = ResolvableType.forMethodParameter(new MethodParameter(method, types.length - 1))
                .getGeneric(0).resolve();
        ReactiveAdapter adapter = result == null ? null : ReactiveAdapterRegistry.getSharedInstance().getAdapter(result);
        if (adapter != null && adapter.isMultiValue()) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " is a suspend function returning a "
                    + result.getName() + ", which may hold many values, where a record has one result: return the"
                    + " value itself");
        }
    }

    /**
     * A method declared to return a type that may hold many values (a Reactor {@code Flux}, any type Spring's
     * {@link ReactiveAdapterRegistry} adapts as multi-value): one record has one result, so every record it is
     * given would fail, through every retry, into recovery. Refused before anything starts instead (one declared
     * as {@code Object} or {@code Publisher} still fails its record when it returns one).
     */
    static void refuseMultiValueReturn(Method method, String where) {
        Class<?> type = method.getReturnType();
        if (type.isPrimitive() || type.getName().startsWith("java.")) {
            // void, values and futures: the registry (whose first use probes for every reactive library) stays unloaded
            return;
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
        if (adapter != null && adapter.isMultiValue()) {
            throw new InvalidKafkoListenerException("@KafkoListener " + where + " returns a "
                    + type.getName() + ", which may hold many values, where a record has one result:"
                    + " return a single-value type (a Mono), a CompletableFuture or the value itself");
        }
    }

    /**
     * A bean behind a JDK proxy is called through its interface's method, and the arguments are resolved from
     * that method's parameters: a {@code @Header}, {@code @Payload}, {@code @Valid} ... that only the class's
     * method declares would be lost without a word (a {@code @Header} parameter given the payload). Refused,
     * naming the parameter.
     */
    static void refuseParameterAnnotationsTheProxyHides(Method method, Method invocable, String where) {
        if (invocable.equals(method) || !invocable.getDeclaringClass().isInterface()) {
            return;
        }
        Annotation[][] declared = method.getParameterAnnotations();
        Annotation[][] seen = invocable.getParameterAnnotations();
        for (int i = 0; i < declared.length && i < seen.length; i++) {
            for (Annotation a : declared[i]) {
                if (resolvesArguments(a) && !(declared.length == 1 && isPlainPayload(a))
                        && Arrays.stream(seen[i]).noneMatch(o -> o.annotationType() == a.annotationType())) {
                    throw new InvalidKafkoListenerException("@KafkoListener " + where + ": the bean is a JDK proxy,"
                            + " called through " + invocable.getDeclaringClass().getSimpleName() + "."
                            + invocable.getName() + ", whose parameter " + (i + 1) + " lacks the @"
                            + a.annotationType().getSimpleName() + " of " + method.getDeclaringClass().getSimpleName()
                            + "." + method.getName() + ": declare it on the interface's method too, or proxy the"
                            + " class (spring.aop.proxy-target-class=true)");
                }
            }
        }
    }

    /** A {@code @Payload} that changes nothing on a method's only parameter, which is the payload anyway. */
    private static boolean isPlainPayload(Annotation annotation) {
        return annotation instanceof Payload payload && payload.value().isEmpty() && payload.expression().isEmpty()
                && payload.required();
    }

    /** Whether an annotation of a listener's parameter decides what argument it gets, or checks it. */
    private static boolean resolvesArguments(Annotation annotation) {
        String name = annotation.annotationType().getName();
        return name.startsWith("org.springframework.messaging.handler.annotation.")
                || name.equals("jakarta.validation.Valid")
                || name.equals("org.springframework.validation.annotation.Validated")
                || name.startsWith("dev.kafko.");
    }
}
