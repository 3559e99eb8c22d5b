package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoMetricsAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The post-processor skips the beans kafko's auto-configurations make by their exact classes
 * ({@code OWN_BEAN_CLASSES}): the list must name every such class of a context with every kafko bean (else the
 * start-up searches it again), and nothing else (a name that no longer loads hides a rename).
 */
class OwnBeanClassesTest {

    @Test
    void everyBeanClassOfKafkosAutoConfigurationsIsSkippedAndNoOther() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class,
                        KafkoMetricsAutoConfiguration.class, KafkoHealthAutoConfiguration.class))
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.dead-letter.enabled=true",
                        "kafko.topics.t.partitions=2")
                .withBean(SimpleMeterRegistry.class)
                .withUserConfiguration(App.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    List<String> searched = new ArrayList<>();
                    TreeSet<String> kafkos = new TreeSet<>();
                    for (String name : context.getBeanDefinitionNames()) {
                        Class<?> type = AopUtils.getTargetClass(context.getBean(name));
                        if (type.getName().startsWith("dev.kafko.") && !isTestClass(type)) {
                            kafkos.add(type.getName());
                            if (ListenerSearch.mayHaveListeners(type)) {
                                searched.add(name + " (" + type.getName() + ")");
                            }
                        }
                    }
                    assertThat(searched).as("kafko's beans that would be searched for listeners: add their classes"
                            + " to OWN_BEAN_CLASSES").isEmpty();
                    assertThat(kafkos).as("the context holds the beans of every kafko auto-configuration")
                            .contains("dev.kafko.internal.broker.Broker", KafkoTemplate.class.getName(),
                                    "dev.kafko.spring.metrics.KafkoMetrics",
                                    "dev.kafko.spring.health.KafkoHealthIndicator");
                    // the application's listener is found all the same
                    assertThat(ListenerSearch.mayHaveListeners(App.class)).isTrue();
                });
    }

    @Test
    void everyListedClassExists() throws Exception {
        for (String name : ListenerSearch.OWN_BEAN_CLASSES) {
            assertThat(Class.forName(name, false, getClass().getClassLoader())).as(name).isNotNull();
        }
    }

    @Test
    void anApplicationSubclassOfAKafkoBeanClassIsStillSearched() {
        assertThat(ListenerSearch.mayHaveListeners(KafkoTemplate.class)).isFalse();
        assertThat(ListenerSearch.mayHaveListeners(ListeningTemplate.class)).isTrue();
        assertThat(KafkoListenerAnnotationBeanPostProcessor.hasListenerMethods(ListeningTemplate.class)).isTrue();
    }

    private static boolean isTestClass(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation().toString().contains("test-classes");
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @KafkoListener(topics = "t")
        void on(String value) {
        }

        @Bean
        static String marker() {
            return "app";
        }
    }

    /** An application's template that also listens: not kafko's exact class, so searched. */
    abstract static class ListeningTemplate extends KafkoTemplate<String, String> {
        ListeningTemplate() {
            super(null, null);
        }

        @KafkoListener(topics = "t")
        void on(String value) {
        }
    }
}
