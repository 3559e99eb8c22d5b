package dev.kafko.spring.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerContainerFactory;
import dev.kafko.spring.listener.ConcurrentMessageListenerContainer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * README, "Container events": "An application listener that blocks holds up the member; one that throws (an
 * {@code Error} too, but the JVM's own) is logged, and the member goes on."
 */
class ReadmeClaimsContainerEventsTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();

    /**
     * A topic pattern that matches no topic: the container runs with no member, and its stop publishes the
     * {@link ConcurrentContainerStoppedEvent} on the stopping thread itself. An application listener that throws an
     * {@code AssertionError} there was logged when it threw a {@code RuntimeException}, but the {@code Error} went out
     * of {@code stop()}, skipping what the stop does after the event ({@code stop(callback)}'s callback never ran).
     */
    @Test
    void anErrorFromAnApplicationListenerOfTheStopOfAContainerWithNoMemberIsLoggedAndTheStopGoesOn() {
        HEARD.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withUserConfiguration(ThrowingListener.class).withPropertyValues("kafko.ephemeral=true")
                .run(context -> {
                    KafkoListenerContainerFactory factory = context.getBean(KafkoListenerContainerFactory.class);
                    ConcurrentMessageListenerContainer container = factory.createListenerContainer("no-topic-yet",
                            "g", Pattern.compile("nothing-matches-.*"), (records, ack) -> { });
                    container.start();
                    AtomicBoolean callback = new AtomicBoolean();
                    container.stop(() -> callback.set(true));
                    // published on the thread that stops the container, there being no member
                    assertThat(HEARD).containsExactly("no-topic-yet NORMAL on " + Thread.currentThread().getName());
                    assertThat(callback).as("stop(callback) ran its callback").isTrue();
                    assertThat(container.isRunning()).isFalse();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class ThrowingListener {
        @Bean
        Listener throwingStopListener() {
            return new Listener();
        }
    }

    /** An {@code ApplicationListener} (not an {@code @EventListener} method, whose adapter wraps an {@code Error}). */
    static class Listener implements ApplicationListener<ConcurrentContainerStoppedEvent> {
        @Override
        public void onApplicationEvent(ConcurrentContainerStoppedEvent event) {
            HEARD.add(event.getListenerId() + " " + event.getReason() + " on " + Thread.currentThread().getName());
            throw new AssertionError("an application listener's assertion");
        }
    }
}
