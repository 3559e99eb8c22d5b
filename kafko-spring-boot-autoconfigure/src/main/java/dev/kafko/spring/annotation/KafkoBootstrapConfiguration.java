package dev.kafko.spring.annotation;

import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Registers the {@link KafkoListenerAnnotationBeanPostProcessor} and the
 * {@link KafkoListenerEndpointRegistry} unless they are already defined. Imported by
 * {@link EnableKafko}.
 */
public final class KafkoBootstrapConfiguration implements ImportBeanDefinitionRegistrar {

    @Override
    public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
        if (!registry.containsBeanDefinition(KafkoListenerAnnotationBeanPostProcessor.BEAN_NAME)) {
            RootBeanDefinition processor = new RootBeanDefinition(KafkoListenerAnnotationBeanPostProcessor.class);
            processor.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
            registry.registerBeanDefinition(KafkoListenerAnnotationBeanPostProcessor.BEAN_NAME, processor);
        }
        if (!registry.containsBeanDefinition(KafkoListenerEndpointRegistry.BEAN_NAME)) {
            RootBeanDefinition endpoints = new RootBeanDefinition(KafkoListenerEndpointRegistry.class);
            endpoints.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
            registry.registerBeanDefinition(KafkoListenerEndpointRegistry.BEAN_NAME, endpoints);
        }
    }
}
