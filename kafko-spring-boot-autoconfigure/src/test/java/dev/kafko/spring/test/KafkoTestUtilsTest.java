package dev.kafko.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

@ExtendWith(OutputCaptureExtension.class)
class KafkoTestUtilsTest {

    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    static volatile CountDownLatch gate = new CountDownLatch(0);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Gated.class).withPropertyValues("kafko.ephemeral=true");

    @Test
    void waitsForEveryRecordSentBeforeTheCallAndNamesThePartitionsStillBehind(CapturedOutput output) {
        SEEN.clear();
        gate = new CountDownLatch(1);
        runner.run(context -> {
            @SuppressWarnings("unchecked")
            KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
            template.send("gated", "a").join();
            template.send("gated", "b").join();
            assertThatThrownBy(() -> KafkoTestUtils.waitForListeners(context, Duration.ofMillis(200)))
                    .isInstanceOf(AssertionError.class).hasMessageContaining("gated: gated-0 at 0 of 2");
            gate.countDown();
            KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            assertThat(SEEN).containsExactly("a", "b");
        });
        assertThat(output).contains("Listener 'gated' has concurrency 2 but topic 'gated' has 1 partition(s)");
    }

    static class Gated {
        @KafkoListener(id = "gated", topics = "gated", concurrency = "2")
        void on(String value) throws InterruptedException {
            gate.await(30, TimeUnit.SECONDS);
            SEEN.add(value);
        }
    }
}
