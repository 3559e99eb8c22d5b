package dev.kafko.spring.autoconfigure;

import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.converter.SmartMessageConverter;
import org.springframework.util.function.SingletonSupplier;

/**
 * A converter built on its first use, so that an application that only sends and receives Strings
 * and bytes never pays for creating it (the JSON converter needs the application's Jackson mapper).
 * Any thread may call it; the delegate is created once.
 */
final class LazyMessageConverter implements SmartMessageConverter {

    private final SingletonSupplier<MessageConverter> delegate;

    LazyMessageConverter(Supplier<MessageConverter> factory) {
        this.delegate = SingletonSupplier.of(factory);
    }

    @Override
    public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass) {
        return delegate.obtain().fromMessage(message, targetClass);
    }

    @Override
    public @Nullable Object fromMessage(Message<?> message, Class<?> targetClass, @Nullable Object conversionHint) {
        MessageConverter converter = delegate.obtain();
        return converter instanceof SmartMessageConverter smart
                ? smart.fromMessage(message, targetClass, conversionHint)
                : converter.fromMessage(message, targetClass);
    }

    @Override
    public @Nullable Message<?> toMessage(Object payload, @Nullable MessageHeaders headers) {
        return delegate.obtain().toMessage(payload, headers);
    }

    @Override
    public @Nullable Message<?> toMessage(Object payload, @Nullable MessageHeaders headers,
                                          @Nullable Object conversionHint) {
        MessageConverter converter = delegate.obtain();
        return converter instanceof SmartMessageConverter smart
                ? smart.toMessage(payload, headers, conversionHint)
                : converter.toMessage(payload, headers);
    }
}
