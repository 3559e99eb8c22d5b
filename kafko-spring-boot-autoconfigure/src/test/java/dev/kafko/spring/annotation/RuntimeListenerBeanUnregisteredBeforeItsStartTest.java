package dev.kafko.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.listener.ContainerGroup;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.support.GenericApplicationContext;

/**
 * A listener bean created while the application runs (a prototype, a lazy bean) is registered, joins its container
 * group, then starts. An unregistration of its id by another thread between the join and the start left it started
 * all the same, running and registered nowhere; and when that start failed, the failure unregistered whatever held
 * the id by then. The registry starts it now, as it starts any container: only while that very container is
 * registered.
 */
class RuntimeListenerBeanUnregisteredBeforeItsStartTest {

    /**
     * Unregisters the container {@code late} as it joins its group, as another thread's unregistration landing between
     * the join and the start would, then registers {@link #replacement} (when set) under its id.
     */
    static final class UnregisteringOnJoin extends KafkoListenerEndpointRegistry {
        final AtomicReference<MessageListenerContainer> joined = new AtomicReference<>();
        volatile MessageListenerContainer replacement;

        @Override
        public ContainerGroup addToGroup(String group, MessageListenerContainer container) {
            ContainerGroup to = super.addToGroup(group, container);
            if (container.getListenerId().equals("late")) {
                joined.set(container);
                assertThat(unregisterListenerContainer("late")).isSameAs(container);
                if (replacement != null) {
                    registerListenerContainer(replacement, false);
                }
            }
            return to;
        }
    }

    /** A container of the application's own, never started. */
    record Placeholder(String getListenerId) implements MessageListenerContainer {
        @Override
        public String getGroupId() {
            return getListenerId;
        }

        @Override
        public List<String> getTopics() {
            return List.of();
        }

        @Override
        public void start() {
        }

        @Override
        public void stop() {
        }

        @Override
        public void pause() {
        }

        @Override
        public void resume() {
        }

        @Override
        public boolean isRunning() {
            return false;
        }

        @Override
        public boolean isPauseRequested() {
            return false;
        }

        @Override
        public boolean isPaused() {
            return false;
        }

        @Override
        public boolean isAutoStartup() {
            return false;
        }

        @Override
        public boolean isInExpectedState() {
            return true;
        }
    }

    static class Late {
        @KafkoListener(id = "late", topics = "late", containerGroup = "tenants")
        void on(String value) {
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(KafkoListenerEndpointRegistry.BEAN_NAME, UnregisteringOnJoin.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=100ms");

    @Test
    void aListenerBeanUnregisteredBeforeItsStartIsNotStarted() {
        runner.run(context -> {
            UnregisteringOnJoin registry = context.getBean(UnregisteringOnJoin.class);
            assertThat(registry.isRunning()).isTrue();
            GenericApplicationContext live = (GenericApplicationContext) context.getSourceApplicationContext();
            live.registerBean("late", Late.class);
            live.getBean("late");

            MessageListenerContainer late = registry.joined.get();
            assertThat(late).isNotNull();
            try {
                assertThat(registry.getListenerContainer("late")).isNull();
                assertThat(late.isRunning()).as("started after it was unregistered: running, registered nowhere")
                        .isFalse();
            } finally {
                late.stop();
            }
        });
    }

    @Test
    void aListenerBeanWhoseStartFailsLeavesTheContainerRegisteredUnderItsIdMeanwhile() {
        runner.withPropertyValues("kafko.auto-create-topics=false").run(context -> {
            UnregisteringOnJoin registry = context.getBean(UnregisteringOnJoin.class);
            Placeholder replacement = new Placeholder("late");
            registry.replacement = replacement;
            GenericApplicationContext live = (GenericApplicationContext) context.getSourceApplicationContext();
            live.registerBean("late", Late.class);
            try {
                live.getBean("late");
            } catch (RuntimeException startFailed) {
                // its topic does not exist: the unregistered container's start fails, if it is started at all
            }

            MessageListenerContainer late = registry.joined.get();
            assertThat(late).isNotNull();
            assertThat(late.isRunning()).isFalse();
            assertThat(registry.getListenerContainer("late")).as("removed by the failure of the other's start")
                    .isSameAs(replacement);
        });
    }
}
