package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.event.ConcurrentContainerStoppedEvent;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link ContainerStoppingErrorHandler}: the first failure stops the container without a retry and without committing
 * past the record, which is delivered again, and the records after it, once the container is started again.
 */
@ExtendWith(OutputCaptureExtension.class)
class ContainerStoppingErrorHandlerTest {

    static final List<String> HEARD = new CopyOnWriteArrayList<>();
    static volatile boolean healed;
    static final AtomicReference<CountDownLatch> STOPPED = new AtomicReference<>(new CountDownLatch(1));

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withUserConfiguration(Stopping.class).withBean(Listener.class)
            .withPropertyValues("kafko.ephemeral=true", "kafko.topics.jobs.partitions=1");

    @Test
    void theFirstFailureStopsTheContainerAndTheRecordComesAgainAtTheNextStart(CapturedOutput output) {
        HEARD.clear();
        healed = false;
        STOPPED.set(new CountDownLatch(1));
        runner.run(context -> {
            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.getListenerContainer("jobs").stop();
            for (String job : List.of("a", "poison", "b")) {
                template(context).send("jobs", job).join();
            }
            STOPPED.set(new CountDownLatch(1));
            registry.getListenerContainer("jobs").start();

            assertThat(STOPPED.get().await(20, TimeUnit.SECONDS)).as("the container stopped").isTrue();
            assertThat(registry.getListenerContainer("jobs").isRunning()).isFalse();
            // no retry, and nothing after the failed record
            assertThat(HEARD).containsExactly("a", "poison");
            Kafko kafko = context.getBean(Kafko.class);
            assertThat(kafko.groupInfo("jobs", "jobs").committed()).as("past a, not past the failure")
                    .isEqualTo(Map.of(0, 1L));
            assertThat(output).contains("Listener 'jobs' failed on 1 record(s) from jobs-0 at offset 1; stopping its"
                    + " container: they are not committed and will be delivered again when it starts");

            healed = true;
            registry.getListenerContainer("jobs").start();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(HEARD).containsExactly("a", "poison", "poison", "b");
            assertThat(kafko.groupInfo("jobs", "jobs").committed()).isEqualTo(Map.of(0, 3L));
        });
    }

    @Test
    void anInvocationWithoutAContainerRefusesToStopOneNamingTheListener() {
        FailedInvocation detached = new FailedInvocation() {
            @Override
            public String listenerId() {
                return "orphan";
            }

            @Override
            public String groupId() {
                return "orphan";
            }

            @Override
            public void retry() {
            }

            @Override
            public boolean backOff(long millis) {
                return true;
            }
        };
        assertThatThrownBy(detached::stopContainer).isInstanceOf(UnsupportedOperationException.class)
                .hasMessage("listener 'orphan': this invocation has no container to stop");
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class Stopping {
        @Bean
        KafkoErrorHandler kafkoErrorHandler() {
            return new ContainerStoppingErrorHandler();
        }

        @Bean
        ApplicationListener<ConcurrentContainerStoppedEvent> stopped() {
            return event -> STOPPED.get().countDown();
        }
    }

    static class Listener {
        @KafkoListener(id = "jobs", topics = "jobs")
        void on(String job) {
            HEARD.add(job);
            if (job.equals("poison") && !healed) {
                throw new IllegalStateException("cannot do " + job);
            }
        }
    }
}
