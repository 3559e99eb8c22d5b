package dev.kafko.spring.listener.adapter;

import java.lang.reflect.Method;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolverComposite;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * Invokes a listener method that is a Kotlin {@code suspend fun}, as spring-kafka does: through Spring's
 * {@link CoroutinesUtils#invokeSuspendingFunction}, which starts the coroutine (on the calling thread, the member's
 * polling thread, until it first suspends) when the {@code Mono} it returns is subscribed. That {@code Mono} is the
 * method's result: the adapter awaits it as it awaits a {@code Mono} a method returns ({@link ReactiveReturns}), so
 * the record is committed, or its failure handed to the error handler, only once the coroutine has finished; a
 * function returning {@code Unit} completes it empty (committed, nothing sent to a {@code @SendTo}). The compiler's
 * {@code Continuation} parameter is given nothing here: {@code CoroutinesUtils} supplies its own.
 *
 * <p>Used only for such methods, whose registration checked that kotlinx-coroutines-reactor and kotlin-reflect,
 * which linking {@code CoroutinesUtils} needs, are on the class path: nothing here is loaded for other listeners.
 */
final class SuspendFunctionHandler extends InvocableHandlerMethod {

    /**
     * The handler of a suspend function. Typed as its superclass so that the caller's verification does not load
     * this class (the start-up class list of {@code KafkoBackgroundPreinitializer} holds what every start-up loads).
     *
     * @param resolvers the factory's resolvers; the continuation's comes before them, ahead of the payload
     *     resolver, which takes any parameter
     */
    static InvocableHandlerMethod of(Object bean, Method method, List<HandlerMethodArgumentResolver> resolvers) {
        return new SuspendFunctionHandler(bean, method, resolvers);
    }

    private SuspendFunctionHandler(Object bean, Method method, List<HandlerMethodArgumentResolver> resolvers) {
        super(bean, method);
        HandlerMethodArgumentResolverComposite composite = new HandlerMethodArgumentResolverComposite();
        composite.addResolver(new ContinuationResolver());
        composite.addResolvers(resolvers);
        setMessageMethodArgumentResolvers(composite);
    }

    /** The {@code Mono} of the coroutine; it runs when the adapter subscribes it. */
    @Override
    protected @Nullable Object doInvoke(@Nullable Object... args) throws Exception {
        return CoroutinesUtils.invokeSuspendingFunction(getBridgedMethod(), getBean(), args);
    }

    /** Gives the {@code Continuation} parameter nothing: {@code CoroutinesUtils} ignores that argument. */
    private static final class ContinuationResolver implements HandlerMethodArgumentResolver {

        @Override
        public boolean supportsParameter(MethodParameter parameter) {
            return KafkoArgumentResolvers.isContinuation(parameter);
        }

        @Override
        public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) {
            return null;
        }
    }
}
