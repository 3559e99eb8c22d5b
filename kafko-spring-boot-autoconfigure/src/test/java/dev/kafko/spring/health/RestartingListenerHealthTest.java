package dev.kafko.spring.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoHealthAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConsumerStoppedEvent;
import dev.kafko.spring.listener.MessageListenerContainer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;

/**
 * A listener started again while its member still finishes the record it had in hand past its stop's shutdown
 * timeout is not a dead listener: the member starts again as soon as that record is done. Between the member's
 * end and that start (while its {@link ConsumerStoppedEvent} is published, by an application listener of it for as
 * long as that one takes) the container was neither running nor meant to be stopped, so the health indicator said
 * DOWN, with the listener in {@code failedListeners} and "unknown" as its failure: a readiness probe at that moment
 * took the instance out of service for a listener that was only being restarted as asked.
 */
class RestartingListenerHealthTest {

    static final CountDownLatch IN_HAND = new CountDownLatch(1);
    static final CountDownLatch RELEASE = new CountDownLatch(1);
    static final CountDownLatch PROBED = new CountDownLatch(1);
    static final AtomicReference<Health> HEALTH_WHILE_STOPPED_EVENT = new AtomicReference<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class, KafkoHealthAutoConfiguration.class))
            .withBean(SlowListener.class).withBean(HealthProbe.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.shutdown-timeout=100ms",
                    "kafko.health.min-free-disk=0B");

    @Test
    void aListenerRestartedWhileItsMemberFinishesARecordPastItsStopStaysUp() {
        runner.run(context -> {
            MessageListenerContainer container = context.getBean(KafkoListenerEndpointRegistry.class)
                    .getListenerContainer("slow");
            KafkoHealthIndicator health = context.getBean(KafkoHealthIndicator.class);
            @SuppressWarnings("unchecked")
            KafkoTemplate<String, String> template = context.getBean(KafkoTemplate.class);
            template.send("slow-topic", "k", "v").join();
            assertThat(IN_HAND.await(20, TimeUnit.SECONDS)).isTrue();

            container.stop(); // returns after the shutdown timeout, the member still in the listener
            container.start(); // the member starts again once its record is done
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            HealthProbe.armed = true;
            RELEASE.countDown();
            assertThat(PROBED.await(20, TimeUnit.SECONDS)).isTrue();
            Health during = HEALTH_WHILE_STOPPED_EVENT.get();
            assertThat(during.getDetails()).doesNotContainKey("failedListeners");
            assertThat(during.getStatus()).isEqualTo(Status.UP);
        });
    }

    static class SlowListener {
        @KafkoListener(id = "slow", topics = "slow-topic")
        void on(String value) throws InterruptedException {
            IN_HAND.countDown();
            RELEASE.await(30, TimeUnit.SECONDS);
        }
    }

    /** Checks the health while the stopped member's event is published, as a probe at that moment would. */
    static class HealthProbe implements ApplicationListener<ConsumerStoppedEvent> {
        static volatile boolean armed;
        private final ApplicationContext context;

        HealthProbe(ApplicationContext context) {
            this.context = context;
        }

        @Override
        public void onApplicationEvent(ConsumerStoppedEvent event) {
            if (armed && "slow".equals(event.getListenerId()) && HEALTH_WHILE_STOPPED_EVENT.get() == null) {
                HEALTH_WHILE_STOPPED_EVENT.set(context.getBean(KafkoHealthIndicator.class).health());
                PROBED.countDown();
            }
        }
    }
}
