package dev.kafko.spring.autoconfigure;

import dev.kafko.spring.annotation.KafkoListenerAnnotationBeanPostProcessor;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;

/**
 * Excludes the beans whose classes have {@code @KafkoListener} methods, and makes those that Spring's
 * pre-instantiation still skipped once every singleton exists.
 */
final class ListenerBeansExcludeFilter implements LazyInitializationExcludeFilter,
        SmartInitializingSingleton, BeanFactoryAware {

    /** The singleton listener beans this filter kept eager, in the order it was asked. */
    private final List<String> kept = new ArrayList<>();
    private @Nullable BeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public synchronized boolean isExcluded(String beanName, BeanDefinition beanDefinition, Class<?> beanType) {
        boolean listener = KafkoListenerAnnotationBeanPostProcessor.hasListenerMethods(beanType);
        if (listener && beanDefinition.isSingleton() && !beanDefinition.isAbstract()) {
            kept.add(beanName);
        }
        return listener;
    }

    /**
     * A listener bean kept eager whose creation met a cycle (a proxied bean that declares the {@code @Bean} its
     * own listener's {@code errorHandler} names) is skipped by Spring's pre-instantiation under lazy
     * initialization, which logs at INFO only that another thread was making it: the context started without
     * its listeners. Made here, its listeners are registered, or its cycle fails the start as it does without
     * lazy initialization.
     */
    @Override
    public void afterSingletonsInstantiated() {
        List<String> names;
        synchronized (this) {
            names = List.copyOf(kept);
        }
        if (names.isEmpty() || !(beanFactory instanceof ConfigurableListableBeanFactory factory)) {
            return;
        }
        for (String name : names) {
            if (factory.containsBeanDefinition(name) && !factory.containsSingleton(name)) {
                factory.getBean(name);
            }
        }
    }
}
