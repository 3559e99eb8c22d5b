package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConsumerStartedEvent;
import dev.kafko.spring.listener.ContainerCustomizer;
import dev.kafko.spring.test.KafkoTestUtils;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;

/**
 * The README's claim ("Container customizers and post-processors") that a customizer's {@code setObservationRegistry}
 * and {@code setApplicationEventPublisher} replace, for that container alone, what the factory gave it.
 */
class ReadmeClaimsCustomizerSettersTest {

    static final TestObservationRegistry OBSERVED = TestObservationRegistry.create();
    static final List<Object> PUBLISHED = new CopyOnWriteArrayList<>();
    static final List<String> CONTEXT_EVENTS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.observed.partitions=1",
                    "kafko.topics.published.partitions=1");

    @Test
    void aCustomizersObservationRegistryAndEventPublisherReplaceTheFactorysForThatContainerAlone() {
        OBSERVED.clear();
        PUBLISHED.clear();
        CONTEXT_EVENTS.clear();
        runner.withBean(ContainerCustomizer.class, () -> container -> {
            if (container.getListenerId().equals("observed")) {
                container.setObservationRegistry(OBSERVED, null);
            } else if (container.getListenerId().equals("published")) {
                container.setApplicationEventPublisher(PUBLISHED::add);
            }
        }).withBean(Listeners.class).withBean(ContextEvents.class).run(context -> {
            assertThat(context).hasNotFailed();
            template(context).send("observed", "o").join();
            template(context).send("published", "p").join();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            // the observed listener's delivery is observed (the factory observes nothing without the property)
            TestObservationRegistryAssert.assertThat(OBSERVED).hasObservationWithNameEqualTo("kafko.listener");
            // the other listener's events went to its own publisher, not to the context
            assertThat(PUBLISHED).anyMatch(e -> e instanceof ConsumerStartedEvent started
                    && started.getListenerId().equals("published"));
            assertThat(CONTEXT_EVENTS).contains("observed").doesNotContain("published");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Listeners {
        @KafkoListener(id = "observed", topics = "observed")
        void observed(String value) {
        }

        @KafkoListener(id = "published", topics = "published")
        void published(String value) {
        }
    }

    static class ContextEvents {
        @EventListener
        void started(ConsumerStartedEvent e) {
            CONTEXT_EVENTS.add(e.getListenerId());
        }
    }
}
