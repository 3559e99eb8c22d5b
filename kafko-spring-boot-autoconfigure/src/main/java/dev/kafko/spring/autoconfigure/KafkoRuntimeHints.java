package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.listener.DltLogger;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs of kafko's own classes that are called reflectively: the method that logs a
 * {@code @RetryableTopic} listener's dead letters when its bean has no {@code @DltHandler}, which the listener
 * adapter invokes as it invokes a listener method.
 */
final class KafkoRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection().registerMethod(DltLogger.METHOD, ExecutableMode.INVOKE);
    }
}
