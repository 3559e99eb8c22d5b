package dev.kafko.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kafko.spring.annotation.KafkoListener;
import dev.kafko.spring.autoconfigure.KafkoAutoConfiguration;
import dev.kafko.spring.core.KafkoTemplate;
import dev.kafko.spring.test.KafkoTestUtils;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Polling threads are virtual with spring.threads.virtual.enabled=true on Java 21+, platform threads otherwise. */
class VirtualThreadsTest {

    static final List<String> THREADS = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkoAutoConfiguration.class))
            .withBean(Listener.class).withPropertyValues("kafko.ephemeral=true");

    @Test
    void pollingThreadsAreVirtualWhenEnabledOnJava21() {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21");
        THREADS.clear();
        runner.withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
            send(context);
            assertThat(THREADS).containsExactly("vt-0:virtual=true");
        });
    }

    @Test
    void pollingThreadsArePlatformThreadsByDefault() {
        THREADS.clear();
        runner.run(context -> {
            send(context);
            assertThat(THREADS).containsExactly("vt-0:virtual=false");
        });
    }

    @SuppressWarnings("unchecked")
    static void send(org.springframework.context.ApplicationContext context) {
        context.getBean(KafkoTemplate.class).send("vt", "x").join();
        KafkoTestUtils.waitForListeners(context, Duration.ofSeconds(20));
    }

    static class Listener {
        @KafkoListener(id = "vt", topics = "vt")
        void on(String value) throws ReflectiveOperationException {
            Thread t = Thread.currentThread();
            boolean virtual = Runtime.version().feature() >= 21
                    && (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
            THREADS.add(t.getName() + ":virtual=" + virtual);
        }
    }
}
