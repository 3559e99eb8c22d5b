package dev.kafko.spring.listener.adapter;

import dev.kafko.Kafko;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** What the listener tests of this package read from a context and its records. */
final class ListenerTestSupport {

    private ListenerTestSupport() {
    }

    /**
     * A context of the auto-configuration on an ephemeral log whose listeners try a record
     * {@code attempts} times, then publish it to its dead-letter topic.
     */
    static ApplicationContextRunner deadLetteringRunner(int attempts) {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.retry.max-attempts=" + attempts,
                        "kafko.listener.dead-letter.enabled=true");
    }

    @SuppressWarnings("unchecked")
    static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    /** The offset the group committed on partition 0 of the topic; 0 when it committed none. */
    static long committed(ApplicationContext context, String topic, String group) {
        return context.getBean(Kafko.class).groupInfo(topic, group).committed().getOrDefault(0, 0L);
    }

    /** Text as the UTF-8 bytes of a record's value, key or header. */
    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** Record bytes (a value, a key, a header) as UTF-8 text; {@code null} for none. */
    static @Nullable String text(byte @Nullable [] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
