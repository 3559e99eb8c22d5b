package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.listener.AckMode;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import dev.kafko.spring.listener.ContainerCustomizer;
import dev.kafko.spring.listener.ContainerPostProcessor;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * Claims of the README's section on container customizers and post-processors that no other test checks, each test
 * quoting the sentence it checks.
 */
class ReadmeClaimsCustomizersTest {

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true");

    @BeforeEach
    void reset() {
        EVENTS.clear();
    }

    /**
     * "{@code @KafkoListener(containerPostProcessor = "<bean name>")} (placeholders, or SpEL that returns the
     * post-processor itself)".
     */
    @Test
    void aContainerPostProcessorGivenBySpelAsTheObjectItselfConfiguresTheContainer() {
        runner.withBean("tagging", ContainerPostProcessor.class,
                        () -> container -> EVENTS.add("post:" + container.getListenerId()))
                .withBean(ByExpression.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(EVENTS).containsExactly("post:byExpression");
                });
    }

    static class ByExpression {
        @KafkoListener(id = "byExpression", topics = "byExpression", containerPostProcessor = "#{@tagging}")
        void on(String value) {
        }
    }

    /** The README's example: the listeners whose id starts with "audit-" get the record ack mode, the others not. */
    @Test
    void theReadmesCustomizerSetsTheAckModeOfTheAuditListenersOnly() {
        runner.withBean("auditListeners", ContainerCustomizer.class, ReadmeClaimsCustomizersTest::auditListeners)
                .withBean(Audited.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(container(context, "audit-orders").getContainerProperties().ackMode())
                            .isEqualTo(AckMode.RECORD);
                    assertThat(container(context, "orders").getContainerProperties().ackMode())
                            .isEqualTo(AckMode.BATCH);
                });
    }

    /** As the README writes it. */
    static ContainerCustomizer auditListeners() {
        return container -> {
            if (container.getListenerId().startsWith("audit-")) {
                container.setContainerProperties(container.getContainerProperties().withAckMode(AckMode.RECORD));
            }
        };
    }

    static class Audited {
        @KafkoListener(id = "audit-orders", topics = "orders", groupId = "audit")
        void audit(String value) {
        }

        @KafkoListener(id = "orders", topics = "orders")
        void orders(String value) {
        }
    }

    private static ConcurrentMessageListenerContainer container(ApplicationContext context, String id) {
        return (ConcurrentMessageListenerContainer) context.getBean(KafkoListenerEndpointRegistry.class)
                .getListenerContainer(id);
    }
}
