package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kafko.GroupNotEmptyException;
import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.config.KafkoListenerEndpointRegistry;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Claims of the README's section "Seeking and replay", each test quoting the sentence it checks. */
class ReadmeClaimsSeekingTest {

    static final Duration WAIT = Duration.ofSeconds(20);
    static final List<String> RECEIVED = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch entered = new CountDownLatch(0);
    static volatile CountDownLatch release = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.listener.poll-timeout=50ms");

    @BeforeEach
    void reset() {
        RECEIVED.clear();
        entered = new CountDownLatch(0);
        release = new CountDownLatch(0);
    }

    /**
     * "Extend {@code AbstractConsumerSeekAware} ...: its {@code seekToBeginning()}, {@code seekToEnd()} and
     * {@code seekToTimestamp(epochMillis)} seek every partition the bean's listeners read": {@code seekToEnd()} skips
     * the records sent before it, also those the member had polled and not yet delivered.
     */
    @Test
    void seekToEndOfTheBeanSkipsWhatTheLogHoldsAlsoRecordsAlreadyPolled() {
        entered = new CountDownLatch(1);
        release = new CountDownLatch(1);
        runner.withBean(Projection.class).run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            template.send("events", "held").join();
            assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();
            template.send("events", "skipped-1").join();
            template.send("events", "skipped-2").join();
            context.getBean(Projection.class).seekToEnd();
            release.countDown();
            KafkoTestUtils.waitForListeners(context, WAIT);
            template.send("events", "after").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).containsExactly("held", "after");
        });
    }

    /** "{@code seekToTimestamp(epochMillis)}" of the bean: every partition from its first record at or after it. */
    @Test
    void seekToTimestampOfTheBeanReplaysFromThatTime() {
        runner.withBean(Projection.class).withPropertyValues("kafko.topics.events.partitions=2").run(context -> {
            KafkoTemplate<Object, Object> template = template(context);
            for (int i = 0; i < 4; i++) {
                template.send("events", i % 2, 1_000L * (i + 1), null, "v" + i).join();
            }
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).hasSize(4);
            RECEIVED.clear();
            context.getBean(Projection.class).seekToTimestamp(2_500);
            KafkoTestUtils.waitForListeners(context, WAIT);
            assertThat(RECEIVED).containsExactlyInAnyOrder("v2", "v3");
        });
    }

    /**
     * "every group that committed keeps its offsets ... until it is deleted with {@code Kafko.deleteGroup(topic,
     * group)} once nothing reads as it ...: the {@code GroupNotEmptyException} of a group whose listener container
     * still runs is lifted by stopping or unregistering that container
     * ({@code registry.unregisterListenerContainer(id)}), which closes its members."
     */
    @Test
    void aGroupIsDeletedOnceItsContainerIsStoppedOrUnregistered() {
        runner.withBean(Projection.class).withBean(Audit.class).run(context -> {
            template(context).send("events", "e").join();
            KafkoTestUtils.waitForListeners(context, WAIT);
            Kafko kafko = context.getBean(Kafko.class);
            await().atMost(WAIT).until(() -> kafko.groups("events").containsAll(List.of("projection", "audit")));
            assertThatThrownBy(() -> kafko.deleteGroup("events", "projection"))
                    .isInstanceOf(GroupNotEmptyException.class);
            assertThatThrownBy(() -> kafko.deleteGroup("events", "audit")).isInstanceOf(GroupNotEmptyException.class);

            KafkoListenerEndpointRegistry registry = context.getBean(KafkoListenerEndpointRegistry.class);
            registry.getListenerContainer("projection").stop();
            assertThat(kafko.deleteGroup("events", "projection")).isTrue();
            assertThat(registry.unregisterListenerContainer("audit")).isNotNull();
            assertThat(kafko.deleteGroup("events", "audit")).isTrue();
            assertThat(kafko.groups("events")).doesNotContain("projection", "audit");
        });
    }

    @SuppressWarnings("unchecked")
    private static KafkoTemplate<Object, Object> template(ApplicationContext context) {
        return context.getBean(KafkoTemplate.class);
    }

    static class Projection extends AbstractConsumerSeekAware {
        @KafkoListener(id = "projection", topics = "events")
        void on(String value) throws InterruptedException {
            RECEIVED.add(value);
            if (value.equals("held")) {
                entered.countDown();
                assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    static class Audit {
        @KafkoListener(id = "audit", topics = "events")
        void on(String value) {
        }
    }
}
