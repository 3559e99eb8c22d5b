package dev.kafko.spring.annotation;

import dev.kafko.spring.config.KafkoListenerEndpoint;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The {@link ContainerGroup} beans of the listeners' {@code containerGroup}s, as spring-kafka makes them: one named
 * {@code <group>.group}, registered with the first container that joins the group. On the thread that registers
 * listeners.
 */
final class ContainerGroupBeans {

    private ContainerGroupBeans() {
    }

    /**
     * Adds the endpoint's container to its group, if it names one, making the group's bean with its first container;
     * when the bean's name is taken, the container is unregistered again and the listener refused.
     *
     * @param declaration where the listener is declared, as failures name it
     */
    static void join(ConfigurableListableBeanFactory factory, KafkoListenerEndpointRegistry registry,
                     KafkoListenerEndpoint endpoint, MessageListenerContainer container, String declaration) {
        String group = endpoint.containerGroup();
        if (group == null) {
            return;
        }
        String beanName = group + ContainerGroup.BEAN_NAME_SUFFIX;
        Object existing = factory.containsSingleton(beanName) ? factory.getSingleton(beanName) : null;
        try {
            refuseTakenName(factory, endpoint, declaration);
        } catch (InvalidKafkoListenerException e) {
            registry.unregisterListenerContainer(endpoint.id());
            throw e;
        }
        ContainerGroup joined = registry.addToGroup(group, container);
        if (existing == null) {
            factory.registerSingleton(beanName, joined);
        }
    }

    /**
     * Fails naming the listener when the bean its {@code containerGroup} is kept as ({@code <group>.group}) is one of
     * the context's that is no {@link ContainerGroup}.
     */
    static void refuseTakenName(ConfigurableListableBeanFactory factory, KafkoListenerEndpoint endpoint,
                                String declaration) {
        String group = endpoint.containerGroup();
        if (group == null) {
            return;
        }
        String beanName = group + ContainerGroup.BEAN_NAME_SUFFIX;
        Object existing = factory.containsSingleton(beanName) ? factory.getSingleton(beanName) : null;
        if (existing == null && factory.containsBean(beanName) || existing != null && !(existing instanceof ContainerGroup)) {
            throw new InvalidKafkoListenerException("@KafkoListener '" + endpoint.id() + "' " + declaration
                    + ": its containerGroup '" + group + "' is kept as the bean '" + beanName + "', but the context"
                    + " has a bean of that name already that is no ContainerGroup: name another group");
        }
    }
}
