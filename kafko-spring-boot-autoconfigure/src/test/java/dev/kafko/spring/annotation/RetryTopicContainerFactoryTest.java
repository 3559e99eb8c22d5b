package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.retrytopic.RetryTopicConfiguration;
import dev.kafko.spring.retrytopic.RetryTopicConfigurationBuilder;
import dev.kafko.spring.support.KafkoHeaders;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * {@code @RetryableTopic(listenerContainerFactory)} and the builder's {@code listenerFactory}: the named factory
 * makes the retry and dead-letter containers, the listener's own factory its container, as in spring-kafka; a name
 * that is no factory bean fails the start naming the listener.
 */
class RetryTopicContainerFactoryTest {

    /** The listener ids of the containers the retry factory made. */
    static final List<String> MADE_BY_RETRY_FACTORY = new CopyOnWriteArrayList<>();
    static final List<String> CALLS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.orders.partitions=1");

    @Test
    void theAnnotationsFactoryMakesTheRetryAndDeadLetterContainersAndTheListenersItsOwn() {
        MADE_BY_RETRY_FACTORY.clear();
        CALLS.clear();
        runner.withUserConfiguration(RetryFactory.class).withBean(Annotated.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(MADE_BY_RETRY_FACTORY).containsExactlyInAnyOrder("orders-retry", "orders-dlt");
            // the retry factory's containers still forward and wait: the record goes round and reaches the handler
            template(context).send("orders", "o1").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(CALLS).containsExactly("orders:o1", "orders-retry:o1", "orders-dlt:o1");
        });
    }

    @Test
    void withoutItTheListenersFactoryMakesThemAll() {
        MADE_BY_RETRY_FACTORY.clear();
        runner.withUserConfiguration(RetryFactory.class).withBean(OnTheListenersFactory.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(MADE_BY_RETRY_FACTORY).containsExactlyInAnyOrder("own", "own-retry", "own-dlt");
        });
    }

    @Test
    void theBuildersFactoryByNameOrAsTheBeanItselfMakesTheRetryAndDeadLetterContainers() {
        MADE_BY_RETRY_FACTORY.clear();
        runner.withUserConfiguration(RetryFactory.class, ByName.class).withBean(Plain.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(MADE_BY_RETRY_FACTORY).containsExactlyInAnyOrder("plain-retry-0", "plain-retry-1",
                    "plain-dlt");
        });
        MADE_BY_RETRY_FACTORY.clear();
        runner.withUserConfiguration(RetryFactory.class, ByInstance.class).withBean(Plain.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(MADE_BY_RETRY_FACTORY).containsExactlyInAnyOrder("plain-retry-0", "plain-retry-1",
                    "plain-dlt");
        });
    }

    @Test
    void aFactoryThatIsNoBeanFailsTheStartNamingTheListener() {
        runner.withBean(UnknownFactory.class).run(context -> assertThat(context).hasFailed().getFailure()
                .hasStackTraceContaining("@RetryableTopic listener 'lost' on")
                .hasStackTraceContaining("listenerContainerFactory 'nope' is no KafkoListenerContainerFactory bean;"
                        + " the KafkoListenerContainerFactory beans are [kafkoListenerContainerFactory]"));
        runner.withUserConfiguration(NotABean.class).withBean(Plain.class).run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("listener 'plain'")
                .hasStackTraceContaining("its listenerFactory is no bean of the context"));
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static KafkoListenerContainerFactory recording(KafkoListenerContainerFactory defaults) {
        KafkoListenerContainerFactory f = defaults.copy();
        f.setContainerCustomizer(container -> MADE_BY_RETRY_FACTORY.add(container.getListenerId()));
        return f;
    }

    @Configuration(proxyBeanMethods = false)
    static class RetryFactory {
        @Bean
        KafkoListenerContainerFactory retryFactory(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            return recording(kafkoListenerContainerFactory);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ByName {
        @Bean
        RetryTopicConfiguration retries() {
            return RetryTopicConfigurationBuilder.newInstance().listenerFactory("retryFactory").create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ByInstance {
        @Bean
        RetryTopicConfiguration retries(KafkoListenerContainerFactory retryFactory) {
            return RetryTopicConfigurationBuilder.newInstance().listenerFactory(retryFactory).create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NotABean {
        @Bean
        RetryTopicConfiguration retries(KafkoListenerContainerFactory kafkoListenerContainerFactory) {
            return RetryTopicConfigurationBuilder.newInstance()
                    .listenerFactory(recording(kafkoListenerContainerFactory)).create();
        }
    }

    static class Annotated {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 1), listenerContainerFactory = "${retry.factory:"
                + "retryFactory}")
        @KafkoListener(id = "orders", topics = "orders")
        void on(String value, @Header(KafkoHeaders.RECEIVED_TOPIC) String topic) {
            CALLS.add(topic + ":" + value);
            throw new IllegalStateException("fails");
        }

        @DltHandler
        void dead(String value) {
            CALLS.add("orders-dlt:" + value);
        }
    }

    static class OnTheListenersFactory {
        @RetryableTopic(attempts = "2")
        @KafkoListener(id = "own", topics = "own", containerFactory = "retryFactory")
        void on(String value) {
        }
    }

    static class Plain {
        @KafkoListener(id = "plain", topics = "plain")
        void on(String value) {
        }
    }

    static class UnknownFactory {
        @RetryableTopic(listenerContainerFactory = "nope")
        @KafkoListener(id = "lost", topics = "lost")
        void on(String value) {
        }
    }
}
