package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.UnregisterDuringStartOfOwnContainersTest.OwnContainer;
import dev.kafko.spring.listener.MessageListenerContainer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Scope;

/**
 * {@code getAllListenerContainers()}, which a ported spring-kafka test calls to wait for every container: the
 * registered containers, then the context's container beans that are not registered, each once.
 */
class AllListenerContainersTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms")
            .withUserConfiguration(Declared.class);

    @Configuration(proxyBeanMethods = false)
    static class Declared {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }

        @Bean
        OwnContainer declaredContainer() {
            return new OwnContainer("declared", false);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LazyAndPrototype {
        @Bean
        @Lazy
        OwnContainer lazyContainer() {
            return new OwnContainer("lazy", false);
        }

        @Bean
        @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
        OwnContainer prototypeContainer() {
            return new OwnContainer("prototype", false);
        }
    }

    static class Listeners {
        @KafkoListener(id = "annotated", topics = "all-orders")
        void on(String order) {
        }
    }

    @Test
    void everyRegisteredContainerThenTheContainerBeansNotRegistered() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            OwnContainer coded = new OwnContainer("coded", false);
            registry.registerListenerContainer(coded, false);

            assertThat(registry.getAllListenerContainers()).extracting(MessageListenerContainer::getListenerId)
                    .containsExactly("annotated", "coded", "declared");
            assertThat(registry.getListenerContainers()).extracting(MessageListenerContainer::getListenerId)
                    .as("the bean is not registered").containsExactly("annotated", "coded");
            assertThat(registry.getAllListenerContainers()).contains(context.getBean(OwnContainer.class), coded);
        });
    }

    @Test
    void aContainerBeanThatIsAlsoRegisteredIsListedOnce() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.registerListenerContainer(context.getBean(OwnContainer.class), false);

            assertThat(registry.getAllListenerContainers()).extracting(MessageListenerContainer::getListenerId)
                    .containsExactly("annotated", "declared");
        });
    }

    @Test
    void outsideAContextTheRegisteredOnes() {
        KafkoListenerEndpointRegistry registry = new KafkoListenerEndpointRegistry();
        OwnContainer coded = new OwnContainer("coded", false);
        registry.registerListenerContainer(coded, false);

        assertThat(registry.getAllListenerContainers()).containsExactly(coded);
    }

    @Test
    void asSpringKafkasAPrototypeContainerIsMadeAtEachCallAndALazyOneByTheFirst() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true").withUserConfiguration(LazyAndPrototype.class)
                .run(context -> {
                    KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
                    assertThat(context.getBeanFactory().containsSingleton("lazyContainer")).isFalse();

                    MessageListenerContainer first = byId(registry, "prototype");
                    MessageListenerContainer second = byId(registry, "prototype");

                    assertThat(first).isNotSameAs(second);
                    assertThat(context.getBeanFactory().containsSingleton("lazyContainer")).isTrue();
                    assertThat(byId(registry, "lazy")).isSameAs(context.getBean("lazyContainer"));
                });
    }

    @Test
    void onceTheContextIsClosedTheCallFailsAndTheRegisteredOnesAreStillListed() {
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            context.close();

            assertThatIllegalStateException().isThrownBy(registry::getAllListenerContainers);
            assertThat(registry.getListenerContainers()).extracting(MessageListenerContainer::getListenerId)
                    .containsExactly("annotated");
        });
    }

    private static MessageListenerContainer byId(KafkoListenerEndpointRegistry registry, String id) {
        for (MessageListenerContainer container : registry.getAllListenerContainers()) {
            if (container.getListenerId().equals(id)) {
                return container;
            }
        }
        throw new AssertionError("no container " + id);
    }
}
