package dev.kafko.spring.autoconfigure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Registers the exception classes {@code kafko.listener.retry.not-retryable} names for reflection when the
 * application is processed ahead of time: the error handler loads them by name at start-up, which a native
 * image can only do for classes registered. The names are those the build-time environment holds, as
 * every condition of an application processed ahead of time is; called once, on the build's thread.
 */
final class NotRetryableHints implements BeanFactoryInitializationAotProcessor {

    private static final String PROPERTY = "kafko.listener.retry.not-retryable";

    @Override
    public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
            ConfigurableListableBeanFactory beanFactory) {
        if (!beanFactory.containsBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME)
                || !(beanFactory.getBean(ConfigurableApplicationContext.ENVIRONMENT_BEAN_NAME)
                        instanceof ConfigurableEnvironment environment)) {
            return null;
        }
        List<String> names = Binder.get(environment).bind(PROPERTY, Bindable.listOf(String.class))
                .orElse(List.of()).stream().map(String::strip).filter(name -> !name.isEmpty()).toList();
        if (names.isEmpty()) {
            return null;
        }
        ClassLoader classLoader = beanFactory.getBeanClassLoader();
        return (generation, code) -> names.forEach(name ->
                generation.getRuntimeHints().reflection().registerTypeIfPresent(classLoader, name, hint -> { }));
    }
}
