package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.KafkoRecord;
import dev.kafko.spring.annotation.BackOff;
import dev.kafko.spring.annotation.InvalidKafkoListenerException;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.annotation.RetryableTopic;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.listener.BatchInterceptor;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerCustomizationException;
import dev.kafko.spring.listener.ContainerCustomizer;
import dev.kafko.spring.listener.ContainerPostProcessor;
import dev.kafko.spring.listener.RecordInterceptor;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The factory's {@link ContainerCustomizer} and a listener's {@link ContainerPostProcessor}: which containers they
 * see, in which order, how the auto-configuration takes the customizer bean, what they set taking effect, and the
 * failures they cause.
 */
class ContainerCustomizerTest {

    /** What the customizers, post-processors, interceptors and listeners saw, in order. */
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void reset() {
        EVENTS.clear();
    }

    private static ContainerCustomizer recording(String name) {
        return container -> EVENTS.add(name + ":" + container.getListenerId());
    }

    @Test
    void theAutoConfiguredFactoryTakesTheCustomizerBeanAndAppliesItToEveryListenersContainer() {
        ContainerCustomizer customizer = recording("customizer");
        runner.withBean("customizer", ContainerCustomizer.class, () -> customizer)
                .withBean(Plain.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(KafkoListenerContainerFactory.class).getContainerCustomizer())
                            .isSameAs(customizer);
                    assertThat(EVENTS).containsExactly("customizer:plain");
                });
    }

    @Test
    void withoutACustomizerBeanTheFactoryHasNone() {
        runner.withBean(Plain.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(KafkoListenerContainerFactory.class).getContainerCustomizer()).isNull();
        });
    }

    @Test
    void twoCustomizerBeansFailTheStartAsBootsSpringKafkaConfigurationDoesUnlessOneIsPrimary() {
        runner.withBean("first", ContainerCustomizer.class, () -> recording("first"))
                .withBean("second", ContainerCustomizer.class, () -> recording("second"))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .isInstanceOf(NoUniqueBeanDefinitionException.class)
                            .hasMessageContaining("first").hasMessageContaining("second");
                });
        ContainerCustomizer primary = recording("primary");
        runner.withBean("first", ContainerCustomizer.class, () -> recording("first"))
                .withBean("primary", ContainerCustomizer.class, () -> primary, bd -> bd.setPrimary(true))
                .run(context -> assertThat(context.getBean(KafkoListenerContainerFactory.class)
                        .getContainerCustomizer()).isSameAs(primary));
    }

    @Test
    void aCopyCarriesTheCustomizerToTheContainersMadeInCode() {
        runner.run(context -> {
            KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
            ContainerCustomizer customizer = recording("customizer");
            factory.setContainerCustomizer(customizer);
            KafkoListenerContainerFactory copy = factory.copy();
            factory.setContainerCustomizer(null); // the copy keeps its own
            assertThat(copy.getContainerCustomizer()).isSameAs(customizer);

            copy.createListenerContainer("named", "named", List.of("named"), (records, ack) -> { });
            copy.createListenerContainer("pattern", "pattern", Pattern.compile("pattern-.*"), (records, ack) -> { });
            factory.createListenerContainer("none", "none", List.of("none"), (records, ack) -> { });

            assertThat(EVENTS).containsExactly("customizer:named", "customizer:pattern");
        });
    }

    @Test
    void theCustomizerThenThePostProcessorNamedByAPlaceholderSeeTheMainRetryAndDeadLetterContainers() {
        runner.withBean("customizer", ContainerCustomizer.class, () -> recording("customizer"))
                .withBean("ordersPostProcessor", ContainerPostProcessor.class,
                        () -> container -> EVENTS.add("post:" + container.getListenerId()))
                .withPropertyValues("app.post-processor=ordersPostProcessor")
                .withBean(Retried.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(EVENTS).containsExactly("customizer:orders", "post:orders",
                            "customizer:orders-retry", "post:orders-retry",
                            "customizer:orders-dlt", "post:orders-dlt");
                });
    }

    @Test
    void whatTheCustomizerAndThePostProcessorSetTakesEffectForTheirContainers() {
        RecordInterceptor factorys = record -> {
            EVENTS.add("factory's interceptor:" + new String(record.value()));
            return record;
        };
        runner.withBean("factorysInterceptor", RecordInterceptor.class, () -> factorys)
                // the customizer replaces the factory's record interceptor on the "records" container only
                .withBean(ContainerCustomizer.class, () -> container -> {
                    if (container.getListenerId().equals("records")) {
                        container.setRecordInterceptor(record -> {
                            EVENTS.add("customizer's interceptor:" + new String(record.value()));
                            return record;
                        });
                    }
                })
                // the post-processor gives the batch listener's container a batch interceptor that skips "drop"
                .withBean("batchPostProcessor", ContainerPostProcessor.class, () -> container ->
                        container.setBatchInterceptor((BatchInterceptor) records -> records.stream()
                                .filter(r -> !new String(r.value()).equals("drop")).toList()))
                .withBean(Intercepted.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    template.send("records", "r1").join();
                    template.send("others", "o1").join();
                    template.send("batches", "drop").join();
                    template.send("batches", "b1").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(30));

                    assertThat(EVENTS).containsSubsequence("customizer's interceptor:r1", "records:r1");
                    assertThat(EVENTS).containsSubsequence("factory's interceptor:o1", "others:o1");
                    assertThat(EVENTS).doesNotContain("factory's interceptor:r1", "customizer's interceptor:o1");
                    assertThat(EVENTS.stream().filter(e -> e.startsWith("batches:")).toList())
                            .containsExactly("batches:[b1]");
                    assertThat(container(context, "batches").getBatchInterceptor()).isNotNull();
                    assertThat(container(context, "others").getRecordInterceptor()).isSameAs(factorys);
                });
    }

    @Test
    void aPostProcessorNameThatIsNoBeanOrABeanOfAnotherTypeFailsTheStartNamingTheListenerAndTheName() {
        runner.withBean(Misnamed.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidKafkoListenerException.class)
                    .hasMessageContaining("'misnamed'").hasMessageContaining("Misnamed.on")
                    .hasMessageContaining("containerPostProcessor 'noSuchBean' is no ContainerPostProcessor bean");
        });
        runner.withBean("notAPostProcessor", RecordInterceptor.class, () -> record -> record)
                .withBean(WrongType.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                            .isInstanceOf(InvalidKafkoListenerException.class)
                            .hasMessageContaining("'wrongType'")
                            .hasMessageContaining("containerPostProcessor 'notAPostProcessor' is no"
                                    + " ContainerPostProcessor bean");
                });
    }

    @Test
    void aCustomizerOrPostProcessorThatThrowsFailsTheStartNamingTheListener() {
        runner.withBean(ContainerCustomizer.class, () -> container -> {
                    throw new IllegalStateException("customizer refuses " + container.getListenerId());
                })
                .withBean(Plain.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasRootCauseMessage("customizer refuses plain");
                    assertThat(findCustomizationFailure(context.getStartupFailure()))
                            .hasMessageStartingWith("Listener 'plain': the ContainerCustomizer of its container"
                                    + " factory (")
                            .hasMessageContaining("failed: java.lang.IllegalStateException: customizer refuses plain");
                });
        runner.withBean("ordersPostProcessor", ContainerPostProcessor.class, () -> container -> {
                    throw new IllegalArgumentException("post-processor refuses " + container.getListenerId());
                })
                .withPropertyValues("app.post-processor=ordersPostProcessor")
                .withBean(Retried.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(findCustomizationFailure(context.getStartupFailure()))
                            .hasMessageStartingWith("Listener 'orders': its containerPostProcessor (")
                            .hasMessageContaining("post-processor refuses orders");
                });
    }

    private static Throwable findCustomizationFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ContainerCustomizationException) {
                return t;
            }
        }
        throw new AssertionError("no ContainerCustomizationException in the cause chain", failure);
    }

    private static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }

    static class Plain {
        @KafkoListener(id = "plain", topics = "plain")
        void on(String value) {
        }
    }

    static class Retried {
        @RetryableTopic(attempts = "2", backOff = @BackOff(delay = 10))
        @KafkoListener(id = "orders", topics = "orders", containerPostProcessor = "${app.post-processor}")
        void on(String value) {
        }
    }

    static class Intercepted {
        @KafkoListener(id = "records", topics = "records")
        void records(String value) {
            EVENTS.add("records:" + value);
        }

        @KafkoListener(id = "others", topics = "others")
        void others(String value) {
            EVENTS.add("others:" + value);
        }

        @KafkoListener(id = "batches", topics = "batches", batch = "true", containerPostProcessor = "batchPostProcessor")
        void batches(List<String> values) {
            EVENTS.add("batches:" + values);
        }
    }

    static class Misnamed {
        @KafkoListener(id = "misnamed", topics = "misnamed", containerPostProcessor = "noSuchBean")
        void on(String value) {
        }
    }

    static class WrongType {
        @KafkoListener(id = "wrongType", topics = "wrongType", containerPostProcessor = "#{'notAPostProcessor'}")
        void on(String value) {
        }
    }
}
