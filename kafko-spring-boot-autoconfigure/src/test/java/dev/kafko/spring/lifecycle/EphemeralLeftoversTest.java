package dev.kafko.spring.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.autoconfigure.KafkoOptionsCustomizer;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** ephemeral logs of contexts that started, failed and closed leave no directory behind. */
class EphemeralLeftoversTest {

    static List<Path> ours() throws IOException {
        String prefix = "kafko-" + ProcessHandle.current().pid() + "-";
        try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
        }
    }

    static class FailsInInit implements org.springframework.beans.factory.InitializingBean {
        FailsInInit(KafkoTemplate<?, ?> template) {
        }

        @Override
        public void afterPropertiesSet() {
            throw new IllegalStateException("boom");
        }
    }

    @Test
    void startedFailedAndClosedEphemeralContextsLeaveNoDirectory() throws Exception {
        List<Path> before = ours();
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
                .withBean(ContextCyclesTest.Listeners.class)
                .withPropertyValues("kafko.ephemeral=true", "kafko.topics.cyc-rec.partitions=3",
                        "kafko.listener.poll-timeout=100ms");
        for (int i = 0; i < 5; i++) {
            runner.run(context -> {
                @SuppressWarnings("unchecked")
                KafkoTemplate<Object, Object> template = context.getBean(KafkoTemplate.class);
                template.send("cyc-rec", "x").join();
                template.send("cycp-b", "x").join();
                KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
            });
        }
        runner.withBean(FailsInInit.class).run(context -> assertThat(context).hasFailed());
        runner.withBean(KafkoOptionsCustomizer.class, () -> builder -> {
            throw new IllegalStateException("customizer boom");
        }).run(context -> assertThat(context).hasFailed());
        runner.withPropertyValues("kafko.topics.cyc-rec.partitions=0").run(context -> assertThat(context).hasFailed());
        assertThat(ours()).containsExactlyInAnyOrderElementsOf(before);
    }
}
