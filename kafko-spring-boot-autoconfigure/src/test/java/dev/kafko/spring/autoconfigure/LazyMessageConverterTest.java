package dev.kafko.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.StringMessageConverter;
import org.springframework.messaging.support.MessageBuilder;

class LazyMessageConverterTest {

    @Test
    void theDelegateIsBuiltOnFirstUseOnlyAndOnce() {
        AtomicInteger built = new AtomicInteger();
        LazyMessageConverter lazy = new LazyMessageConverter(() -> {
            built.incrementAndGet();
            return new StringMessageConverter();
        });
        assertThat(built).hasValue(0);

        Message<byte[]> message = MessageBuilder.withPayload("hello".getBytes(StandardCharsets.UTF_8)).build();
        assertThat(lazy.fromMessage(message, String.class)).isEqualTo("hello");
        assertThat(lazy.fromMessage(message, String.class, null)).isEqualTo("hello");
        Message<?> out = lazy.toMessage("bye", null);
        assertThat(out).isNotNull();
        assertThat(out.getPayload()).isEqualTo("bye".getBytes(StandardCharsets.UTF_8));
        assertThat(built).hasValue(1);
    }

    @Test
    void aFactoryThatFailsFailsTheConversionThatNeededIt() {
        LazyMessageConverter lazy = new LazyMessageConverter(() -> {
            throw new IllegalStateException("no mapper");
        });
        Message<String> message = MessageBuilder.withPayload("x").build();
        assertThatThrownBy(() -> lazy.fromMessage(message, String.class)).hasMessageContaining("no mapper");
    }
}
