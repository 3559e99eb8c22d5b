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
     * Adds the endpoint's registered container to its group, if it names one, making the group's bean with its first
     * container; when the bean's name is taken, the listener is refused (and its registration undone by the
     * registry, which takes that very container out again, not another one registered under its id meanwhile).
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
        refuseTakenName(factory, registry, endpoint, declaration);
        ContainerGroup joined = registry.addToGroup(group, container);
        if (!factory.containsSingleton(beanName)) {
            factory.registerSingleton(beanName, joined);
        }
    }

    /**
     * Fails naming the listener when the bean its {@code containerGroup} is kept as ({@code <group>.group}) is one of
     * the application's, whatever its type, a {@link ContainerGroup} too: that name is taken by the group kafko makes,
     * the one the registry holds. spring-kafka, too, registers a group of its own under that name (whose
     * registration fails when the name is taken) and uses none of the application's. Were one of the application's
     * left under the name, the containers would join kafko's group all the same, and a {@code stop()} of the bean the
     * application holds would stop none of them.
     */
    static void refuseTakenName(ConfigurableListableBeanFactory factory, KafkoListenerEndpointRegistry registry,
                                KafkoListenerEndpoint endpoint, String declaration) {
        String group = endpoint.containerGroup();
        if (group == null) {
            return;
        }
        String beanName = group + ContainerGroup.BEAN_NAME_SUFFIX;
        if (!factory.containsLocalBean(beanName)) {
            return; // a parent context's is its own registry's: a child's group is a bean of the child's
        }
        Object existing = factory.containsSingleton(beanName) ? factory.getSingleton(beanName) : null;
        if (existing != null && existing == registry.getContainerGroup(group)) {
            return; // made by kafko with the group's first container
        }
        Class<?> type = factory.getType(beanName, false);
        String what = type == null ? "a bean"
                : ContainerGroup.class.isAssignableFrom(type) ? "a ContainerGroup of the application's ("
                + type.getName() + "), which kafko would not use"
                : "a bean of type " + type.getName();
        throw new InvalidKafkoListenerException("@KafkoListener '" + endpoint.id() + "' " + declaration
                + ": its containerGroup '" + group + "' is kept as the bean '" + beanName + "', which kafko makes"
                + " itself (as spring-kafka does), but the context already has " + what + " under that name: rename"
                + " that bean or name another containerGroup; the group kafko makes is the bean '" + beanName
                + "', also KafkoListenerEndpointRegistry.getContainerGroup(\"" + group + "\")");
    }
}
