package dev.kafko.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * Lets an empty value of a {@code kafko.} key leave it unset, as Spring Boot's own prefixes do
 * ({@code kafko.listener.idle-event-interval=} in a test, over the application's {@code application.properties}).
 * {@link KafkoProperties} refuses keys that name no property ({@code ignoreUnknownFields = false}), and Spring Boot
 * counts a key whose empty value converts to nothing (a duration, a size, a number, an enum) as one it could not
 * bind: the start failed saying the key was "left unbound", as if it were misspelt. Such a key is told to that check
 * as bound here; what it binds is nothing, so the property keeps its default. Keys of other prefixes are left alone.
 */
final class EmptyValueBindHandlerAdvisor implements ConfigurationPropertiesBindHandlerAdvisor {

    private static final ConfigurationPropertyName KAFKO = ConfigurationPropertyName.of("kafko");

    @Override
    public BindHandler apply(BindHandler bindHandler) {
        return new EmptyValues(bindHandler);
    }

    private static final class EmptyValues extends AbstractBindHandler {

        EmptyValues(BindHandler parent) {
            super(parent);
        }

        @Override
        public void onFinish(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
                             @Nullable Object result) throws Exception {
            ConfigurationProperty property = context.getConfigurationProperty();
            if (result == null && property != null && KAFKO.isAncestorOf(name) && name.equals(property.getName())
                    && property.getValue() instanceof CharSequence value && value.toString().isBlank()) {
                // marks the key bound for the unknown-key check; the value it returns is not used
                super.onSuccess(name, target, context, value);
            }
            super.onFinish(name, target, context, result);
        }
    }
}
