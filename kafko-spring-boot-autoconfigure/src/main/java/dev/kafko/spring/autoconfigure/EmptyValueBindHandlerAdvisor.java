package dev.kafko.spring.autoconfigure;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationPropertiesBindHandlerAdvisor;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.origin.Origin;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.boot.origin.SystemEnvironmentOrigin;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Lets an empty value of a {@code kafko.} key leave it unset, as Spring Boot's own prefixes do
 * ({@code kafko.listener.idle-event-interval=} in a test, over the application's {@code application.properties}).
 * {@link KafkoProperties} refuses keys that name no property ({@code ignoreUnknownFields = false}), and Spring Boot
 * counts a key whose empty value converts to nothing (a duration, a size, a number, an enum) as one it could not
 * bind: the start failed saying the key was "left unbound", as if it were misspelt. Such a key is told to that check
 * as bound here; what it binds is nothing, so the property keeps its default. Keys of other prefixes are left alone.
 * <p>
 * An environment variable that spells a property's dashes as underscores ({@code KAFKO_LISTENER_MAX_POLL_RECORDS},
 * which Spring Boot binds as it does {@code KAFKO_LISTENER_MAXPOLLRECORDS}) is told to that check as bound too:
 * the check reads the variable as {@code kafko.listener.max.poll.records}, a key that names no property, and failed
 * the start though the property had been set from it, or from a source that overrides the variable. (Spring Boot
 * leaves the process environment, its {@code systemEnvironment} source, out of that check; a variable of another
 * environment property source is checked.)
 */
final class EmptyValueBindHandlerAdvisor implements ConfigurationPropertiesBindHandlerAdvisor {

    private static final ConfigurationPropertyName KAFKO = ConfigurationPropertyName.of("kafko");

    /** The name of the environment variable a value was read from ({@code KAFKO_A_B}), else null. */
    static @Nullable String variable(@Nullable Origin origin) {
        for (Origin o = origin; o != null; o = o.getParent()) {
            if (o instanceof SystemEnvironmentOrigin environment) {
                return environment.getProperty();
            }
            if (o instanceof PropertySourceOrigin source
                    && source.getPropertySource() instanceof SystemEnvironmentPropertySource) {
                return source.getPropertyName();
            }
        }
        return null;
    }

    @Override
    public BindHandler apply(BindHandler bindHandler) {
        return new EmptyValues(bindHandler);
    }

    private static final class EmptyValues extends AbstractBindHandler {

        EmptyValues(BindHandler parent) {
            super(parent);
        }

        @Override
        public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
                                Object result) {
            ConfigurationProperty property = context.getConfigurationProperty();
            if (property != null && KAFKO.isAncestorOf(name) && name.equals(property.getName())) {
                ConfigurationPropertyName reading = variableReading(name);
                if (!reading.equals(name) && setByVariable(reading, context)) {
                    // marks the name the unknown-key check reads the variable as bound, whichever source the value
                    // came from (a command-line argument, or the dashless variable, wins over it); what it returns is
                    // not used
                    super.onSuccess(reading, target, context, result);
                }
            }
            return super.onSuccess(name, target, context, result);
        }

        /**
         * The key the variable that writes {@code name}'s dashes as underscores reads as: {@code KAFKO_A_B_C} for
         * {@code kafko.a.b-c}, read as {@code kafko.a.b.c}.
         */
        private static ConfigurationPropertyName variableReading(ConfigurationPropertyName name) {
            StringBuilder variable = new StringBuilder();
            for (int i = 0; i < name.getNumberOfElements(); i++) {
                variable.append(i > 0 ? "." : "")
                        .append(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL).replace('-', '.'));
            }
            return ConfigurationPropertyName.adapt(variable.toString().toLowerCase(Locale.ROOT), '.');
        }

        /** Whether an environment property source holds a variable that reads as {@code reading}. */
        private static boolean setByVariable(ConfigurationPropertyName reading, BindContext context) {
            for (ConfigurationPropertySource source : context.getSources()) {
                if (source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource
                        && source.getConfigurationProperty(reading) != null) {
                    return true;
                }
            }
            return false;
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
