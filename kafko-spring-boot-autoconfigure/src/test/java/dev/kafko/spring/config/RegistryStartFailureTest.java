package dev.kafko.spring.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A context whose listeners cannot all start fails cleanly: the ones that started are stopped first. */
@ExtendWith(OutputCaptureExtension.class)
class RegistryStartFailureTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withPropertyValues("kafko.ephemeral=true", "kafko.auto-create-topics=false",
                    "kafko.topics.first.partitions=2", "kafko.topics.second.partitions=2",
                    "kafko.listener.concurrency=2");

    @Test
    void listenersStartedBeforeOneThatCannotAreStoppedBeforeKafkoClosesNoThreadDiesNoneIsLeft(CapturedOutput output) {
        runner.withBean(Declared.class).withBean(Missing.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("topic 'absent' does not exist and kafko.auto-create-topics is false"));
        // the failed start waited for each member's run to end; its thread may still be on its way out
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().startsWith("declared-")));
        assertThat(output).doesNotContain("died").doesNotContain("KafkoClosedException");
    }

    static class Declared {
        @KafkoListener(id = "declared-first", topics = "first")
        void first(String value) {
        }

        @KafkoListener(id = "declared-second", topics = "second")
        void second(String value) {
        }
    }

    static class Missing {
        @KafkoListener(id = "missing", topics = "absent")
        void on(String value) {
        }
    }
}
