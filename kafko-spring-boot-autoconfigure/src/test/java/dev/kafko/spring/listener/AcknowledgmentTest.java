package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.Kafko;
import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.support.Acknowledgment;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** In the manual modes nothing is committed until the listener acknowledges, from any thread. */
class AcknowledgmentTest {

    static final BlockingQueue<Acknowledgment> ACKS = new LinkedBlockingQueue<>();

    @ParameterizedTest
    @EnumSource(value = AckMode.class, names = {"MANUAL", "MANUAL_IMMEDIATE"})
    void anAcknowledgmentFromAnotherThreadCommitsTheRecord(AckMode mode) {
        ACKS.clear();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(Holder.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.listener.ack-mode=" + mode,
                        "kafko.listener.poll-timeout=200ms")
                .run(context -> {
                    @SuppressWarnings("unchecked")
                    KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                    Kafko kafko = context.getBean(Kafko.class);
                    template.send("acks", "a").join();
                    template.send("acks", "b").join();
                    KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
                    assertThat(kafko.groupInfo("acks", "holder").committed()).doesNotContainKey(0);

                    ACKS.poll(5, TimeUnit.SECONDS); // leave "a" unacknowledged
                    Acknowledgment second = ACKS.poll(5, TimeUnit.SECONDS);
                    second.acknowledge(); // on the test thread, not the polling thread
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                            assertThat(kafko.groupInfo("acks", "holder").committed()).containsEntry(0, 2L));
                });
    }

    static class Holder {
        @KafkoListener(id = "holder", topics = "acks")
        void on(String value, Acknowledgment ack) {
            ACKS.add(ack);
        }
    }
}
